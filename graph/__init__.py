"""The CAIM LangGraph: ``build_graph`` (programmatic) and ``graph`` (the one langgraph.json serves,
``caim.graph.studio``: built when first asked for, never on import)."""

from typing import Any

from caim.graph.builder import build_graph
from caim.graph.state import Context, InputState, State

__all__ = ["Context", "InputState", "State", "build_graph", "graph"]


def __getattr__(name: str) -> Any:
    if name == "graph":
        from caim.graph.studio import graph

        return graph
    raise AttributeError(f"module 'caim.graph' has no attribute {name!r}")
