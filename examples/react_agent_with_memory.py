"""Your own tool-calling agent, remembering its user across sessions through caim.

A LangChain ``create_agent`` ReAct agent (LangGraph 1.x's recommended builder; ``create_react_agent``
in ``langgraph.prebuilt`` is its deprecated predecessor) with two tools - ``get_weather`` (canned
forecasts) and ``convert_currency`` (fixed rates), both offline and deterministic - is the responder
of caim's chat graph (``caim.with_memory``): each turn runs caim's recall first and the agent gets the
kept memories as a system message before the session's messages; its tool calls, tool results and
reply stay in the thread; a run with ``{"end_session": True}`` post-thinks the session, so what the
user stated is recalled in later sessions. The user is the run context's ``user_id``.

In LangGraph Studio (``langgraph dev``; ``langgraph.json`` serves ``graph`` below as
``react_agent``) the agent's model is the deployment's answer model, the one caim's own ``respond``
role uses (``CAIM_MODEL=anthropic:claude-…``, ``OPENAI_API_KEY``, ``CAIM_BASE_URL``, ...), built on
its first call; it must support tool calling. In code, pass any tool-calling chat model::

    from langchain.chat_models import init_chat_model
    from langgraph.checkpoint.memory import InMemorySaver

    app = build(init_chat_model("anthropic:claude-sonnet-4-5"), checkpointer=InMemorySaver())
    run = {"configurable": {"thread_id": "t1"}}
    app.invoke({"messages": [{"role": "user", "content": "My sister lives in Lisbon."}]},
               run, context={"user_id": "alice"})
    app.invoke({"messages": [{"role": "user", "content": "Weather where my sister lives?"}]},
               run, context={"user_id": "alice"})
    app.invoke({"end_session": True}, run, context={"user_id": "alice"})   # post-thinking
"""

# No ``from __future__ import annotations``: pydantic resolves ``DeploymentModel``'s field types when
# the class is created, also when langgraph dev loads this file by path (not as an importable module).
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any

from langchain.agents import create_agent
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool, tool
from pydantic import PrivateAttr

from caim import with_memory
from caim.graph.services import Services, services_for

SYSTEM_PROMPT = (
    "You are a helpful travel assistant. Use get_weather for forecasts and convert_currency for money. "
    "When memories of the user are given, use them (for example, the cities that matter to them)."
)

#: Canned forecasts (the example makes no network calls).
FORECASTS = {
    "lisbon": "sunny, 24°C, light wind from the north",
    "porto": "cloudy, 19°C, showers in the evening",
    "paris": "overcast, 16°C, rain likely in the afternoon",
    "london": "drizzle, 14°C",
    "tokyo": "clear, 22°C",
}
#: Units of each currency per euro (fixed for the example).
PER_EURO = {"EUR": 1.0, "USD": 1.08, "GBP": 0.85, "JPY": 162.0, "BRL": 5.9}


@tool
def get_weather(city: str) -> str:
    """Today's weather forecast for a city (its name, e.g. "Lisbon")."""
    forecast = FORECASTS.get(city.strip().lower())
    return f"{city.strip()}: {forecast}" if forecast else f"No forecast for {city.strip()!r}."


@tool
def convert_currency(amount: float, from_currency: str, to_currency: str) -> str:
    """Convert an amount of money between currencies (ISO codes: EUR, USD, GBP, JPY, BRL)."""
    src, dst = from_currency.strip().upper(), to_currency.strip().upper()
    unknown = [c for c in (src, dst) if c not in PER_EURO]
    if unknown:
        return f"Unknown currency {unknown[0]!r}; known: {', '.join(PER_EURO)}."
    return f"{amount:.2f} {src} = {amount / PER_EURO[src] * PER_EURO[dst]:.2f} {dst}"


TOOLS: list[BaseTool] = [get_weather, convert_currency]


class DeploymentModel(BaseChatModel):
    """The deployment's answer model, built by ``factory`` on the first call (so that loading the graph
    starts no model server and needs no key); every call and ``bind_tools`` go to that model."""

    factory: Callable[[], BaseChatModel]
    _model: BaseChatModel | None = PrivateAttr(default=None)

    @property
    def _llm_type(self) -> str:
        return "caim-deployment-model"

    @property
    def model(self) -> BaseChatModel:
        if self._model is None:
            self._model = self.factory()
        return self._model

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Runnable:
        return self.model.bind_tools(tools, **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self.model._generate(messages, stop, run_manager, **kwargs)

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        return self.model._stream(messages, stop, run_manager, **kwargs)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return await self.model._agenerate(messages, stop, run_manager, **kwargs)

    def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        return self.model._astream(messages, stop, run_manager, **kwargs)


def deployment_model() -> BaseChatModel:
    """The model caim's ``respond`` role uses in this process (from the ``CAIM_*`` settings)."""
    return services_for().models.for_role("respond")


def build_agent(model: BaseChatModel | str) -> Any:
    """The ReAct agent alone: ``model`` (a tool-calling chat model, or a ``provider:model`` name for
    ``init_chat_model``) with ``TOOLS``."""
    return create_agent(model, TOOLS, system_prompt=SYSTEM_PROMPT, name="travel_agent")


def build(
    model: BaseChatModel | str | None = None,
    *,
    services: Services | None = None,
    checkpointer: Any = None,
) -> Any:
    """The agent inside caim's chat graph. ``model``: default the deployment's answer model;
    ``services``: caim's stores and models (default the process's, from ``CAIM_*`` settings)."""
    agent = build_agent(model if model is not None else DeploymentModel(factory=deployment_model))
    return with_memory(agent, services=services, checkpointer=checkpointer, name="react_agent_with_memory")


graph = build()
