"""The FastAPI example (examples/fastapi_chat.py) on a scripted-model agent: chat, stream, session end,
memory list, forget, export - and its boundary: bearer-token users (the same tokens as the LangGraph
deployment), body and message limits, and one-line 4xx answers for whatever a client sends wrong."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient

ROOT = Path(__file__).resolve().parents[1]
TOKENS = {"token-of-ann": "ann", "token-of-bob": "bob", "token-of-long": "x" * 1000}
ANN = {"Authorization": "Bearer token-of-ann"}
BOB = {"Authorization": "Bearer token-of-bob"}


def _load_example():
    spec = importlib.util.spec_from_file_location("caim_example_fastapi_chat", ROOT / "examples" / "fastapi_chat.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # pydantic resolves the request models through the module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def tokens(deployment_auth):
    """CAIM_AUTH_TOKENS as the deployment sets it, ``caim.agent.surfaces.auth`` loaded afresh under it."""
    deployment_auth(TOKENS)
    return TOKENS


@pytest.fixture
def client(agent, tokens):
    app = _load_example().create_app(agent)
    with TestClient(app) as c:
        yield c


def one_line(r) -> str:
    body = r.json()
    assert set(body) == {"detail"} and isinstance(body["detail"], str), body
    assert body["detail"] and "\n" not in body["detail"] and "Traceback" not in body["detail"]
    return body["detail"]


def nothing_stored(agent, user: str) -> bool:
    return agent.state(user)["messages"] == [] and agent.memories(user) == []


def test_chat_stream_session_and_memory_admin(client, agent):
    # Two plain turns: nothing in them asks for memory.
    r = client.post(
        "/chat", headers=ANN, json={"message": "I love hiking in the mountains.", "time": "2025-05-01T10:00:00Z"}
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["route"] == "none" and body["memories"] == []
    assert body["text"] == "Reply to: I love hiking in the mountains."

    r = client.post(
        "/chat", headers=ANN, json={"message": "I went to Rome with my sister.", "time": "2025-05-01T10:05:00Z"}
    )
    assert r.status_code == 200 and r.json()["route"] == "none"

    # A streamed turn that asks for memory: tokens arrive as plain text, the turn is checkpointed.
    with client.stream(
        "POST",
        "/chat/stream",
        headers=ANN,
        json={"message": "Do you remember what we did?", "time": "2025-05-01T10:10:00Z"},
    ) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/plain")
        chunks = [c for c in r.iter_text() if c]
    streamed = "".join(chunks)
    assert streamed and len(chunks) > 1
    st = agent.state("ann")
    assert st["route"] == "ltm" and len(st["messages"]) == 6
    assert st["messages"][-1].content == streamed

    # Session end: post-thinking stores one record per personal fact.
    r = client.post("/session/end", headers=ANN, json={"time": "2025-05-01T11:00:00Z"})
    assert r.status_code == 200, r.text
    ended = r.json()
    assert ended["complete"] is True
    thoughts = sorted(s["thought"] for s in ended["stored"])
    assert thoughts == ["I love hiking in the mountains.", "I went to Rome with my sister."]
    assert [e["turn"] for e in ended["key_events"]] == [1, 2]

    r = client.get("/memories", headers=ANN)
    assert r.status_code == 200
    mems = r.json()
    assert sorted(m["thought"] for m in mems) == thoughts
    assert all(m["user_id"] == "ann" and m["sources"] for m in mems)
    assert client.get("/memories", headers=BOB).json() == []

    # New session: the stored memory is retrieved and returned with the reply.
    r = client.post(
        "/chat", headers=ANN, json={"message": "Do you remember my hiking?", "time": "2025-05-02T09:00:00Z"}
    )
    body = r.json()
    assert body["route"] == "ltm"
    assert [m["thought"] for m in body["memories"]] == ["I love hiking in the mountains."]
    assert body["text"] == "From memory: I love hiking in the mountains."

    # Forget one record; forgetting it again is a 404.
    rome = next(m["id"] for m in mems if "Rome" in m["thought"])
    assert client.delete(f"/memories/{rome}", headers=ANN).json() == {"deleted": rome}
    assert client.delete(f"/memories/{rome}", headers=ANN).status_code == 404
    assert [m["thought"] for m in client.get("/memories", headers=ANN).json()] == ["I love hiking in the mountains."]

    r = client.get("/memories/export", headers=ANN)
    assert r.status_code == 200
    assert r.headers["content-disposition"] == 'attachment; filename="caim-ann.json"'
    export = r.json()
    assert export["user_id"] == "ann" and export["exported_at"]
    assert [m["thought"] for m in export["memories"]] == ["I love hiking in the mountains."]
    hiking = export["memories"][0]["id"]
    assert [e["change"] for e in client.get(f"/memories/{hiking}/history", headers=ANN).json()] == ["created"]

    # Background session end: answers at once with the job; the worker stores the session.
    client.post("/chat", headers=ANN, json={"message": "My favourite tea is jasmine.", "time": "2025-05-03T09:00:00Z"})
    r = client.post("/session/end", headers=ANN, json={"background": True})
    assert r.status_code == 200 and r.json()["job"] and r.json()["stored"] == []
    assert agent.wait(r.json()["job"]).stored
    assert any("jasmine" in m["thought"] for m in client.get("/memories", headers=ANN).json())


def test_server_faults_are_one_line_5xx(client, agent):
    # An empty message is answered by the graph itself, without a model call.
    r = client.post("/chat", headers=ANN, json={"message": "   "})
    assert r.status_code == 200 and r.json()["route"] == "none" and r.json()["notice"]

    # The model endpoint down is a one-line 502 (caim.agent.surfaces.errors), also when streaming.
    from caim.agent import EndpointError

    def down(*_a, **_k):
        raise EndpointError("cannot reach the model endpoint")

    agent.graph.invoke = down
    agent.graph.stream = down
    r = client.post("/chat", headers=ANN, json={"message": "hello"})
    assert r.status_code == 502 and r.json() == {"detail": "cannot reach the model endpoint"}
    r = client.post("/chat/stream", headers=ANN, json={"message": "hello"})
    assert r.status_code == 502 and r.json() == {"detail": "cannot reach the model endpoint"}


def test_an_unexpected_fault_is_a_one_line_500(agent, tokens):
    app = _load_example().create_app(agent)

    def broken(*_a, **_k):
        raise RuntimeError("disk on fire\nat line 3")

    agent.graph.invoke = broken
    with TestClient(app, raise_server_exceptions=False) as c:
        r = c.post("/chat", headers=ANN, json={"message": "hello"})
    assert r.status_code == 500 and one_line(r) == "internal server error (RuntimeError)"


ROUTES = [
    ("POST", "/chat", {"message": "hi"}),
    ("POST", "/chat/stream", {"message": "hi"}),
    ("POST", "/session/end", {}),
    ("GET", "/memories", None),
    ("GET", "/memories/export", None),
    ("DELETE", "/memories/abc", None),
    ("GET", "/memories/abc/history", None),
]


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer"},
        {"Authorization": "Bearer not-a-token"},
        {"Authorization": "Basic token-of-ann"},
        {"Authorization": "token-of-ann"},
        {"X-User-Id": "ann"},
    ],
)
def test_every_route_needs_a_known_bearer_token(client, agent, headers):
    for method, path, body in ROUTES:
        r = client.request(method, path, headers=headers, json=body)
        assert r.status_code == 401, (method, path, r.text)
        assert one_line(r) == "missing or invalid bearer token"
        assert r.headers["www-authenticate"] == "Bearer"
    assert nothing_stored(agent, "ann")
    assert client.get("/health").json() == {"status": "ok"}  # the one public route names no user


def test_a_user_reaches_only_the_tokens_user_whatever_the_request_names(client, agent):
    for headers, fact in ((ANN, "I love hiking in the mountains."), (BOB, "I went to Rome with my sister.")):
        assert client.post("/chat", headers=headers, json={"message": fact}).status_code == 200
        assert client.post("/session/end", headers=headers).status_code == 200
    bobs = client.get("/memories", headers=BOB).json()
    assert [m["thought"] for m in bobs] == ["I went to Rome with my sister."]
    bob_id = bobs[0]["id"]

    # Naming bob in the body is refused, not silently ignored; nothing reaches bob's thread.
    before = len(agent.state("bob")["messages"])
    for path, body in (
        ("/chat", {"message": "Do you remember Rome?", "user_id": "bob"}),
        ("/chat/stream", {"message": "Do you remember Rome?", "user_id": "bob"}),
        ("/session/end", {"user_id": "bob"}),
    ):
        r = client.post(path, headers=ANN, json=body)
        assert r.status_code == 400 and "user_id" in one_line(r)
    assert len(agent.state("bob")["messages"]) == before

    # Bob's record id or name in a path reaches nothing of bob's.
    assert client.get(f"/memories/{bob_id}/history", headers=ANN).status_code == 404
    r = client.delete(f"/memories/{bob_id}", headers=ANN)
    assert r.status_code == 404 and one_line(r) == "no such memory"
    for path in ("/memories/bob", "/memories/bob/export", f"/memories/bob/{bob_id}", "/memories/export/bob"):
        for method in ("GET", "DELETE"):
            r = client.request(method, path, headers=ANN)
            assert r.status_code in (404, 405) and "Rome" not in r.text, (method, path)
    assert [m["id"] for m in client.get("/memories", headers=BOB).json()] == [bob_id]

    # Ann's list, export and answers hold only ann's memory.
    assert [m["thought"] for m in client.get("/memories", headers=ANN).json()] == ["I love hiking in the mountains."]
    export = client.get("/memories/export", headers=ANN).json()
    assert export["user_id"] == "ann"
    assert [m["thought"] for m in export["memories"]] == ["I love hiking in the mountains."]
    r = client.post("/chat", headers=ANN, json={"message": "Do you remember Rome?"})
    assert all("Rome" not in m["thought"] for m in r.json()["memories"]) and "Rome" not in r.json()["text"]
    assert client.delete(f"/memories/{bob_id}", headers=BOB).json() == {"deleted": bob_id}


def test_a_large_body_is_refused_before_anything_is_stored(client, agent):
    big = {"message": "I love hiking. " * 5000}  # about 75 KB, over the 64 KiB default
    r = client.post("/chat", headers=ANN, json=big)
    assert r.status_code == 413 and one_line(r) == "request body over 65536 bytes"

    # A body that declares no length (chunked) is cut off at the limit as well.
    payload = json.dumps(big).encode()
    chunks = (payload[i : i + 8192] for i in range(0, len(payload), 8192))
    r = client.post("/chat", headers={**ANN, "content-type": "application/json"}, content=chunks)
    assert r.status_code == 413 and one_line(r) == "request body over 65536 bytes"
    assert client.post("/session/end", headers=ANN, content=b"{" + b" " * 70000 + b"}").status_code == 413
    assert nothing_stored(agent, "ann")


def test_the_body_limit_is_a_setting(agent, tokens, monkeypatch):
    monkeypatch.setenv("CAIM_MAX_BODY_BYTES", "100")
    with TestClient(_load_example().create_app(agent)) as c:
        assert c.post("/chat", headers=ANN, json={"message": "x" * 100}).status_code == 413
        assert c.post("/chat", headers=ANN, json={"message": "hello"}).status_code == 200
    with TestClient(_load_example().create_app(agent, max_body_bytes=10)) as c:
        assert c.post("/chat", headers=ANN, json={"message": "hello"}).status_code == 413
    monkeypatch.setenv("CAIM_MAX_BODY_BYTES", "lots")
    with pytest.raises(Exception, match="CAIM_MAX_BODY_BYTES must be a positive number"):
        _load_example().create_app(agent)


def test_a_too_long_message_is_refused_and_nothing_stored(client, agent):
    limit = agent.settings.max_message_chars
    for path in ("/chat", "/chat/stream"):
        r = client.post(path, headers=ANN, json={"message": "x" * (limit + 1)})
        assert r.status_code == 413
        assert (
            one_line(r) == f"message of {limit + 1} characters; at most {limit} are accepted (CAIM_MAX_MESSAGE_CHARS)"
        )
    assert nothing_stored(agent, "ann")
    assert client.post("/chat", headers=ANN, json={"message": "y" * limit}).status_code == 200


@pytest.mark.parametrize(
    "time", ["0001-01-01T00:00:00", "9999-12-31T23:59:59", "0001-01-01T00:00:00+05:00", "1899-12-31T23:59:59Z"]
)
def test_a_turn_time_out_of_range_is_a_400_and_nothing_stored(client, agent, time):
    for path in ("/chat", "/chat/stream"):
        r = client.post(path, headers=ANN, json={"message": "I love hiking.", "time": time})
        assert r.status_code == 400, r.text
        assert one_line(r).startswith("time: turn time ") and "out of range" in one_line(r)
    r = client.post("/session/end", headers=ANN, json={"time": time})
    assert r.status_code == 400 and "out of range" in one_line(r)
    assert nothing_stored(agent, "ann")


def test_client_mistakes_are_one_line_4xx(client, agent):
    cases = [
        (b"{not json", "malformed JSON"),
        (b'{"message": "hi"', "malformed JSON"),
        (b"[]", "Input should be a valid dictionary"),
        (b'"hi"', "Input should be a valid dictionary"),
        (b"{}", "message: Field required"),
        (b'{"message": 3}', "message: Input should be a valid string"),
        (b'{"message": "hi", "time": "last tuesday"}', "time: Input should be a valid datetime"),
        (b'{"message": "hi", "policy": "nope"}', "policy: unknown memory policy 'nope'"),
        (b'{"message": "hi", "surprise": 1}', "surprise: Extra inputs are not permitted"),
    ]
    for path in ("/chat", "/chat/stream"):
        for raw, expected in cases:
            r = client.post(path, headers={**ANN, "content-type": "application/json"}, content=raw)
            assert r.status_code == 400, (path, raw, r.text)
            assert expected in one_line(r), (raw, r.text)
    for raw in (b"{nope", b'{"background": "sometimes"}', b'{"policy": "nope"}'):
        r = client.post("/session/end", headers={**ANN, "content-type": "application/json"}, content=raw)
        assert r.status_code == 400 and one_line(r)
    assert client.get("/memories/" + "x" * 200 + "/history", headers=ANN).status_code == 400
    assert nothing_stored(agent, "ann")

    # A known policy is used.
    r = client.post("/chat", headers=ANN, json={"message": "hi", "policy": "single-call"})
    assert r.status_code == 200, r.text


def test_a_token_mapped_to_an_unusable_user_id_is_a_one_line_server_error(client, agent):
    r = client.post("/chat", headers={"Authorization": "Bearer token-of-long"}, json={"message": "hi"})
    assert r.status_code == 500
    assert one_line(r) == "the token's user id cannot be used: user id of 1000 characters; at most 256 are allowed"


def test_the_app_refuses_to_start_without_tokens(agent, monkeypatch):
    monkeypatch.delenv("CAIM_AUTH_TOKENS", raising=False)
    from caim.agent import ConfigError

    with pytest.raises(ConfigError, match="set CAIM_AUTH_TOKENS"):
        _load_example().create_app(agent)
    # An identity provider of one's own replaces the token map.
    app = _load_example().create_app(agent, verify=lambda token: "ann" if token == "idp-ann" else None)
    with TestClient(app) as c:
        assert c.get("/memories", headers={"Authorization": "Bearer idp-ann"}).json() == []
        assert c.get("/memories", headers=ANN).status_code == 401
