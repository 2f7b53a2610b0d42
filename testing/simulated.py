"""A simulated model endpoint on 127.0.0.1: answers, latency and faults on demand.

For benchmarks and fault tests that need a real HTTP endpoint without a real model. It speaks two
wire formats: OpenAI's chat completions (``base_url``, ``/v1/chat/completions``) and Anthropic's
Messages API (``anthropic_url``, ``/v1/messages``, for ``ChatAnthropic``). Each request is answered
from a table keyed by the response schema's name (``Plan``, ``Relevant``, ``KeyEvents``,
``Thoughts``, ``MaintenancePlan``, ...: the json_schema response format's name, or the tool's name
on the Anthropic wire, answered with a ``tool_use`` block) or, for free text, ``respond`` /
``summarize``; an entry is a fixed answer or a callable of the request. Without an entry, a minimal
valid answer is generated from the JSON schema (first enum values, empty lists), so every role works
out of the box. ``Request.messages`` are in OpenAI's form on both wires (a ``system`` message first,
text contents), so a callable serves either; ``Request.payload`` is the body as sent. On the OpenAI
wire an answer may call tools instead (a ``ToolCall`` or a list of them, e.g. from a callable that
sees the request's ``tools`` in ``Request.payload``): the reply is an assistant message with
``tool_calls``, streamed as one chunk when asked.

Latency follows a simple model - a fixed cost per call, plus per input token, plus per output
token (streamed answers arrive token by token at that pace). ``faults`` may turn any request into a
timeout, a reset connection, HTTP 429 or 500, a stream cut in the middle, or a malformed answer
(``FAULTS``), or a refusal no retry mends: HTTP 401, 403 or 404 (``FATAL_FAULTS``)::

    with SimulatedEndpoint(table={"respond": "Hello!"}, latency=Latency(per_call=0.35)) as ep:
        settings = Settings(provider="openai", base_url=ep.base_url, api_key="sim")
        claude = ChatAnthropic(model="claude-sim", base_url=ep.anthropic_url, api_key="sim")
"""

from __future__ import annotations

import contextlib
import json
import socket
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAULTS = ("timeout", "reset", "429", "500", "truncate", "malformed")
FATAL_FAULTS = ("401", "403", "404")
_STATUS_FAULTS = ("401", "403", "404", "429", "500")
_ANTHROPIC_ERRORS = {
    "401": "authentication_error",
    "403": "permission_error",
    "404": "not_found_error",
    "429": "rate_limit_error",
    "500": "api_error",
}


@dataclass(frozen=True)
class Latency:
    """Seconds per call, per input token and per output token (default: a typical hosted model)."""

    per_call: float = 0.35
    per_input_token: float = 0.00005
    per_output_token: float = 0.012


@dataclass(frozen=True)
class ToolCall:
    """An answer calling a tool (OpenAI wire): the tool's name and its arguments."""

    name: str
    args: dict = field(default_factory=dict)


Answer = str | dict | list | ToolCall | Callable[["Request"], Any]


@dataclass
class Request:
    """What the endpoint saw: the role (schema name or free-text role), messages, streaming, time,
    the wire format (``openai`` or ``anthropic``) and the request body as sent."""

    role: str
    messages: list[dict]
    schema: dict | None
    stream: bool
    input_tokens: int
    at: float = field(default_factory=time.monotonic)
    fault: str | None = None
    output_tokens: int = 0
    wire: str = "openai"
    payload: dict = field(default_factory=dict)


def estimate_tokens(text: str) -> int:
    """A token count estimate for latency and usage (about four characters per token)."""
    return len(text) // 4 + 1


def _free_text_role(messages: list[dict]) -> str:
    system = " ".join(str(m.get("content", "")) for m in messages if m.get("role") == "system").lower()
    return "summarize" if system.startswith("summarise") or "summarise a conversation" in system else "respond"


def _text_of(content: Any) -> str:
    """A Messages API content (a string or a list of blocks) as text: its text blocks joined."""
    if isinstance(content, str):
        return content
    return "".join(str(b.get("text", "")) for b in content or () if isinstance(b, dict) and b.get("type") == "text")


def _anthropic_messages(payload: dict) -> list[dict]:
    """A Messages API request's system prompt and messages in OpenAI's form."""
    out = []
    system = _text_of(payload.get("system") or "")
    if system:
        out.append({"role": "system", "content": system})
    out += [{"role": m.get("role", "user"), "content": _text_of(m.get("content"))} for m in payload.get("messages", [])]
    return out


def minimal_answer(schema: dict, root: dict | None = None) -> Any:
    """The smallest answer a JSON schema accepts: first enum value, empty list, empty string, 0."""
    root = root or schema
    ref = schema.get("$ref")
    if ref:
        return minimal_answer(root.get("$defs", {}).get(ref.split("/")[-1], {}), root)
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    if "anyOf" in schema:
        return minimal_answer(schema["anyOf"][0], root)
    kind = schema.get("type")
    if kind == "object":
        return {k: minimal_answer(v, root) for k, v in schema.get("properties", {}).items()}
    if kind == "array":
        n = schema.get("minItems", 0)
        return [minimal_answer(schema.get("items", {}), root) for _ in range(n)]
    if kind == "string":
        return "x" * schema.get("minLength", 0)
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    return None


class _QuietServer(ThreadingHTTPServer):
    """A client that hangs up (a cut stream, a test's timeout) is normal here, not worth a traceback."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class SimulatedEndpoint:
    """The endpoint, serving on a free port of 127.0.0.1 until ``close`` (or the ``with`` block ends);
    every request is recorded in ``requests``."""

    def __init__(
        self,
        table: dict[str, Answer] | None = None,
        *,
        latency: Latency | None = None,
        faults: Callable[[Request], str | None] | None = None,
        stall: float = 30.0,
    ):
        """``faults(request)`` names a fault for a request (or None); ``stall``: how long a simulated
        timeout keeps the request waiting (longer than the client's timeout)."""
        self.table = dict(table or {})
        self.latency = latency or Latency(0.0, 0.0, 0.0)
        self.faults = faults
        self.stall = stall
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_args: object) -> None:  # quiet
                return

            def do_GET(self) -> None:
                body = json.dumps({"object": "list", "data": [{"id": "simulated", "object": "model"}]}).encode()
                self._send(200, body)

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                payload = json.loads(self.rfile.read(length) or b"{}")
                if self.path.split("?")[0].rstrip("/").endswith("/messages"):
                    endpoint._serve_anthropic(self, payload)
                else:
                    endpoint._serve(self, payload)

            def _send(self, status: int, body: bytes, ctype: str = "application/json") -> None:
                self.send_response(status)
                self.send_header("content-type", ctype)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self._server = _QuietServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.anthropic_url = f"http://127.0.0.1:{self.port}"  # the Anthropic client adds /v1/messages
        self._thread = threading.Thread(target=self._server.serve_forever, name="caim-simulated-endpoint", daemon=True)
        self._thread.start()

    # ---- answering -----------------------------------------------------------------------------------
    def _reply(self, req: Request) -> str | list[ToolCall]:
        """The table's answer to ``req``: text (JSON for a structured answer), or the tools it calls."""
        entry = self.table.get(req.role)
        if entry is None and req.schema is not None:
            entry = minimal_answer(req.schema)
        elif entry is None:
            entry = "OK."
        if callable(entry):
            entry = entry(req)
        if isinstance(entry, ToolCall):
            return [entry]
        if isinstance(entry, list) and entry and all(isinstance(c, ToolCall) for c in entry):
            return entry
        return entry if isinstance(entry, str) else json.dumps(entry)

    def _content(self, req: Request) -> str:
        reply = self._reply(req)
        if not isinstance(reply, str):
            raise ValueError(f"tool calls are answered on the OpenAI wire only (role {req.role!r})")
        return reply

    def _serve(self, handler: Any, payload: dict) -> None:
        messages = payload.get("messages", [])
        rf = payload.get("response_format") or {}
        schema = (rf.get("json_schema") or {}).get("schema") if rf.get("type") == "json_schema" else None
        role = (rf.get("json_schema") or {}).get("name") if schema is not None else _free_text_role(messages)
        text_in = " ".join(str(m.get("content", "")) for m in messages)
        req = Request(
            str(role), messages, schema, bool(payload.get("stream")), estimate_tokens(text_in), payload=payload
        )
        if self._failed(handler, req):
            return None
        reply = "{not json" if req.fault == "malformed" else self._reply(req)
        calls = [] if isinstance(reply, str) else _tool_calls(reply)
        content = reply if isinstance(reply, str) else ""
        out_tokens = max(1, estimate_tokens(content or json.dumps(calls)))
        req.output_tokens = out_tokens
        lat = self.latency
        time.sleep(lat.per_call + lat.per_input_token * req.input_tokens)
        usage = {
            "prompt_tokens": req.input_tokens,
            "completion_tokens": out_tokens,
            "total_tokens": req.input_tokens + out_tokens,
        }
        cid = "chatcmpl-" + uuid.uuid4().hex[:12]
        if not req.stream:
            time.sleep(lat.per_output_token * out_tokens)
            if req.fault == "truncate":
                return self._truncated(handler)
            message: dict = {"role": "assistant", "content": content}
            if calls:
                message = {"role": "assistant", "content": None, "tool_calls": calls}
            body = {
                "id": cid,
                "object": "chat.completion",
                "created": int(time.time()),
                "model": "simulated",
                "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
                "usage": usage,
            }
            return handler._send(200, json.dumps(body).encode())
        if calls:
            time.sleep(lat.per_output_token * out_tokens)
        self._stream(handler, cid, content, usage, lat.per_output_token, cut=req.fault == "truncate", calls=calls)
        return None

    def _failed(self, handler: Any, req: Request) -> bool:
        """Record the request, decide its fault, and act out a timeout, a reset or an HTTP error."""
        req.fault = self.faults(req) if self.faults else None
        with self._lock:
            self.requests.append(req)
        if req.fault == "timeout":
            time.sleep(self.stall)
            self._close(handler)
        elif req.fault == "reset":
            self._close(handler)
        elif req.fault in _STATUS_FAULTS:
            message = f"simulated HTTP {req.fault}"
            if req.wire == "anthropic":
                body = {"type": "error", "error": {"type": _ANTHROPIC_ERRORS[req.fault], "message": message}}
            else:
                body = {"error": {"message": message, "type": "simulated"}}
            handler._send(int(req.fault), json.dumps(body).encode())
        else:
            return False
        return True

    def _serve_anthropic(self, handler: Any, payload: dict) -> None:
        """A Messages API request: a ``tool_use`` block for the tool the request names (or its first
        tool), a text block otherwise; streamed as server-sent events when asked."""
        messages = _anthropic_messages(payload)
        tools = payload.get("tools") or []
        choice = payload.get("tool_choice") or {}
        tool = next((t for t in tools if t.get("name") == choice.get("name")), tools[0] if tools else None)
        schema = tool.get("input_schema") if tool else None
        role = tool["name"] if tool else _free_text_role(messages)
        text_in = " ".join(str(m.get("content", "")) for m in messages)
        req = Request(
            str(role),
            messages,
            schema,
            bool(payload.get("stream")),
            estimate_tokens(text_in),
            wire="anthropic",
            payload=payload,
        )
        if self._failed(handler, req):
            return None
        content = "{not json" if req.fault == "malformed" else self._content(req)
        if tool is not None and req.fault != "malformed":
            block: dict = {"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:12], "name": role}
            block["input"] = json.loads(content)
            stop = "tool_use"
        else:
            block, stop = {"type": "text", "text": content}, "end_turn"
        out_tokens = max(1, estimate_tokens(content))
        req.output_tokens = out_tokens
        lat = self.latency
        time.sleep(lat.per_call + lat.per_input_token * req.input_tokens)
        mid = "msg_" + uuid.uuid4().hex[:12]
        model = str(payload.get("model", "simulated"))
        if not req.stream:
            time.sleep(lat.per_output_token * out_tokens)
            if req.fault == "truncate":
                return self._truncated(handler)
            body = {
                "id": mid,
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [block],
                "stop_reason": stop,
                "stop_sequence": None,
                "usage": {"input_tokens": req.input_tokens, "output_tokens": out_tokens},
            }
            return handler._send(200, json.dumps(body).encode())
        send = self._start_events(handler)
        start = {
            "type": "message_start",
            "message": {
                "id": mid,
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": req.input_tokens, "output_tokens": 1},
            },
        }
        send("message_start", start)
        if block["type"] == "tool_use":
            send(
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": {**block, "input": {}}},
            )
            text, delta = json.dumps(block["input"]), "input_json_delta"
        else:
            send(
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            )
            text, delta = content, "text_delta"
        words = text.split(" ")
        for i, w in enumerate(words):
            piece = w if i == 0 else " " + w
            time.sleep(lat.per_output_token * max(1, estimate_tokens(piece)))
            key = "partial_json" if delta == "input_json_delta" else "text"
            send(
                "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": delta, key: piece}}
            )
            if req.fault == "truncate" and i >= len(words) // 2:
                return self._close(handler)  # no message_stop: the client sees an incomplete stream
        send("content_block_stop", {"type": "content_block_stop", "index": 0})
        end = {"stop_reason": stop, "stop_sequence": None}  # usage: cumulative, as the API sends it
        send(
            "message_delta",
            {
                "type": "message_delta",
                "delta": end,
                "usage": {"input_tokens": req.input_tokens, "output_tokens": out_tokens},
            },
        )
        send("message_stop", {"type": "message_stop"})
        handler.wfile.write(b"0\r\n\r\n")
        handler.wfile.flush()
        return None

    @staticmethod
    def _start_events(handler: Any) -> Callable[[str, dict], None]:
        """Send the headers of a chunked server-sent event stream; returns ``send(event, data)``."""
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        handler.send_header("transfer-encoding", "chunked")
        handler.end_headers()

        def send(event: str, data: dict) -> None:
            raw = f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()
            handler.wfile.write(f"{len(raw):x}\r\n".encode() + raw + b"\r\n")
            handler.wfile.flush()

        return send

    def _stream(
        self, handler: Any, cid: str, content: str, usage: dict, per_token: float, cut: bool, calls: list | None = None
    ) -> None:
        """Stream ``content`` word by word, or ``calls`` (OpenAI ``tool_calls`` entries) in one chunk; the
        first delta names the ``assistant`` role, as OpenAI's does (clients that assemble a streamed
        structured answer need it)."""
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        handler.send_header("transfer-encoding", "chunked")
        handler.end_headers()

        def send(data: bytes) -> None:
            handler.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            handler.wfile.flush()

        def chunk(delta: dict, finish: str | None = None) -> dict:
            return {
                "id": cid,
                "object": "chat.completion.chunk",
                "created": int(time.time()),
                "model": "simulated",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }

        if calls:
            indexed = [{"index": i, **c} for i, c in enumerate(calls)]
            send(
                f"data: {json.dumps(chunk({'role': 'assistant', 'content': None, 'tool_calls': indexed}))}\n\n".encode()
            )
        words = [] if calls else content.split(" ")
        for i, w in enumerate(words):
            piece = w if i == 0 else " " + w
            time.sleep(per_token * max(1, estimate_tokens(piece)))
            delta = {"role": "assistant", "content": piece} if i == 0 else {"content": piece}  # as OpenAI sends
            send(f"data: {json.dumps(chunk(delta))}\n\n".encode())
            if cut and i >= len(words) // 2:
                return self._close(handler)  # no final chunk: the client sees an incomplete body
        end = {**chunk({}, "tool_calls" if calls else "stop"), "usage": usage}
        send(f"data: {json.dumps(end)}\n\ndata: [DONE]\n\n".encode())
        handler.wfile.write(b"0\r\n\r\n")
        handler.wfile.flush()
        return None

    @staticmethod
    def _truncated(handler: Any) -> None:
        handler.send_response(200)
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", "400")
        handler.end_headers()
        handler.wfile.write(b'{"id": "chatcmpl-cut", "choices": [{"index"')
        SimulatedEndpoint._close(handler)

    @staticmethod
    def _close(handler: Any) -> None:
        handler.close_connection = True
        with contextlib.suppress(OSError):
            handler.connection.shutdown(socket.SHUT_RDWR)

    # ---- lifecycle ----------------------------------------------------------------------------------
    def roles(self) -> list[str]:
        """The role of each request so far, in the order they came."""
        with self._lock:
            return [r.role for r in self.requests]

    def close(self) -> None:
        """Stop serving and release the port."""
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> SimulatedEndpoint:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _tool_calls(calls: list[ToolCall]) -> list[dict]:
    """``calls`` as the ``tool_calls`` of an OpenAI assistant message."""
    return [
        {
            "id": "call_" + uuid.uuid4().hex[:12],
            "type": "function",
            "function": {"name": c.name, "arguments": json.dumps(c.args)},
        }
        for c in calls
    ]


def fail_first(n: int, fault: str, roles: tuple[str, ...] = ()) -> Callable[[Request], str | None]:
    """A fault plan: the first ``n`` requests (of ``roles``, if given) fail with ``fault``."""
    if fault not in FAULTS + FATAL_FAULTS:
        raise ValueError(f"unknown fault {fault!r}; choose one of {FAULTS + FATAL_FAULTS}")
    count = {"n": 0}
    lock = threading.Lock()

    def plan(req: Request) -> str | None:
        if roles and req.role not in roles:
            return None
        with lock:
            count["n"] += 1
            return fault if count["n"] <= n else None

    return plan
