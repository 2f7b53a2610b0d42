"""Every LLM call goes through here: structured output, retry, trace.

``structured`` asks for an answer shaped by a pydantic model (closed sets are enumerated in the
model, so they are enumerated in the schema sent), trims it to the schema's limits, validates it
with the same model, retries on malformed output and otherwise returns ``None`` - the caller's code
fallback takes over. Each call appends an ``LLMCall`` entry to the trace: role, tokens,
milliseconds, and whether it fell back. An unreachable endpoint raises a one-line
``EndpointError`` instead.

How the schema reaches the model depends on the chat model (``structured_call``):

* OpenAI-compatible clients (``ChatOpenAI``, ``AzureChatOpenAI`` - the bundled llama.cpp server is
  reached through ``ChatOpenAI`` and turns the schema into a grammar) and the scripted test model get
  a json_schema ``response_format``; the answer is the message's JSON text.
* Any other chat model (``ChatAnthropic``, ``ChatOllama``, ``ChatGoogleGenerativeAI``,
  ``ChatBedrock``, ...) gets the schema as its one tool through ``bind_tools``, with ``tool_choice``
  naming that tool (bound without it where an integration refuses a forced choice); the answer is
  that tool call's arguments. The schema is sent with its ``$ref``s inlined, the form LangChain
  itself sends for pydantic tools, which every integration converts.
* A chat model without tool calling is asked for the JSON in a last message and its text is read.

Why ``bind_tools`` rather than ``with_structured_output(schema, method=..., include_raw=True)``:
the latter's default method differs by provider (tool calling for Anthropic and Bedrock, a
json_schema format for Ollama and Google) and so do the method names each accepts, so no single
``method`` argument works across langchain-core 1.x integrations; and it parses the answer itself
before caim's trim (a padded list would be refused instead of cut). ``bind_tools`` with a forced
choice is part of ``BaseChatModel``'s interface, yields the raw ``AIMessage`` (its token usage and its
``tool_calls`` / ``invalid_tool_calls`` are standard across providers), and leaves trim, validation,
retry and fallback to the one code path here.

Free text (``text``, ``stream_text``, ``draft``) binds nothing: any ``BaseChatModel`` answers it, its
content read as a string or as a list of text blocks.
"""

from __future__ import annotations

import copy
import json
import re
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx
import openai
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage
from langchain_core.runnables import Runnable
from langchain_core.utils.json_schema import dereference_refs
from langchain_openai import AzureChatOpenAI, ChatOpenAI
from pydantic import BaseModel, ValidationError
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt, wait_exponential

from caim.core.errors import EndpointError
from caim.core.model_roles import code_roles, role_uses
from caim.core.models import Models
from caim.core.scripted import ScriptedChatModel
from caim.core.trace import CodeRoleStep, LLMCall, step
from caim.core.types import Role

try:
    import httpx2  # the HTTP client of openai and anthropic 2.x; httpx for other integrations
except ImportError:
    httpx2 = None  # type: ignore[assignment]

T = TypeVar("T", bound=BaseModel)
T2 = TypeVar("T2")

_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.MULTILINE)


_LENGTH_KEYS = ("minItems", "maxItems", "minLength", "maxLength")


def strict_schema(model: type[BaseModel], lengths: bool = True) -> dict:
    """The model's JSON schema in the strict form OpenAI-style endpoints expect.

    ``lengths=False`` drops list/string length limits, which some hosted endpoints refuse in strict
    mode; answers are then trimmed to the limits in code (``trim``) before validation."""
    schema = copy.deepcopy(model.model_json_schema())

    def fix(node: Any) -> None:
        if isinstance(node, dict):
            node.pop("title", None)
            node.pop("default", None)
            if not lengths:
                for key in _LENGTH_KEYS:
                    node.pop(key, None)
            if node.get("type") == "object" and "properties" in node:
                node["additionalProperties"] = False
                node["required"] = list(node["properties"])
            for v in node.values():
                fix(v)
        elif isinstance(node, list):
            for v in node:
                fix(v)

    fix(schema)
    return schema


def trim(data: Any, schema: dict, root: dict | None = None) -> Any:
    """Cut lists and strings past the schema's ``maxItems`` / ``maxLength`` (small models pad lists and
    loop inside strings; hosted endpoints get no limits in the schema)."""
    root = root or schema
    ref = schema.get("$ref")
    if ref and ref.startswith("#/$defs/"):
        schema = root.get("$defs", {}).get(ref.split("/")[-1], {})
    if isinstance(data, list):
        if isinstance(schema.get("maxItems"), int):
            data = data[: schema["maxItems"]]
        items = schema.get("items", {})
        return [trim(x, items, root) for x in data]
    if isinstance(data, dict):
        props = schema.get("properties", {})
        return {k: trim(v, props.get(k, {}), root) for k, v in data.items()}
    if isinstance(data, str) and isinstance(schema.get("maxLength"), int):
        return data[: schema["maxLength"]]
    return data


def response_format(model: type[BaseModel], lengths: bool = True) -> dict:
    """An OpenAI ``response_format`` that asks for ``model``'s strict JSON schema (``strict_schema``)."""
    return {
        "type": "json_schema",
        "json_schema": {"name": model.__name__, "schema": strict_schema(model, lengths), "strict": True},
    }


def _first_error(exc: ValidationError) -> str:
    """The first validation error in one line: where, what, and the offending value."""
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err.get("loc", ())) or "answer"
    return f"{where}: {err.get('msg', 'invalid')} (got {json.dumps(err.get('input'), default=str)[:80]})"


def _usage(msg: Any) -> tuple[int, int]:
    u = getattr(msg, "usage_metadata", None) or {}
    return int(u.get("input_tokens", 0) or 0), int(u.get("output_tokens", 0) or 0)


def _status(exc: BaseException) -> int | None:
    """The HTTP status an exception carries: ``status_code``, ``response.status_code``, ``code`` (an
    HTTP status: urllib, google-api-core) or botocore's ``response["ResponseMetadata"]``."""
    response = getattr(exc, "response", None)
    for found in (getattr(exc, "status_code", None), getattr(response, "status_code", None)):
        if isinstance(found, int):
            return found
    if isinstance(response, dict):
        found = response.get("ResponseMetadata", {}).get("HTTPStatusCode")
        if isinstance(found, int):
            return found
    code = getattr(exc, "code", None)
    return code if isinstance(code, int) and not isinstance(code, bool) and 400 <= code < 600 else None


#: Faults no retry can mend: a wrong key, a wrong model name, a refused permission.
_FATAL: tuple[type[BaseException], ...] = (
    openai.AuthenticationError,
    openai.NotFoundError,
    openai.PermissionDeniedError,
)
#: Faults that may pass: a timeout, a reset or refused connection, a cut stream, HTTP 429 and 5xx.
_TRANSIENT: tuple[type[BaseException], ...] = (
    openai.APITimeoutError,
    openai.APIConnectionError,
    openai.RateLimitError,
    openai.InternalServerError,
    httpx.TransportError,  # timeouts, refused or reset connections, cut streams (of httpx2 too, below)
    TimeoutError,
    ConnectionError,
)
_TIMEOUTS: tuple[type[BaseException], ...] = (openai.APITimeoutError, httpx.TimeoutException, TimeoutError)
if httpx2 is not None:
    _TRANSIENT += (httpx2.TransportError,)
    _TIMEOUTS += (httpx2.TimeoutException,)
#: HTTP statuses of faults no retry can mend, and of faults that may pass (with every 5xx).
_FATAL_STATUS = frozenset({401, 403, 404})
_TRANSIENT_STATUS = frozenset({408, 429})


def _faults() -> tuple[tuple[type[BaseException], ...], ...]:
    """The fatal, transient and timeout fault classes, with anthropic's where that SDK is loaded (its
    exceptions come only from a client that loaded it; importing it for the check cost every process
    about 1.6 CPU seconds)."""
    sdk = sys.modules.get("anthropic")
    if sdk is None:
        return _FATAL, _TRANSIENT, _TIMEOUTS
    return (
        (*_FATAL, sdk.AuthenticationError, sdk.NotFoundError, sdk.PermissionDeniedError),
        (*_TRANSIENT, sdk.APIConnectionError, sdk.RateLimitError, sdk.InternalServerError),
        (*_TIMEOUTS, sdk.APITimeoutError),
    )


def fault_kind(exc: BaseException) -> str | None:
    """``"fatal"``, ``"transient"`` or ``None`` (not an endpoint fault) for an exception from any chat
    model: openai's and anthropic's classes, else the HTTP status it carries, else httpx's and the
    built-in timeout and connection errors."""
    fatal, transient, _ = _faults()
    if isinstance(exc, fatal):
        return "fatal"
    if isinstance(exc, transient):
        return "transient"
    status = _status(exc)
    if status in _FATAL_STATUS:
        return "fatal"
    if status is not None and (status in _TRANSIENT_STATUS or status >= 500):
        return "transient"
    return None


def openai_compatible(model: Any) -> bool:
    """Whether structured output goes as a json_schema ``response_format`` (see the module docstring)."""
    return isinstance(model, ChatOpenAI | AzureChatOpenAI | ScriptedChatModel)


def _where(models: Models, model: Any) -> str:
    server = models.local_server
    if server is not None and (model is None or openai_compatible(model)):
        return server.base_url
    if model is None or openai_compatible(model):
        return models.settings.base_url or "the configured endpoint"
    name = next((v for k in ("model", "model_name", "model_id") if isinstance(v := getattr(model, k, None), str)), "")
    return f"{type(model).__name__}({name})" if name else type(model).__name__


def _endpoint_error(exc: BaseException, models: Models, model: Any = None) -> EndpointError:
    """One line that says what failed and what to check; ``model`` is the chat model that was called."""
    where = _where(models, model)
    ours = model is None or openai_compatible(model)
    status = _status(exc)
    if isinstance(exc, _faults()[2]) or status == 408:
        return EndpointError(
            f"the model at {where} did not answer within {models.settings.request_timeout:g}s; "
            "raise CAIM_REQUEST_TIMEOUT or use a faster model"
        )
    if status == 401:
        key = "OPENAI_API_KEY / CAIM_API_KEY" if ours else "the API key its provider reads (e.g. ANTHROPIC_API_KEY)"
        return EndpointError(f"the model endpoint rejected the API key ({where}): check {key}")
    if status == 403:
        return EndpointError(f"the model endpoint {where} refused the request (HTTP 403): check the key's permissions")
    if status == 404:
        return EndpointError(f"model not found at {where}: check CAIM_MODEL")
    if status == 429:
        return EndpointError(f"the model endpoint {where} is rate limiting requests (HTTP 429); try again later")
    if status is not None:
        return EndpointError(f"the model endpoint {where} failed (HTTP {status}); try again later")
    check = "CAIM_BASE_URL" if ours else "its base URL"
    return EndpointError(
        f"cannot reach the model endpoint {where}: {type(exc).__name__}; check {check} and your network"
    )


def message_text(msg: Any) -> str:
    """A message's text, whether its content is a string or a list of content blocks (Anthropic,
    Google): the text blocks joined."""
    content = getattr(msg, "content", "")
    if isinstance(content, str):
        return content
    parts = []
    for block in content or ():
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text") or ""))
    return "".join(parts)


class Malformed(ValueError):
    """The answer does not hold a value to validate (no JSON, no tool call, unreadable arguments)."""


def _json(text: str) -> Any:
    try:
        return json.loads(_FENCE.sub("", text).strip())
    except ValueError as exc:
        raise Malformed(f"not JSON ({str(exc)[:120]})") from None


def tool_spec(schema: type[BaseModel], lengths: bool = True) -> dict:
    """The schema as one tool in OpenAI's tool format (every integration's ``bind_tools`` converts it):
    the strict schema with its ``$ref``s inlined; the model's docstring, if any, as the description."""
    params = dereference_refs(strict_schema(schema, lengths))
    params.pop("$defs", None)
    description = params.pop("description", None) or f"Give your answer as {schema.__name__}."
    return {"type": "function", "function": {"name": schema.__name__, "description": description, "parameters": params}}


@dataclass(frozen=True)
class StructuredCall:
    """How one chat model is asked for one schema: the runnable to invoke, a message to add after the
    prompt (models without tool calling only), and how the answer becomes data to validate."""

    runnable: Runnable
    read: Callable[[Any], Any]
    extra: BaseMessage | None = None

    def messages(self, messages: list[BaseMessage]) -> list[BaseMessage]:
        """The prompt's messages, followed by ``extra`` when there is one."""
        return [*messages, self.extra] if self.extra is not None else messages


def _read_tool_call(name: str) -> Callable[[Any], Any]:
    def read(msg: Any) -> Any:
        calls = getattr(msg, "tool_calls", None) or []
        for call in calls:
            if call.get("name") == name:
                return call.get("args")
        if calls:
            raise Malformed(f"called tool {calls[0].get('name')!r}, not {name!r}")
        bad = getattr(msg, "invalid_tool_calls", None) or []
        if bad:
            raise Malformed(f"tool call arguments are not JSON ({str(bad[0].get('args'))[:120]})")
        text = message_text(msg).strip()
        if not text:
            raise Malformed("no tool call and no text")
        return _json(text)  # a model that answered in text where the tool was not forced

    return read


#: Tag of caim's own decision calls: LangGraph leaves them out of ``stream_mode="messages"``, so a caller
#: streaming a graph sees the answer's tokens, not the plan's or the filter's JSON.
NOSTREAM = "nostream"


def structured_call(model: BaseChatModel, schema: type[BaseModel], lengths: bool = True) -> StructuredCall:
    """The provider-aware way to ask ``model`` for ``schema`` (see the module docstring); tagged
    ``NOSTREAM``."""
    call = _structured_call(model, schema, lengths)
    return StructuredCall(call.runnable.with_config(tags=[NOSTREAM]), call.read, call.extra)


def _structured_call(model: BaseChatModel, schema: type[BaseModel], lengths: bool) -> StructuredCall:
    bound: Runnable
    if openai_compatible(model):
        bound = model.bind(response_format=response_format(schema, lengths))
        return StructuredCall(bound, lambda msg: _json(message_text(msg)))
    tool = tool_spec(schema, lengths)
    try:
        try:
            bound = model.bind_tools([tool], tool_choice=schema.__name__)
        except (ValueError, TypeError):  # the integration cannot force a choice for this model
            bound = model.bind_tools([tool])
    except NotImplementedError:  # no tool calling: the schema goes in a last message
        ask = HumanMessage(
            "Answer with only a JSON object that matches this JSON schema, no other text:\n"
            + json.dumps(tool["function"]["parameters"], ensure_ascii=False)
        )
        return StructuredCall(model, lambda msg: _json(message_text(msg)), ask)
    return StructuredCall(bound, _read_tool_call(schema.__name__))


def _malformed_fault(exc: BaseException) -> bool:
    """An error that means the answer (not the endpoint) was at fault: a 400 on a schema the endpoint
    refuses, an answer cut at max_tokens or stopped by a content filter."""
    return isinstance(exc, openai.LengthFinishReasonError | openai.ContentFilterFinishReasonError) or (
        _status(exc) is not None and fault_kind(exc) is None
    )


class LLM:
    """Role-aware LLM caller that records what it did in a trace list.

    ``max_retries``: further attempts after a malformed answer. ``endpoint_retries`` /
    ``backoff``: further attempts after a transient endpoint fault, waiting ``backoff``, then twice
    as long, ... Structured and summary calls that still fail return their fallback (``None`` / "")
    and say so in the trace - the caller's code takes over; the answer itself raises a one-line
    ``EndpointError`` (the user's turn is already kept in the checkpoint)."""

    def __init__(
        self,
        models: Models,
        max_retries: int = 1,
        *,
        endpoint_retries: int = 2,
        backoff: float = 0.5,
        code_roles: frozenset[Role] = frozenset(),
    ):
        self.models = models
        self.code_roles = code_roles  # roles that skip the model: their callers' code decides
        self.max_retries = max_retries
        self.endpoint_retries = endpoint_retries
        self.backoff = backoff

    @classmethod
    def of(cls, models: Models) -> LLM:
        """The client the models' settings describe: retries, backoff, and the roles that skip the
        model (``caim.core.model_roles``)."""
        s = models.settings
        uses = role_uses(models.model_id, s.data_dir, s.use_model_for)
        return cls(
            models,
            s.max_retries,
            endpoint_retries=s.endpoint_retries,
            backoff=s.retry_backoff,
            code_roles=code_roles(uses),
        )

    def _call(self, fn: Callable[[], T2], errors: list[str], model: Any = None) -> T2:
        """``fn()`` with bounded retries on transient faults; fatal ones raise ``EndpointError`` at once.
        ``model``: the chat model ``fn`` calls, named in the error. Each transient fault is added to
        ``errors``; the waits are ``backoff``, then twice as long, ..."""

        def record(state: RetryCallState) -> None:
            exc = state.outcome.exception() if state.outcome is not None else None
            errors.append(f"{type(exc).__name__}: {str(exc)[:120]}")

        retrying = Retrying(
            stop=stop_after_attempt(self.endpoint_retries + 1),
            wait=wait_exponential(multiplier=self.backoff, exp_base=2),
            retry=retry_if_exception(lambda exc: fault_kind(exc) == "transient"),
            after=record,
            sleep=lambda seconds: time.sleep(seconds),
            reraise=True,
        )
        try:
            return retrying(fn)
        except Exception as exc:
            if fault_kind(exc) is None:
                raise
            raise _endpoint_error(exc, self.models, model) from None

    def _skipped(self, role: Role, trace: list, node: str) -> bool:
        if role not in self.code_roles:
            return False
        trace.append(step(node, CodeRoleStep(role=role, use="code")))
        return True

    def structured(
        self, role: Role, schema: type[T], messages: list[BaseMessage], *, trace: list, node: str
    ) -> T | None:
        """The validated answer, or ``None`` after the retries (recorded in the trace as a fallback),
        or at once for a role in ``code_roles`` (recorded as a code step)."""
        if self._skipped(role, trace, node):
            return None
        chat = self.models.for_role(role)
        call = structured_call(chat, schema, self.models.lengths_for(role))
        prompt = call.messages(messages)
        full = schema.model_json_schema()
        errors: list[str] = []
        start = time.perf_counter()
        tok_in = tok_out = 0
        attempts = 0
        for _ in range(self.max_retries + 1):
            attempts += 1
            try:
                msg = self._call(lambda: call.runnable.invoke(prompt), errors, chat)
            except EndpointError as exc:
                errors.append(str(exc))
                break  # the endpoint is down: the code fallback takes over
            except Exception as exc:
                if not _malformed_fault(exc):
                    raise
                errors.append(f"{type(exc).__name__}: {str(exc)[:160]}")
                continue
            a, b = _usage(msg)
            tok_in, tok_out = tok_in + a, tok_out + b
            try:
                value = schema.model_validate(trim(call.read(msg), full))
            except ValidationError as exc:
                errors.append(f"malformed output: {_first_error(exc)}")
                continue
            except Malformed as exc:
                errors.append(f"malformed output: {exc}")
                continue
            trace.append(_entry(node, role, start, tok_in, tok_out, attempts, None))
            return value
        trace.append(_entry(node, role, start, tok_in, tok_out, attempts, errors[-1] if errors else "failed"))
        return None

    def text(
        self, role: Role, messages: list[BaseMessage], *, trace: list, node: str, fallback: str | None = None
    ) -> str:
        """Free text (not streamed to callers: tagged ``NOSTREAM``). After the retries: ``fallback`` when
        one is given (recorded), else ``EndpointError``. A role in ``code_roles`` with a ``fallback``
        returns it at once."""
        if fallback is not None and self._skipped(role, trace, node):
            return fallback
        model = self.models.for_role(role)
        quiet = model.with_config(tags=[NOSTREAM])
        start = time.perf_counter()
        errors: list[str] = []
        try:
            msg = self._call(lambda: quiet.invoke(messages), errors, model)
        except EndpointError as exc:
            if fallback is None:
                raise
            trace.append(_entry(node, role, start, 0, 0, len(errors), str(exc)))
            return fallback
        a, b = _usage(msg)
        trace.append(_entry(node, role, start, a, b, len(errors) + 1, None))
        return message_text(msg).strip()

    def stream_text(
        self,
        role: Role,
        messages: list[BaseMessage],
        *,
        trace: list,
        node: str,
        on_piece: Callable[[str], bool | None],
    ) -> str:
        """Free text, streamed: ``on_piece`` gets each piece as it arrives (returning True ends the
        stream there: the rest is not read); returns the text read. A fault before the first piece is
        retried; a stream cut after it raises ``EndpointError`` (pieces already sent cannot be taken back)."""
        model = self.models.for_role(role)
        start = time.perf_counter()
        errors: list[str] = []

        first: list[float] = []

        def run() -> Any:
            whole: Any = None
            sent = False
            try:
                for chunk in model.stream(messages):
                    whole = chunk if whole is None else whole + chunk
                    piece = message_text(chunk)
                    if piece:
                        if not sent:
                            first.append(round((time.perf_counter() - start) * 1000, 1))
                        sent = True
                        if on_piece(piece):
                            break
            except Exception as exc:
                if sent and fault_kind(exc) == "transient":
                    raise EndpointError(
                        f"the model's answer was cut off ({type(exc).__name__}); please ask again"
                    ) from None
                raise
            return whole

        whole = self._call(run, errors, model)
        a, b = _usage(whole)
        entry = _entry(node, role, start, a, b, len(errors) + 1, None)
        if first:
            entry["first_ms"] = first[-1]  # time to the first piece of the answer
        trace.append(entry)
        return message_text(whole).strip() if whole is not None else ""

    def draft(self, role: Role, messages: list[BaseMessage]) -> AnswerDraft:
        """Start a streamed answer now, in the background; ``AnswerDraft.take`` streams it, ``cancel`` drops it."""
        return AnswerDraft(self.models.for_role(role), role, messages)


def _estimate(text: str) -> int:
    return len(text) // 4 + 1


class AnswerDraft:
    """An answer started before the decisions that shape its prompt are in (a speculative answer).

    The stream runs in a background thread and its pieces are buffered. ``take`` replays them and
    follows the rest (the caller checked that the draft's prompt is the one it would send);
    ``cancel`` stops it and records what was spent. A draft that failed before its first piece
    gives ``None`` from ``take``, so the caller asks afresh (with the usual retries)."""

    def __init__(self, model: Any, role: Role, messages: list[BaseMessage]):
        self.messages = messages
        self.role = role
        self.created = time.monotonic()
        self._start = time.perf_counter()
        self._cond = threading.Condition()
        self._pieces: list[str] = []
        self._whole: Any = None
        self._first_ms: float | None = None
        self._error: Exception | None = None
        self._done = False
        self._cancelled = False
        threading.Thread(target=self._run, args=(model,), name="caim-draft", daemon=True).start()

    def _run(self, model: Any) -> None:
        try:
            stream = model.stream(self.messages)
            try:
                for chunk in stream:
                    with self._cond:
                        if self._cancelled:
                            break
                        self._whole = chunk if self._whole is None else self._whole + chunk
                        piece = message_text(chunk)
                        if piece:
                            if self._first_ms is None:
                                self._first_ms = round((time.perf_counter() - self._start) * 1000, 1)
                            self._pieces.append(piece)
                            self._cond.notify_all()
            finally:
                stream.close()
        except Exception as exc:  # recorded; ``take`` decides what it means
            self._error = exc
        finally:
            with self._cond:
                self._done = True
                self._cond.notify_all()

    def take(self, on_piece: Callable[[str], bool | None], *, trace: list, node: str) -> str | None:
        """Stream the draft to ``on_piece`` (buffered pieces first; what it returns is not read: the
        draft runs on) and return the whole text; ``None`` when it failed before its first piece. A
        stream cut after it raises ``EndpointError``."""
        sent = 0
        while True:
            with self._cond:
                while sent == len(self._pieces) and not self._done:
                    self._cond.wait()
                new, done = self._pieces[sent:], self._done
            for piece in new:
                on_piece(piece)
            sent += len(new)
            if done and sent == len(self._pieces):
                break
        if self._error is not None:
            if sent == 0:
                return None
            raise EndpointError(f"the model's answer was cut off ({type(self._error).__name__}); please ask again")
        a, b = _usage(self._whole)
        entry = _entry(node, self.role, self._start, a, b, 1, None)
        entry["draft"] = True
        if self._first_ms is not None:
            entry["first_ms"] = self._first_ms
        trace.append(entry)
        return message_text(self._whole).strip() if self._whole is not None else ""

    def cancel(self, *, trace: list | None = None, node: str = "") -> None:
        """Stop the draft; with ``trace``, record the call as discarded (tokens estimated if cut)."""
        with self._cond:
            self._cancelled = True
            done, whole, text = self._done, self._whole, "".join(self._pieces)
        if trace is None:
            return
        a, b = _usage(whole) if done else (0, 0)
        if not a:
            a = sum(_estimate(str(m.content)) for m in self.messages)
            b = _estimate(text) if text else 0
        entry = _entry(node, self.role, self._start, a, b, 1, None)
        entry["draft"] = True
        entry["discarded"] = True
        trace.append(entry)


class DraftBook:
    """Drafts waiting for their run's decisions, by id (the id travels in the graph state; a draft
    is process-local, so a run resumed elsewhere finds none and answers afresh). Drafts nobody
    took within ``ttl`` seconds are cancelled."""

    def __init__(self, ttl: float = 120.0):
        self.ttl = ttl
        self._lock = threading.Lock()
        self._drafts: dict[str, AnswerDraft] = {}

    def put(self, draft: AnswerDraft) -> str:
        """Keep ``draft`` and return its new id; drafts older than ``ttl`` are cancelled and dropped."""
        key = uuid.uuid4().hex
        now = time.monotonic()
        with self._lock:
            stale = [k for k, d in self._drafts.items() if now - d.created > self.ttl]
            for k in stale:
                self._drafts.pop(k).cancel()
            self._drafts[key] = draft
        return key

    def pop(self, key: str | None) -> AnswerDraft | None:
        """Take the draft kept under ``key`` out of the book; ``None`` when there is none (or no key)."""
        if not key:
            return None
        with self._lock:
            return self._drafts.pop(key, None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._drafts)


def _entry(node: str, role: Role, start: float, tin: int, tout: int, attempts: int, error: str | None) -> LLMCall:
    elapsed = time.perf_counter() - start
    e: LLMCall = {
        "node": node,
        "kind": "llm",
        "role": role,
        "started": round(time.time() - elapsed, 4),
        "ms": round(elapsed * 1000, 1),
        "input_tokens": tin,
        "output_tokens": tout,
        "attempts": attempts,
    }
    if error:
        e["fallback"] = True
        e["error"] = error
    return e
