"""Any LangChain chat model for every role: structured output through tool calling for models that
are not OpenAI-compatible, fault mapping for their clients, and ``provider:model`` names built by
``init_chat_model``.

The real ``ChatAnthropic`` talks to the simulated Anthropic Messages API of ``caim.testing.simulated``
on loopback; ``ToolModel`` is a chat model whose tool calls the test scripts."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import httpx2
import pytest
from langchain_anthropic import ChatAnthropic
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage, SystemMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_openai import ChatOpenAI
from pydantic import Field

from caim.agent import CaimAgent, ConfigError, EndpointError, Settings
from caim.core.llm import LLM, fault_kind, openai_compatible
from caim.core.models import Models
from caim.prompts import controller, tags
from caim.testing.simulated import Request, SimulatedEndpoint, fail_first
from tests.scripts import SCRIPT

#: Response schema names (tool names) and the role whose rule in ``tests.scripts`` answers them.
SCHEMA_ROLES = {
    "Plan": "plan",
    "Choice": "controller",
    "TagChoice": "tags",
    "TimeRefs": "time",
    "Relevant": "relevance",
    "KeyEvents": "key_events",
    "Thoughts": "thoughts",
    "MaintenancePlan": "maintain",
    "Backgrounds": "profile",
    "Principles": "profile",
}


def as_response_format(name: str, schema: dict) -> dict:
    """A tool's schema in the response-format shape the rules in ``tests.scripts`` read. Tool schemas
    arrive with their ``$ref``s inlined; the ``thoughts`` rule looks its tags up under ``$defs``."""
    schema = dict(schema)
    if name == "Thoughts":
        schema["$defs"] = {"Thought": schema["properties"]["thoughts"]["items"]}
    return {"type": "json_schema", "json_schema": {"name": name, "schema": schema}}


def langchain_messages(messages: list[dict]) -> list[BaseMessage]:
    kinds = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}
    return [kinds[m["role"]](m["content"]) for m in messages]


def endpoint_table(script: dict) -> dict[str, Callable[[Request], Any]]:
    """The scripted rules as a simulated endpoint's table: the same answers the scripted model gives."""

    def answer(role: str) -> Callable[[Request], Any]:
        def serve(req: Request) -> Any:
            rf = as_response_format(req.role, req.schema) if req.schema is not None else None
            entry = script[role]
            return entry(langchain_messages(req.messages), rf) if callable(entry) else entry

        return serve

    table = {name: answer(role) for name, role in SCHEMA_ROLES.items()}
    table.update(respond=answer("respond"), summarize=answer("summarize"))
    return table


def two_sessions(models: Any, settings: Settings) -> dict:
    """A session that states facts, its end, then a general question and a memory question."""
    with CaimAgent(settings, models=models) as agent:
        agent.chat("Hello, my name is Emily.", user_id="emily", at="2023-04-27T09:00:00")
        agent.chat("I love painting and playing the piano.", user_id="emily", at="2023-04-27T09:03:00")
        summary = agent.end_session(user_id="emily", at="2023-04-27T09:30:00")
        general = agent.chat("What is the plot of Inception?", user_id="emily", at="2023-04-28T10:00:00")
        recall = agent.chat(
            "What did I tell you about painting? Do you remember?", user_id="emily", at="2023-04-28T10:01:00"
        )
        streamed = "".join(agent.stream("Do you remember my name?", user_id="emily", at="2023-04-28T10:02:00"))
        records = agent.memories("emily")
    return {
        "stored": sorted((m["thought"], tuple(m["tags"])) for m in summary.stored),
        "records": sorted((r.thought, tuple(r.tags), r.event_time.isoformat()) for r in records),
        "routes": [general.route, recall.route],
        "recalled": sorted(m["thought"] for m in recall.memories),
        "texts": [general.text, recall.text, streamed],
        "fallbacks": [e for e in summary.trace + general.trace + recall.trace if e.get("fallback")],
        "llm_calls": sorted(e["role"] for e in summary.trace + general.trace + recall.trace if e.get("kind") == "llm"),
    }


def test_chat_anthropic_runs_turns_and_a_session_end_as_the_scripted_model_does(settings, scripted, tmp_path):
    models, _calls, script = scripted
    expected = two_sessions(models, settings)
    with SimulatedEndpoint(endpoint_table(script)) as ep:
        claude = ChatAnthropic(model="claude-sim", base_url=ep.anthropic_url, api_key="sim", max_retries=0)
        got = two_sessions(claude, settings.model_copy(update={"data_dir": tmp_path / "anthropic"}))
    assert len(expected["stored"]) == 2 and expected["routes"] == ["none", "ltm"]
    assert got == expected and not expected["fallbacks"]
    assert any("painting" in t for t in got["recalled"]) and "painting" in got["texts"][1]
    assert ep.requests and {r.wire for r in ep.requests} == {"anthropic"}
    assert not [r for r in ep.requests if "response_format" in r.payload]
    structured = [r for r in ep.requests if r.schema is not None]
    assert {r.role for r in structured} >= {"Plan", "KeyEvents", "Thoughts"}
    for r in structured:  # one tool, the schema, forced
        assert [t["name"] for t in r.payload["tools"]] == [r.role]
        assert r.payload["tool_choice"] == {"type": "tool", "name": r.role}
    plan = next(r for r in structured if r.role == "Plan")
    assert plan.schema["properties"]["memory"]["enum"] and plan.schema["properties"]["tags"]["items"]["enum"]
    assert any(r.stream for r in ep.requests)  # the streamed answer came as server-sent events


class ToolModel(BaseChatModel):
    """A chat model with tool calling whose answers the test scripts: ``answers[tool name]`` is a
    list of ``{"args": {...}}`` (a tool call), ``{"invalid": "<text>"}`` (arguments that are not
    JSON) or ``{"text": "..."}``, used in turn (the last one repeats); without an entry the rules of
    ``tests.scripts`` answer. Free text comes from those rules too. ``calls`` records each call's
    keyword arguments."""

    answers: dict[str, list[dict]] = Field(default_factory=dict)
    calls: list[dict] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "test-tool-model"

    def bind_tools(self, tools: Any, *, tool_choice: str | None = None, **kwargs: Any) -> Any:
        return self.bind(tools=list(tools), tool_choice=tool_choice, **kwargs)

    def _reply(self, messages: list[BaseMessage], kwargs: dict) -> AIMessage:
        self.calls.append(kwargs)
        usage = {"input_tokens": 7, "output_tokens": 3, "total_tokens": 10}
        tools = kwargs.get("tools") or []
        if not tools:
            system = " ".join(str(m.content) for m in messages if isinstance(m, SystemMessage)).lower()
            role = "summarize" if "summarise a conversation" in system or system.startswith("summarise") else "respond"
            return AIMessage(SCRIPT[role](messages, None) if callable(SCRIPT[role]) else SCRIPT[role])
        fn = tools[0]["function"]
        name = fn["name"]
        queue = self.answers.get(name)
        if queue:
            step = queue.pop(0) if len(queue) > 1 else queue[0]
        else:
            step = {"args": SCRIPT[SCHEMA_ROLES[name]](messages, as_response_format(name, fn["parameters"]))}
        if "invalid" in step:
            bad = {
                "name": name,
                "args": step["invalid"],
                "id": "call_1",
                "error": "not JSON",
                "type": "invalid_tool_call",
            }
            return AIMessage("", invalid_tool_calls=[bad], usage_metadata=usage)
        if "text" in step:
            return AIMessage(step["text"], usage_metadata=usage)
        call = {"name": name, "args": step["args"], "id": "call_1", "type": "tool_call"}
        return AIMessage("", tool_calls=[call], usage_metadata=usage)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._reply(messages, kwargs))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        text = str(self._reply(messages, kwargs).content)
        for i, word in enumerate(text.split(" ")):
            # content as a list of text blocks, as Anthropic's and Google's clients stream it
            yield ChatGenerationChunk(
                message=AIMessageChunk(content=[{"type": "text", "text": (" " if i else "") + word}])
            )


def test_tool_calling_model_gets_the_schema_as_one_forced_tool_with_closed_sets_enumerated():
    model = ToolModel(answers={"TagChoice": [{"args": {"tags": ["music"]}}]})
    llm = LLM(Models(Settings(_env_file=None), overrides=model))
    trace: list[dict] = []
    answer = llm.structured("tags", tags.schema(("food", "music")), [HumanMessage("hi")], trace=trace, node="tags")
    assert answer is not None and answer.tags == ["music"]
    [kwargs] = model.calls
    assert "response_format" not in kwargs and kwargs["tool_choice"] == "TagChoice"
    [tool] = kwargs["tools"]
    assert tool["function"]["parameters"]["properties"]["tags"]["items"]["enum"] == ["food", "music"]
    assert trace == [{**trace[0], "input_tokens": 7, "output_tokens": 3, "attempts": 1}]
    assert not openai_compatible(model)


def test_malformed_tool_call_is_retried_and_a_value_outside_the_closed_set_is_refused():
    model = ToolModel(answers={"TagChoice": [{"invalid": '{"tags": ["music"'}, {"args": {"tags": ["music"]}}]})
    llm = LLM(Models(Settings(_env_file=None), overrides=model))
    trace: list[dict] = []
    schema = tags.schema(("food", "music"))
    answer = llm.structured("tags", schema, [HumanMessage("hi")], trace=trace, node="tags")
    assert answer is not None and answer.tags == ["music"]
    assert trace[-1]["attempts"] == 2 and trace[-1]["input_tokens"] == 14 and "fallback" not in trace[-1]

    model.answers["TagChoice"] = [{"args": {"tags": ["zebra"]}}]
    assert llm.structured("tags", schema, [HumanMessage("hi")], trace=trace, node="tags") is None
    assert trace[-1]["fallback"] and "zebra" in trace[-1]["error"] and trace[-1]["attempts"] == 2

    model.answers["TagChoice"] = [{"invalid": "{not json"}]
    assert llm.structured("tags", schema, [HumanMessage("hi")], trace=trace, node="tags") is None
    assert "tool call arguments are not JSON" in trace[-1]["error"]

    model.answers["TagChoice"] = [{"text": '```json\n{"tags": ["food", "food", "food", "food"]}\n```'}]
    answer = llm.structured("tags", schema, [HumanMessage("hi")], trace=trace, node="tags")
    assert answer is not None and answer.tags == ["food"] * 3  # an answer in text is read, trimmed, validated


def test_a_malformed_plan_from_a_tool_calling_model_falls_back_to_the_code_signals(settings):
    model = ToolModel(answers={"Plan": [{"invalid": '{"needs_memory": "ye'}]})
    with CaimAgent(settings, models=model) as agent:
        agent.chat("I love painting and playing the piano.", user_id="ann")
        assert len(agent.end_session(user_id="ann").stored) == 1
        recall = agent.chat("What did I tell you about painting? Do you remember?", user_id="ann")
        pieces = list(agent.stream("Do you remember what I love?", user_id="ann"))
    assert recall.route.startswith("ltm") and any("painting" in m["thought"] for m in recall.memories)
    [plan] = [e for e in recall.trace if e.get("role") == "plan"]
    assert plan["fallback"] and "tool call arguments are not JSON" in plan["error"]
    assert "".join(pieces).startswith("From memory") and len(pieces) > 1  # list-of-blocks chunks streamed
    assert not [c for c in model.calls if "response_format" in c]


class JsonOnlyModel(BaseChatModel):
    """A chat model without tool calling: it answers every call with ``reply``."""

    reply: str = ""
    seen: list[list[BaseMessage]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "test-json-only"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        self.seen.append(messages)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(self.reply))])


def test_a_model_without_tool_calling_is_asked_for_the_json_in_a_last_message():
    model = JsonOnlyModel(reply='{"answer": "B"}')
    llm = LLM(Models(Settings(_env_file=None), overrides=model))
    messages = controller.messages("needs_memory", "hi", "")
    answer = llm.structured("controller", controller.Choice, messages, trace=[], node="controller")
    assert answer is not None and answer.answer == "B"
    [sent] = model.seen
    assert sent[: len(messages)] == messages and '"enum": ["A", "B"]' in str(sent[-1].content)
    model.reply = '{"answer": "C"}'
    assert llm.structured("controller", controller.Choice, messages, trace=[], node="controller") is None


def test_openai_compatible_models_still_get_the_json_schema_response_format():
    with SimulatedEndpoint({"TagChoice": {"tags": ["food"]}}) as ep:
        model = ChatOpenAI(model="simulated", base_url=ep.base_url, api_key="sim", max_retries=0)
        llm = LLM(Models(Settings(_env_file=None), overrides=model))
        answer = llm.structured("tags", tags.schema(("food", "music")), [HumanMessage("hi")], trace=[], node="t")
    assert answer is not None and answer.tags == ["food"]
    [req] = ep.requests
    assert req.payload["response_format"]["json_schema"]["schema"]["properties"]["tags"]["items"]["enum"] == [
        "food",
        "music",
    ]
    assert "tools" not in req.payload and openai_compatible(model)


# ---- faults of clients that are not openai's -----------------------------------------------------------


class StatusError(Exception):
    def __init__(self, status: int, on_response: bool = False):
        super().__init__(f"HTTP {status}")
        if on_response:
            self.response = httpx.Response(status)
        else:
            self.status_code = status


class BotoLikeError(Exception):
    def __init__(self, status: int):
        super().__init__("throttled")
        self.response = {"Error": {"Code": "ThrottlingException"}, "ResponseMetadata": {"HTTPStatusCode": status}}


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        (StatusError(401), "fatal"),
        (StatusError(403, on_response=True), "fatal"),
        (StatusError(404), "fatal"),
        (StatusError(408), "transient"),
        (StatusError(429, on_response=True), "transient"),
        (StatusError(503), "transient"),
        (StatusError(400), None),
        (BotoLikeError(429), "transient"),
        (httpx.ConnectTimeout("slow"), "transient"),
        (httpx.ConnectError("refused"), "transient"),
        (httpx.RemoteProtocolError("cut"), "transient"),
        (httpx2.RemoteProtocolError("cut"), "transient"),
        (httpx2.ReadTimeout("slow"), "transient"),
        (TimeoutError(), "transient"),
        (ValueError("a bug"), None),
    ],
)
def test_faults_are_told_apart_by_http_status_and_transport_errors(exc, kind):
    assert fault_kind(exc) == kind


@pytest.fixture
def claude():
    def make(ep: SimulatedEndpoint, timeout: float = 5.0) -> ChatAnthropic:
        return ChatAnthropic(
            model="claude-sim", base_url=ep.anthropic_url, api_key="sim", max_retries=0, timeout=timeout
        )

    return make


def test_anthropic_faults_retry_when_transient_and_stop_at_once_when_fatal(claude):
    settings = Settings(_env_file=None, request_timeout=1.0)
    messages = controller.messages("needs_memory", "hi", "")
    with SimulatedEndpoint({"Choice": {"answer": "A"}}, faults=fail_first(1, "429")) as ep:
        llm = LLM(Models(settings, overrides=claude(ep)), endpoint_retries=2, backoff=0.01)
        trace: list[dict] = []
        answer = llm.structured("controller", controller.Choice, messages, trace=trace, node="c")
        assert answer is not None and answer.answer == "A" and len(ep.requests) == 2
    with SimulatedEndpoint({"respond": "hi"}, faults=fail_first(99, "401")) as ep:
        llm = LLM(Models(settings, overrides=claude(ep)), endpoint_retries=2, backoff=0.01)
        with pytest.raises(EndpointError, match=r"rejected the API key \(ChatAnthropic\(claude-sim\)\)") as err:
            llm.text("respond", messages, trace=[], node="respond")
        assert "\n" not in str(err.value) and len(ep.requests) == 1  # fatal: no retry
    with SimulatedEndpoint({}, faults=fail_first(99, "500")) as ep:
        llm = LLM(Models(settings, overrides=claude(ep)), endpoint_retries=1, backoff=0.01)
        trace = []
        assert llm.structured("controller", controller.Choice, messages, trace=trace, node="c") is None
        assert "failed (HTTP 500)" in trace[-1]["error"] and len(ep.requests) == 2
    with SimulatedEndpoint({}, faults=fail_first(99, "timeout"), stall=3) as ep:
        llm = LLM(Models(settings, overrides=claude(ep, timeout=0.5)), endpoint_retries=0)
        with pytest.raises(EndpointError, match="did not answer within 1s"):
            llm.text("respond", messages, trace=[], node="respond")
    with SimulatedEndpoint({"respond": "one two three four five six"}, faults=fail_first(1, "truncate")) as ep:
        llm = LLM(Models(settings, overrides=claude(ep)), endpoint_retries=1, backoff=0.01)
        pieces: list[str] = []
        with pytest.raises(EndpointError, match="cut off"):
            llm.stream_text("respond", messages, trace=[], node="respond", on_piece=pieces.append)
        assert pieces  # the pieces before the cut were sent


# ---- provider:model names ------------------------------------------------------------------------------


@pytest.fixture
def clean_env(monkeypatch):
    for var in (
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "CAIM_PROVIDER",
        "CAIM_MODEL",
        "CAIM_BASE_URL",
        "CAIM_API_KEY",
        "CAIM_ROLE_MODELS",
        "ANTHROPIC_API_URL",
        "ANTHROPIC_BASE_URL",
        "ANTHROPIC_API_KEY",
    ):
        monkeypatch.delenv(var, raising=False)
    return monkeypatch


def test_caim_model_with_a_provider_prefix_builds_chat_anthropic_through_init_chat_model(clean_env):
    with SimulatedEndpoint({"respond": "Hello from Claude."}) as ep:
        clean_env.setenv("CAIM_MODEL", "anthropic:claude-x")
        clean_env.setenv("CAIM_REQUEST_TIMEOUT", "7")
        clean_env.setenv("CAIM_MAX_TOKENS", "300")
        clean_env.setenv("ANTHROPIC_BASE_URL", ep.anthropic_url)
        clean_env.setenv("ANTHROPIC_API_KEY", "sim")
        models = Models(Settings(_env_file=None))
        model = models.for_role("respond")
        assert isinstance(model, ChatAnthropic) and model.model == "claude-x"
        assert model.default_request_timeout == 7 and model.max_tokens == 300 and model.max_retries == 0
        assert model.temperature == 0.0
        assert models.describe() == "anthropic: claude-x (init_chat_model)" and models.speculative
        text = LLM(models).text("respond", [HumanMessage("hi")], trace=[], node="respond")
    assert text == "Hello from Claude."
    [req] = ep.requests
    assert req.wire == "anthropic" and req.payload["model"] == "claude-x" and req.payload["max_tokens"] == 300


def test_role_models_take_provider_prefixes_and_plain_names_keep_the_provider(clean_env):
    clean_env.setenv("ANTHROPIC_API_KEY", "sim")
    settings = Settings(
        _env_file=None,
        provider="openai",
        base_url="http://127.0.0.1:9/v1",
        api_key="x",
        model="qwen2.5:7b",
        role_models={"respond": "anthropic:claude-y", "judge": "openai:gpt-4o"},
    )
    models = Models(settings)
    assert isinstance(models.for_role("respond"), ChatAnthropic)
    plan = models.for_role("plan")
    assert type(plan) is ChatOpenAI and plan.model_name == "qwen2.5:7b"  # a colon without a provider prefix
    judge = models.for_role("judge")
    assert type(judge) is ChatOpenAI and judge.model_name == "gpt-4o"
    assert str(judge.openai_api_base) == "http://127.0.0.1:9/v1" and judge.max_retries == 0
    assert models.lengths_for("judge") is False and models.lengths_for("respond") is True


def test_a_missing_provider_package_is_a_one_line_config_error(clean_env):
    clean_env.setitem(sys.modules, "langchain_ollama", None)  # as if it were not installed
    models = Models(Settings(_env_file=None, model="ollama:llama3"))
    with pytest.raises(ConfigError) as err:
        models.for_role("respond")
    assert (
        str(err.value) == "the model 'ollama:llama3' needs the langchain-ollama package: pip install langchain-ollama"
    )


def test_answers_streamed_as_content_blocks_read_as_text():
    model = ToolModel()
    llm = LLM(Models(Settings(_env_file=None), overrides=model))
    pieces: list[str] = []
    text = llm.stream_text("respond", [HumanMessage("hi")], trace=[], node="r", on_piece=pieces.append)
    assert text == "Reply to: hi" and pieces == ["Reply", " to:", " hi"]
    draft = llm.draft("respond", [HumanMessage("hi")])
    assert draft.take(lambda _p: None, trace=[], node="r") == "Reply to: hi"
    assert all("tools" not in c and "response_format" not in c for c in model.calls)
