"""The structured-call helper: strict schemas with closed sets, retry then fallback, endpoint errors."""

from __future__ import annotations

import pytest

from caim.agent import EndpointError, Settings
from caim.core.llm import LLM, strict_schema
from caim.core.models import Models
from caim.core.scripted import ScriptedChatModel
from caim.prompts import controller, relevance, tags


def test_closed_sets_are_enumerated_in_strict_schemas():
    s = strict_schema(tags.schema(("food", "music", "travel")))
    assert s["properties"]["tags"]["items"]["enum"] == ["food", "music", "travel"]
    assert s["additionalProperties"] is False and s["required"] == ["tags"]
    assert strict_schema(controller.Choice)["properties"]["answer"]["enum"] == ["A", "B"]
    assert strict_schema(relevance.schema(3, 8))["properties"]["relevant"]["items"]["enum"] == [1, 2, 3]


def test_out_of_set_answer_is_retried_then_falls_back():
    model = ScriptedChatModel(role="tags", script={"tags": {"cycle": [{"tags": ["zebra"]}, {"tags": ["music"]}]}})
    llm = LLM(Models(Settings(_env_file=None), overrides=model))
    trace: list[dict] = []
    answer = llm.structured("tags", tags.schema(("food", "music")), [], trace=trace, node="select_tags")
    assert answer is not None and answer.tags == ["music"] and trace[0]["attempts"] == 2
    model.script["tags"] = {"tags": ["zebra"]}
    answer = llm.structured("tags", tags.schema(("food", "music")), [], trace=trace, node="select_tags")
    assert answer is None and trace[-1]["fallback"] and "zebra" in trace[-1]["error"]


def test_unreachable_endpoint_falls_back_for_decisions_and_is_a_one_line_error_for_answers():
    settings = Settings(
        provider="openai", base_url="http://127.0.0.1:9/v1", api_key="x", request_timeout=3, _env_file=None
    )
    llm = LLM(Models(settings), endpoint_retries=1, backoff=0.01)
    trace: list = []
    messages = controller.messages("needs_memory", "hi", "")
    assert llm.structured("controller", controller.Choice, messages, trace=trace, node="controller") is None
    assert trace[0]["fallback"] and "cannot reach the model endpoint" in trace[0]["error"]
    assert llm.text("summarize", messages, trace=trace, node="x", fallback="") == ""
    with pytest.raises(EndpointError, match=r"cannot reach the model endpoint http://127\.0\.0\.1:9/v1"):
        llm.text("respond", messages, trace=trace, node="respond")


def test_provider_choice(monkeypatch):
    for v in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CAIM_PROVIDER", "CAIM_BASE_URL", "CAIM_API_KEY"):
        monkeypatch.delenv(v, raising=False)
    assert Settings(_env_file=None).resolved_provider() == "local"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert Settings(_env_file=None).resolved_provider() == "openai"
    assert Settings(provider="local", _env_file=None).resolved_provider() == "local"


def test_answer_cut_at_max_tokens_counts_as_malformed(monkeypatch):
    import openai

    model = ScriptedChatModel(role="controller", script={"controller": {"answer": "A"}})

    class Completion:
        usage = None

    def cut(*a, **k):
        raise openai.LengthFinishReasonError(completion=Completion())

    monkeypatch.setattr(ScriptedChatModel, "_generate", cut)
    llm = LLM(Models(Settings(_env_file=None), overrides=model))
    trace: list[dict] = []
    answer = llm.structured("controller", controller.Choice, [], trace=trace, node="controller")
    assert answer is None and trace[0]["fallback"] and "LengthFinishReasonError" in trace[0]["error"]


def test_length_limits_are_dropped_for_hosted_endpoints_and_enforced_in_code():
    from caim.core.llm import trim
    from caim.prompts import key_events

    schema = key_events.schema([1, 2])
    hosted = strict_schema(schema, lengths=False)
    assert "maxItems" not in str(hosted) and hosted["properties"]["events"]["items"]["$ref"]
    padded = {"events": [{"turn": 1, "event": f"e{i}"} for i in range(20)]}
    assert len(trim(padded, schema.model_json_schema())["events"]) == key_events.MAX_EVENTS
    assert Models(Settings(provider="openai", api_key="x", _env_file=None)).schema_lengths is False
    assert Models(Settings(provider="local", _env_file=None)).schema_lengths is True


def test_padded_list_from_the_model_is_trimmed_not_rejected():
    model = ScriptedChatModel(role="tags", script={"tags": {"tags": ["food", "music", "food", "music", "food"]}})
    llm = LLM(Models(Settings(_env_file=None), overrides=model))
    answer = llm.structured("tags", tags.schema(("food", "music")), [], trace=[], node="select_tags")
    assert answer is not None and len(answer.tags) == 3


def test_openai_compatible_models_are_bound_to_the_same_response_format_as_before():
    from langchain_openai import ChatOpenAI

    from caim.core.llm import response_format, structured_call

    schema = tags.schema(("food", "music"))
    model = ChatOpenAI(model="m", base_url="http://127.0.0.1:9/v1", api_key="x")
    for lengths in (True, False):
        call = structured_call(model, schema, lengths)
        assert call.runnable.kwargs == {"response_format": response_format(schema, lengths)} and call.extra is None
    scripted = ScriptedChatModel(role="tags")
    assert structured_call(scripted, schema).runnable.kwargs == {"response_format": response_format(schema)}


def test_endpoint_errors_stay_one_line_and_name_what_to_check():
    import httpx
    import openai

    from caim.core.llm import _endpoint_error

    models = Models(Settings(provider="openai", base_url="http://127.0.0.1:9/v1", api_key="x", _env_file=None))
    request = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")

    def status(code: int, cls: type = openai.APIStatusError) -> Exception:
        return cls("x", response=httpx.Response(code, request=request), body=None)

    said = {
        401: "rejected the API key (http://127.0.0.1:9/v1): check OPENAI_API_KEY / CAIM_API_KEY",
        403: "refused the request (HTTP 403)",
        404: "model not found at http://127.0.0.1:9/v1: check CAIM_MODEL",
        429: "rate limiting requests (HTTP 429)",
        502: "failed (HTTP 502); try again later",
    }
    for code, words in said.items():
        message = str(_endpoint_error(status(code), models))
        assert words in message and "\n" not in message
    assert "did not answer within" in str(_endpoint_error(openai.APITimeoutError(request=request), models))
    assert "cannot reach the model endpoint" in str(_endpoint_error(openai.APIConnectionError(request=request), models))
