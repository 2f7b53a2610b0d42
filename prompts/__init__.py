"""Prompts, one module per LLM role, each with its versioned text and pydantic output schema.

Where an answer must come from a closed set (ontology tags, options A/B, candidate numbers) the
schema is built per call with that set enumerated, so an out-of-set answer cannot be produced by
a schema-constrained endpoint and is rejected by validation everywhere else.
"""
