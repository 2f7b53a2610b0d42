"""The bottom layer: configuration, errors, and everything that talks to a model.

Nothing here imports another caim package. ``settings`` (every knob), ``errors`` (one-line errors for people),
``types`` (role and route names), ``trace`` (what a run records about its steps and model calls),
``models`` (chat models per role), ``local_llm`` (the in-process llama.cpp server), ``llm`` (the
structured-output client), ``embeddings`` (text vectors, local by default), ``scripted`` (the
``scripted`` provider: a deterministic chat model answering from a JSON table) and ``faults`` (places
where a test can make the process die).
"""
