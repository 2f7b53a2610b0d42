"""caim's surfaces: the ways a person or a program reaches the library (``caim.Memory``, ``caim.CaimAgent``).

- ``cli`` (with its progress line, ``progress``): the ``caim`` command;
- ``openai_server``: ``caim serve``, an OpenAI-compatible endpoint;
- ``mcp_server``: ``caim mcp``, the memory as MCP tools (stdio or streamable HTTP);
- ``ui``: ``caim ui``, the memory browser;
- ``langgraph_app``, ``auth`` and ``run_checks``: the LangGraph server's HTTP app, auth handlers and run checks;
- what they share: ``web`` (the hosts served, the body limit, one-line errors), ``tokens`` (the one
  bearer-token check) and ``errors`` (the one error -> HTTP status mapping).

The library never imports a surface (``tests/test_layers.py``); a new surface sits here beside the others
and uses the shared three.
"""
