"""The graph ``langgraph.json`` serves (``langgraph dev``, Studio, a LangGraph deployment): the chat
graph built on import, its services created on its first run from the deployment's settings. Nothing
else imports this module, so importing ``caim.graph`` or its state types builds no graph."""

from caim.graph.builder import build_graph

graph = build_graph()
