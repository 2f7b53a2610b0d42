"""Stand-ins for tests and benchmarks, above ``caim.core``: ``simulated`` (an OpenAI-compatible and
Anthropic Messages endpoint on loopback, with latency and faults). No source package imports this
one; the scripted chat model and the fault points are ``caim.core``'s (``scripted``, ``faults``).
"""
