"""The bottom layer: configuration, errors, and everything that talks to a model.

Nothing here imports another caim package but ``caim.testing`` (beside it at the bottom: the
``scripted`` provider's model). ``settings`` (every knob), ``errors`` (one-line errors for people),
``types`` (role and route names), ``trace`` (what a run records about its steps and model calls),
``models`` (chat models per role), ``local_llm`` (the in-process llama.cpp server), ``llm`` (the
structured-output client) and ``embeddings`` (text vectors, local by default).
"""
