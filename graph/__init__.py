"""The CAIM LangGraph: ``graph`` (for langgraph.json / Studio) and ``build_graph`` (programmatic)."""

from caim.graph.builder import build_graph, graph
from caim.graph.state import Context, InputState, State

__all__ = ["Context", "InputState", "State", "build_graph", "graph"]
