"""Stand-ins for tests and benchmarks, beside ``caim.core`` at the bottom of the layers.

``scripted`` (a deterministic chat model answering from a JSON table: the ``scripted`` provider),
``simulated`` (an OpenAI-compatible and Anthropic Messages endpoint on loopback, with latency and
faults) and ``faultpoints`` (places where a test can make the process die). Only ``caim.core``'s
leaf modules (``errors``, ``types``) are imported here, so ``caim.core`` may import this package.
"""
