"""Prompts, one module per LLM role, each with its versioned text and pydantic output schema.

Each role's answer is a static pydantic model (``plan.PlanAnswer``, ``thoughts.Thoughts``, ...) that
callers use as their type. Where an answer must come from a closed set (ontology tags, options A/B,
candidate numbers) the role's ``schema(...)`` narrows that model per call with the set enumerated
(a subclass under the name the model sees), so an out-of-set answer cannot be produced by a
schema-constrained endpoint and is rejected by validation everywhere else.
"""
