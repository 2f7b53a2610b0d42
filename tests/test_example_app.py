"""The FastAPI example (examples/fastapi_chat.py) on a scripted-model agent: chat, stream, session end,
memory list, forget, export."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient

ROOT = Path(__file__).resolve().parents[1]


def _load_example():
    spec = importlib.util.spec_from_file_location("caim_example_fastapi_chat", ROOT / "examples" / "fastapi_chat.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # pydantic resolves the request models through the module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def client(agent):
    app = _load_example().create_app(agent)
    with TestClient(app) as c:
        yield c


def test_chat_stream_session_and_memory_admin(client, agent):
    # Two plain turns: nothing in them asks for memory.
    r = client.post(
        "/chat", json={"user_id": "alice", "message": "I love hiking in the mountains.", "time": "2025-05-01T10:00:00Z"}
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["route"] == "none" and body["memories"] == []
    assert body["text"] == "Reply to: I love hiking in the mountains."

    r = client.post(
        "/chat", json={"user_id": "alice", "message": "I went to Rome with my sister.", "time": "2025-05-01T10:05:00Z"}
    )
    assert r.status_code == 200 and r.json()["route"] == "none"

    # A streamed turn that asks for memory: tokens arrive as plain text, the turn is checkpointed.
    with client.stream(
        "POST",
        "/chat/stream",
        json={"user_id": "alice", "message": "Do you remember what we did?", "time": "2025-05-01T10:10:00Z"},
    ) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/plain")
        chunks = [c for c in r.iter_text() if c]
    streamed = "".join(chunks)
    assert streamed and len(chunks) > 1
    st = agent.state("alice")
    assert st["route"] == "ltm" and len(st["messages"]) == 6
    assert st["messages"][-1].content == streamed

    # Session end: post-thinking stores one record per personal fact.
    r = client.post("/session/end", json={"user_id": "alice", "time": "2025-05-01T11:00:00Z"})
    assert r.status_code == 200, r.text
    ended = r.json()
    assert ended["complete"] is True
    thoughts = sorted(s["thought"] for s in ended["stored"])
    assert thoughts == ["I love hiking in the mountains.", "I went to Rome with my sister."]
    assert [e["turn"] for e in ended["key_events"]] == [1, 2]

    r = client.get("/memories/alice")
    assert r.status_code == 200
    mems = r.json()
    assert sorted(m["thought"] for m in mems) == thoughts
    assert all(m["user_id"] == "alice" and m["sources"] for m in mems)
    assert client.get("/memories/bob").json() == []

    # New session: the stored memory is retrieved and returned with the reply.
    r = client.post(
        "/chat", json={"user_id": "alice", "message": "Do you remember my hiking?", "time": "2025-05-02T09:00:00Z"}
    )
    body = r.json()
    assert body["route"] == "ltm"
    assert [m["thought"] for m in body["memories"]] == ["I love hiking in the mountains."]
    assert body["text"] == "From memory: I love hiking in the mountains."

    # Forget one record; forgetting it again is a 404.
    rome = next(m["id"] for m in mems if "Rome" in m["thought"])
    assert client.delete(f"/memories/alice/{rome}").json() == {"deleted": rome}
    assert client.delete(f"/memories/alice/{rome}").status_code == 404
    assert [m["thought"] for m in client.get("/memories/alice").json()] == ["I love hiking in the mountains."]

    r = client.get("/memories/alice/export")
    assert r.status_code == 200
    assert r.headers["content-disposition"] == 'attachment; filename="caim-alice.json"'
    export = r.json()
    assert export["user_id"] == "alice" and export["exported_at"]
    assert [m["thought"] for m in export["memories"]] == ["I love hiking in the mountains."]
    hiking = export["memories"][0]["id"]
    assert [e["change"] for e in client.get(f"/memories/alice/{hiking}/history").json()] == ["created"]

    # Background session end: answers at once with the job; the worker stores the session.
    client.post(
        "/chat", json={"user_id": "alice", "message": "My favourite tea is jasmine.", "time": "2025-05-03T09:00:00Z"}
    )
    r = client.post("/session/end", json={"user_id": "alice", "background": True})
    assert r.status_code == 200 and r.json()["job"] and r.json()["stored"] == []
    assert agent.wait(r.json()["job"]).stored
    assert any("jasmine" in m["thought"] for m in client.get("/memories/alice").json())


def test_validation_and_config_errors(client, agent):
    assert client.post("/chat", json={"user_id": "", "message": "hi"}).status_code == 422
    assert client.post("/chat", json={"message": "hi"}).status_code == 422

    # An empty message is answered by the graph itself, without a model call.
    r = client.post("/chat", json={"user_id": "carol", "message": "   "})
    assert r.status_code == 200 and r.json()["route"] == "none" and r.json()["notice"]

    # A user-facing caim error (e.g. model endpoint down) becomes a one-line 503, also when streaming.
    from caim.agent import EndpointError

    def down(*_a, **_k):
        raise EndpointError("cannot reach the model endpoint")

    agent.graph.invoke = down
    agent.graph.stream = down
    r = client.post("/chat", json={"user_id": "carol", "message": "hello"})
    assert r.status_code == 503 and r.json() == {"detail": "cannot reach the model endpoint"}
    r = client.post("/chat/stream", json={"user_id": "carol", "message": "hello"})
    assert r.status_code == 503 and r.json() == {"detail": "cannot reach the model endpoint"}
