"""Every LLM call goes through here: structured output, retry, trace.

``structured`` sends a json_schema response format built from a pydantic model (closed sets are
enumerated in the model), validates the answer, retries on malformed output and otherwise returns
``None`` - the caller's code fallback takes over. Each call appends an ``LLMCall`` entry to the
trace: role, tokens, milliseconds, and whether it fell back. An unreachable endpoint raises a
one-line ``EndpointError`` instead.
"""

from __future__ import annotations

import copy
import json
import re
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

import openai
from langchain_core.messages import BaseMessage
from pydantic import BaseModel, ValidationError

from caim.core.errors import EndpointError
from caim.core.models import Models
from caim.core.trace import LLMCall
from caim.core.types import Role

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


def _endpoint_error(exc: Exception, models: Models) -> EndpointError:
    server = models.local_server
    where = server.base_url if server is not None else (models.settings.base_url or "the configured endpoint")
    if isinstance(exc, openai.APITimeoutError):
        return EndpointError(
            f"the model at {where} did not answer within {models.settings.request_timeout:g}s; "
            "raise CAIM_REQUEST_TIMEOUT or use a faster model"
        )
    if isinstance(exc, openai.AuthenticationError):
        return EndpointError(f"the model endpoint rejected the API key ({where}): check OPENAI_API_KEY / CAIM_API_KEY")
    if isinstance(exc, openai.NotFoundError):
        return EndpointError(f"model not found at {where}: check CAIM_MODEL")
    if isinstance(exc, openai.RateLimitError):
        return EndpointError(f"the model endpoint {where} is rate limiting requests (HTTP 429); try again later")
    if isinstance(exc, openai.APIStatusError):
        return EndpointError(f"the model endpoint {where} failed (HTTP {exc.status_code}); try again later")
    return EndpointError(
        f"cannot reach the model endpoint {where}: {type(exc).__name__}; check CAIM_BASE_URL and your network"
    )


#: Faults no retry can mend: a wrong key, a wrong model name, a refused permission.
_FATAL = (openai.AuthenticationError, openai.NotFoundError, openai.PermissionDeniedError)
#: Faults that may pass: a timeout, a reset or refused connection, a cut stream, HTTP 429 and 5xx.
_TRANSIENT = (openai.APITimeoutError, openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError)


class LLM:
    """Role-aware LLM caller that records what it did in a trace list.

    ``max_retries``: further attempts after a malformed answer. ``endpoint_retries`` /
    ``backoff``: further attempts after a transient endpoint fault, waiting ``backoff``, then twice
    as long, ... Structured and summary calls that still fail return their fallback (``None`` / "")
    and say so in the trace - the caller's code takes over; the answer itself raises a one-line
    ``EndpointError`` (the user's turn is already kept in the checkpoint)."""

    def __init__(self, models: Models, max_retries: int = 1, *, endpoint_retries: int = 2, backoff: float = 0.5):
        self.models = models
        self.max_retries = max_retries
        self.endpoint_retries = endpoint_retries
        self.backoff = backoff

    @classmethod
    def of(cls, models: Models) -> LLM:
        """The client the models' settings describe (retries and backoff)."""
        s = models.settings
        return cls(models, s.max_retries, endpoint_retries=s.endpoint_retries, backoff=s.retry_backoff)

    def _call(self, fn: Callable[[], T2], errors: list[str]) -> T2:
        """``fn()`` with bounded retries on transient faults; fatal ones raise ``EndpointError`` at once."""
        for attempt in range(self.endpoint_retries + 1):
            try:
                return fn()
            except _FATAL as exc:
                raise _endpoint_error(exc, self.models) from None
            except _TRANSIENT as exc:
                errors.append(f"{type(exc).__name__}: {str(exc)[:120]}")
                if attempt == self.endpoint_retries:
                    raise _endpoint_error(exc, self.models) from None
                time.sleep(self.backoff * (2**attempt))
        raise AssertionError("unreachable")

    def structured(
        self, role: Role, schema: type[T], messages: list[BaseMessage], *, trace: list, node: str
    ) -> T | None:
        """The validated answer, or ``None`` after the retries (recorded in the trace as a fallback)."""
        model = self.models.for_role(role).bind(response_format=response_format(schema, self.models.schema_lengths))
        full = schema.model_json_schema()
        errors: list[str] = []
        start = time.perf_counter()
        tok_in = tok_out = 0
        attempts = 0
        for _ in range(self.max_retries + 1):
            attempts += 1
            try:
                msg = self._call(lambda: model.invoke(messages), errors)
            except EndpointError as exc:
                errors.append(str(exc))
                break  # the endpoint is down: the code fallback takes over
            except (
                openai.APIStatusError,
                openai.LengthFinishReasonError,
                openai.ContentFilterFinishReasonError,
            ) as exc:
                # a 400 on a schema the endpoint refuses, or an answer cut at max_tokens: malformed output
                errors.append(f"{type(exc).__name__}: {str(exc)[:160]}")
                continue
            a, b = _usage(msg)
            tok_in, tok_out = tok_in + a, tok_out + b
            text = _FENCE.sub("", str(msg.content)).strip()
            try:
                value = schema.model_validate(trim(json.loads(text), full))
            except ValidationError as exc:
                errors.append(f"malformed output: {_first_error(exc)}")
                continue
            except ValueError as exc:
                errors.append(f"malformed output: not JSON ({str(exc)[:120]})")
                continue
            trace.append(_entry(node, role, start, tok_in, tok_out, attempts, None))
            return value
        trace.append(_entry(node, role, start, tok_in, tok_out, attempts, errors[-1] if errors else "failed"))
        return None

    def text(
        self, role: Role, messages: list[BaseMessage], *, trace: list, node: str, fallback: str | None = None
    ) -> str:
        """Free text. After the retries: ``fallback`` when one is given (recorded), else ``EndpointError``."""
        model = self.models.for_role(role)
        start = time.perf_counter()
        errors: list[str] = []
        try:
            msg = self._call(lambda: model.invoke(messages), errors)
        except EndpointError as exc:
            if fallback is None:
                raise
            trace.append(_entry(node, role, start, 0, 0, len(errors), str(exc)))
            return fallback
        a, b = _usage(msg)
        trace.append(_entry(node, role, start, a, b, len(errors) + 1, None))
        return str(msg.content).strip()

    def stream_text(
        self, role: Role, messages: list[BaseMessage], *, trace: list, node: str, on_piece: Callable[[str], None]
    ) -> str:
        """Free text, streamed: ``on_piece`` gets each piece as it arrives; returns the whole text.
        A fault before the first piece is retried; a stream cut after it raises ``EndpointError``
        (pieces already sent cannot be taken back)."""
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
                    if chunk.content:
                        if not sent:
                            first.append(round((time.perf_counter() - start) * 1000, 1))
                        sent = True
                        on_piece(str(chunk.content))
            except _TRANSIENT as exc:
                if sent:
                    raise EndpointError(
                        f"the model's answer was cut off ({type(exc).__name__}); please ask again"
                    ) from None
                raise
            return whole

        whole = self._call(run, errors)
        a, b = _usage(whole)
        entry = _entry(node, role, start, a, b, len(errors) + 1, None)
        if first:
            entry["first_ms"] = first[-1]  # time to the first piece of the answer
        trace.append(entry)
        return str(whole.content).strip() if whole is not None else ""

    def draft(self, role: Role, messages: list[BaseMessage]) -> Draft:
        """Start a streamed answer now, in the background; ``Draft.take`` streams it, ``cancel`` drops it."""
        return Draft(self.models.for_role(role), role, messages)


def _estimate(text: str) -> int:
    return len(text) // 4 + 1


class Draft:
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
                        if chunk.content:
                            if self._first_ms is None:
                                self._first_ms = round((time.perf_counter() - self._start) * 1000, 1)
                            self._pieces.append(str(chunk.content))
                            self._cond.notify_all()
            finally:
                stream.close()
        except Exception as exc:  # recorded; ``take`` decides what it means
            self._error = exc
        finally:
            with self._cond:
                self._done = True
                self._cond.notify_all()

    def take(self, on_piece: Callable[[str], None], *, trace: list, node: str) -> str | None:
        """Stream the draft to ``on_piece`` (buffered pieces first) and return the whole text; ``None``
        when it failed before its first piece. A stream cut after it raises ``EndpointError``."""
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
        return str(self._whole.content).strip() if self._whole is not None else ""

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
        self._drafts: dict[str, Draft] = {}

    def put(self, draft: Draft) -> str:
        key = uuid.uuid4().hex
        now = time.monotonic()
        with self._lock:
            stale = [k for k, d in self._drafts.items() if now - d.created > self.ttl]
            for k in stale:
                self._drafts.pop(k).cancel()
            self._drafts[key] = draft
        return key

    def pop(self, key: str | None) -> Draft | None:
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
