"""Boots ``langgraph dev`` on our ``langgraph.json`` (offline, scripted models) and drives the graph
through the LangGraph API the way LangGraph Studio does: threads, runs with a context, state, schemas.

The server runs as a subprocess with ``CAIM_PROVIDER=scripted`` and ``CAIM_SCRIPT`` pointing at a JSON
table of answers written here, and ``CAIM_DATA_DIR`` in ``tmp_path``. langgraph dev keeps its threads in
``.langgraph_api/`` of its working directory, so it runs in ``tmp_path`` (test threads must not show up
in a developer's Studio) on a copy of ``langgraph.json`` whose relative paths are made absolute; the
graph is still loaded from ``graph/studio.py`` by file path, as from the project root.
``deploy/langgraph.json`` names modules, not files, so it is served as it is, from ``tmp_path`` as from
the project root (``langgraph dev`` resolves file paths against its working directory, ``langgraph
build`` against the config's folder). It runs without ``--allow-blocking``: langgraph dev turns
blocking calls on the event loop into errors, and our synchronous nodes must not trigger that.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.server

ROOT = Path(__file__).resolve().parents[1]
T0 = "2025-05-01T10:00:00+00:00"
T1 = "2025-05-01T10:05:00+00:00"
T_END = "2025-05-01T11:00:00+00:00"
T2 = "2025-05-03T09:00:00+00:00"

# Answers per LLM role (testing/scripted.py format). The plan answers in order: turn 1 -> no memory;
# turn 2 -> past conversations; turn 3 (new session) -> past conversations.
NO = {"needs_memory": "no", "memory": "past", "tags": [], "time_expressions": []}
PAST = {"needs_memory": "yes", "memory": "past", "tags": [], "time_expressions": []}
SCRIPT = {
    "plan": {"cycle": [NO, PAST, PAST]},
    "relevance": {"relevant": [1]},
    "respond": {
        "cycle": ["Hiking sounds wonderful!", "I don't remember that yet.", "You love hiking in the mountains."]
    },
    "summarize": "Summary: the user talked about hiking.",
    "key_events": {"events": [{"turn": 1, "event": "The user loves hiking in the mountains."}]},
    "thoughts": {
        "thoughts": [{"event": 1, "thought": "The user loves hiking in the mountains.", "tags": ["hiking"]}],
        "new_terms": [],
    },
    "maintain": {"decisions": []},
}

BLOCKING_MARKERS = ("BlockingError", "identified a synchronous blocking call")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _langgraph_cli() -> str | None:
    found = shutil.which("langgraph")
    if found:
        return found
    local = Path(sys.executable).parent / "langgraph"
    return str(local) if local.exists() else None


def _absolute_config(path: Path) -> dict:
    """A langgraph.json with its relative graph, auth and dependency paths made absolute."""
    config = json.loads(path.read_text())
    assert "caim" in config["graphs"]

    def absolute(p: str) -> str:
        return str((path.parent / p).resolve()) if p.startswith(".") else p

    def absolute_spec(spec: str) -> str:
        file, _, attr = spec.rpartition(":")
        return absolute(file) + ":" + attr

    config["graphs"] = {name: absolute_spec(spec) for name, spec in config["graphs"].items()}
    assert Path(config["graphs"]["caim"].split(":")[0]).is_file()
    config["dependencies"] = [absolute(d) for d in config.get("dependencies", [])]
    if "auth" in config:
        config["auth"]["path"] = absolute_spec(config["auth"]["path"])
    return config


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class DevServer:
    def __init__(
        self,
        exe: str,
        tmp_path: Path,
        config_file: Path = ROOT / "langgraph.json",
        as_is: bool = False,
        **extra_env: str,
    ):
        """``as_is``: serve ``config_file`` itself rather than a copy with absolute paths."""
        self.data_dir = tmp_path / "data"
        self.log_path = tmp_path / "server.log"
        script = tmp_path / "script.json"
        script.write_text(json.dumps(SCRIPT))
        env = {
            k: v for k, v in os.environ.items() if not k.startswith(("CAIM_", "OPENAI_", "LANGSMITH_", "LANGCHAIN_"))
        }
        env.update(
            CAIM_DATA_DIR=str(self.data_dir),
            CAIM_PROVIDER="scripted",
            CAIM_SCRIPT=str(script),
            LANGGRAPH_CLI_NO_ANALYTICS="1",
            LANGGRAPH_NO_VERSION_CHECK="true",
            LANGSMITH_TRACING="false",
            PYTHONUNBUFFERED="1",
            **extra_env,
        )
        config = config_file
        if not as_is:
            config = tmp_path / "langgraph.json"
            config.write_text(json.dumps(_absolute_config(config_file)))
        self.requested_port = _free_port()
        self._log = open(self.log_path, "w")  # noqa: SIM115 - closed in stop(), after the server exits
        self.proc = subprocess.Popen(
            [
                exe,
                "dev",
                "--config",
                str(config),
                "--no-browser",
                "--no-reload",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.requested_port),
            ],
            cwd=tmp_path,
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.url = ""

    def log(self) -> str:
        return _ANSI.sub("", self.log_path.read_text(errors="replace"))

    def wait_ready(self, timeout: float = 60.0) -> str:
        """Wait for the announced API URL (the server may move to another port if ours got taken) and /ok."""
        import httpx

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                pytest.fail(f"langgraph dev exited with {self.proc.returncode}:\n{self.log()[-4000:]}")
            m = re.search(r"API: (http://127\.0\.0\.1:\d+)", self.log())
            if m:
                try:
                    if httpx.get(m.group(1) + "/ok", timeout=2).status_code == 200:
                        self.url = m.group(1)
                        return self.url
                except httpx.HTTPError:
                    pass
            time.sleep(0.3)
        pytest.fail(f"langgraph dev not ready after {timeout}s:\n{self.log()[-4000:]}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=5)
            except ProcessLookupError:
                pass
        self._log.close()


@pytest.fixture
def dev_server(tmp_path):
    exe = _langgraph_cli()
    if exe is None:
        pytest.skip("langgraph CLI not installed (pip install 'langgraph-cli[inmem]')")
    server = DevServer(exe, tmp_path)
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()


def _nodes(trace: list[dict]) -> list[str]:
    """Nodes in the order they ran; the controller and the search run in parallel (listed sorted)."""
    nodes = list(dict.fromkeys(e["node"] for e in trace))
    if {"controller", "search"} <= set(nodes):
        i = min(nodes.index("controller"), nodes.index("search"))
        nodes[i : i + 2] = sorted(nodes[i : i + 2])
    return nodes


def _turn(client, thread_id: str, text: str, when: str) -> dict:
    client.runs.wait(
        thread_id,
        "caim",
        input={"messages": [{"role": "user", "content": text}], "turn_time": when},
        context={"user_id": "alice"},
    )
    return client.threads.get_state(thread_id)["values"]


def test_dev_server_runs_turns_and_post_thinking(dev_server):
    from langgraph_sdk import get_sync_client

    from caim.core.embeddings import MiniLMEmbedder
    from caim.memory.storage.store import MemoryStore

    client = get_sync_client(url=dev_server.url, api_key=None)

    # Studio's Context form: the graph's context schema is exposed.
    assistants = client.assistants.search(graph_id="caim")
    assert assistants, "langgraph dev registered no assistant for graph 'caim'"
    schemas = client.assistants.get_schemas(assistants[0]["assistant_id"])
    ctx_props = schemas["context_schema"]["properties"]
    assert {"user_id", "policy"} <= set(ctx_props)
    assert {"messages", "turn_time", "end_session"} <= set(schemas["input_schema"]["properties"])

    thread = client.threads.create()
    tid = thread["thread_id"]

    # Turn 1: no memory needed.
    st = _turn(client, tid, "I love hiking in the mountains.", T0)
    assert st["route"] == "none"
    assert [m["type"] for m in st["messages"]] == ["human", "ai"]
    assert st["messages"][-1]["content"] == "Hiking sounds wonderful!"
    assert _nodes(st["trace"]) == ["intake", "controller", "search", "retrieve", "respond"]
    llm = [e for e in st["trace"] if e["kind"] == "llm"]
    assert [(e["node"], e["role"]) for e in llm] == [("controller", "plan"), ("respond", "respond")]
    assert not any(e.get("fallback") for e in llm)

    # Turn 2: routed to LTM (nothing stored yet); the trace was reset for the new turn.
    st = _turn(client, tid, "Do you remember what I like?", T1)
    assert st["route"] == "ltm"
    assert st["decisions"]["needs_memory"] == "yes" and st["decisions"]["memory"] == "past"
    assert len(st["messages"]) == 4
    assert _nodes(st["trace"]) == ["intake", "controller", "search", "retrieve", "memory_prompt", "respond"]
    assert st["tags"] and st["candidates"] == [] and st["memories"] == []

    # Session end: post-thinking stores the key event for alice and clears the session.
    out = client.runs.wait(tid, "caim", input={"end_session": True, "turn_time": T_END}, context={"user_id": "alice"})
    assert [r["thought"] for r in out["stored"]] == ["The user loves hiking in the mountains."]
    st = client.threads.get_state(tid)["values"]
    assert st["stored"] == out["stored"] and st["stored"][0]["tags"] == ["hiking"]
    assert st["key_events"][0]["time"] == T0  # the event takes its turn's time
    assert st["messages"] == [] and st["end_session"] is False
    assert _nodes(st["trace"]) == [
        "intake",
        "extract_key_events",
        "write_thoughts",
        "maintain",
        "update_profile",
        "close_session",
    ]

    # Next session on the same thread, streamed as Studio does: the memory is retrieved from Chroma
    # and kept, and the answer's tokens arrive from the respond node.
    tokens = []
    for part in client.runs.stream(
        tid,
        "caim",
        input={"messages": [{"role": "user", "content": "Do you remember what I like to do?"}], "turn_time": T2},
        context={"user_id": "alice"},
        stream_mode="messages-tuple",
    ):
        if part.event == "messages":
            chunk, meta = part.data
            if meta.get("langgraph_node") == "respond" and chunk.get("type") == "AIMessageChunk":
                tokens.append(chunk["content"])
    assert "".join(tokens) == "You love hiking in the mountains." and len(tokens) > 1
    st = client.threads.get_state(tid)["values"]
    assert st["route"] == "ltm"
    assert [m["thought"] for m in st["memories"]] == ["The user loves hiking in the mountains."]
    assert st["messages"][-1]["content"] == "You love hiking in the mountains."

    runs = client.runs.list(tid)
    assert len(runs) == 4 and {r["status"] for r in runs} == {"success"}

    dev_server.stop()
    log = dev_server.log()
    for marker in BLOCKING_MARKERS:
        assert marker not in log, f"langgraph dev reported a blocking call:\n{log[-4000:]}"

    # The memory is on disk, under alice (the run context reached the nodes), not the default user.
    store = MemoryStore(dev_server.data_dir, MiniLMEmbedder.shared())
    records = store.list("alice")
    assert [r.thought for r in records] == ["The user loves hiking in the mountains."]
    assert records[0].sources[0].text == "I love hiking in the mountains."
    assert store.list("default") == []


TOKENS = {"token-alice": "alice", "token-bob": "bob"}
DEPLOY = ROOT / "deploy" / "langgraph.json"


def test_the_local_dev_server_refuses_a_run_it_would_not_serve_with_one_line_naming_the_field(dev_server):
    """Plain ``langgraph dev`` (no authentication) checks runs as the deployment does: without
    langgraph.json's HTTP app it would drop unknown keys silently and answer a value out of range
    with "An internal error occurred" after storing the run."""
    from langgraph_sdk import get_sync_client

    client = get_sync_client(url=dev_server.url, api_key=None)
    tid = client.threads.create()["thread_id"]
    turn = {"messages": [{"role": "user", "content": "I love hiking in the mountains."}], "turn_time": T0}
    cases = [
        ({"max_kept": 1000}, "context max_kept must be a whole number from 1 to 100, not 1000"),
        ({"model": "gpt-x"}, "'model' is set by the deployment (CAIM_MODEL"),
        ({"user_id": "alice", "data_dir": "/tmp/elsewhere"}, "'data_dir' is set by the deployment"),
        ({"colour": "blue"}, "unknown context key 'colour'"),
    ]
    for context, why in cases:
        assert why in _refused(400, client.runs.wait, tid, "caim", input=turn, context=context)
    configured = {"configurable": {"max_kept": 1000}}
    assert "max_kept" in _refused(400, client.runs.wait, tid, "caim", input=turn, config=configured)
    assert "CAIM_MODEL" in _refused(400, client.runs.wait, None, "caim", input=turn, context={"model": "gpt-x"})
    cron = _refused(
        400, client.crons.create_for_thread, tid, "caim", schedule="0 0 * * *", input=turn, context=cases[0][0]
    )
    assert "max_kept" in cron
    assistant = _refused(400, client.assistants.create, "caim", context={"candidate_cap": 0})
    assert "candidate_cap must be a whole number from 1 to 100" in assistant
    many = {"messages": [{"role": "user", "content": "hi"}] * 201}
    assert "201 messages" in _refused(413, client.runs.wait, tid, "caim", input=many)
    assert client.runs.list(tid) == []  # nothing was stored
    client.runs.wait(tid, "caim", input=turn, context={"user_id": "alice", "max_kept": 3})
    assert [r["status"] for r in client.runs.list(tid)] == ["success"]


def test_deployed_graph_takes_the_user_from_the_token_and_scopes_everything_to_it(tmp_path):
    """deploy/langgraph.json with caim's auth: two users, each trying to reach the other's memory."""
    exe = _langgraph_cli()
    if exe is None:
        pytest.skip("langgraph CLI not installed (pip install 'langgraph-cli[inmem]')")
    import httpx
    from langgraph_sdk import get_sync_client

    from caim.core.embeddings import MiniLMEmbedder
    from caim.memory.storage.store import MemoryStore

    server = DevServer(exe, tmp_path, DEPLOY, as_is=True, CAIM_AUTH_TOKENS=json.dumps(TOKENS))
    try:
        url = server.wait_ready()
        alice = get_sync_client(url=url, api_key=None, headers={"Authorization": "Bearer token-alice"})
        bob = get_sync_client(url=url, api_key=None, headers={"Authorization": "Bearer token-bob"})
        assert httpx.post(f"{url}/threads", json={}).status_code == 401  # no token
        assert httpx.post(f"{url}/threads", json={}, headers={"Authorization": "Bearer forged"}).status_code == 401

        # alice tells a fact and ends the session, claiming to be bob in the run context
        ta = alice.threads.create()["thread_id"]
        alice.runs.wait(
            ta,
            "caim",
            input={"messages": [{"role": "user", "content": "I love hiking in the mountains."}], "turn_time": T0},
            context={"user_id": "bob"},
        )
        alice.runs.wait(ta, "caim", input={"end_session": True, "turn_time": T_END}, context={"user_id": "bob"})

        # bob cannot see alice's thread, its state or its runs
        assert [t["thread_id"] for t in bob.threads.search()] == []
        for call in (lambda: bob.threads.get(ta), lambda: bob.threads.get_state(ta), lambda: bob.runs.list(ta)):
            with pytest.raises(httpx.HTTPStatusError) as err:
                call()
            assert err.value.response.status_code == 404
        with pytest.raises(httpx.HTTPStatusError):
            bob.runs.wait(ta, "caim", input={"messages": [{"role": "user", "content": "hi"}]})

        # bob asks in his own thread, naming alice in the context: he finds nothing of hers
        tb = bob.threads.create()["thread_id"]
        bob.runs.wait(
            tb,
            "caim",
            input={"messages": [{"role": "user", "content": "Do you remember what I like?"}], "turn_time": T2},
            context={"user_id": "alice"},
        )
        st = bob.threads.get_state(tb)["values"]
        assert st["candidates"] == [] and st["memories"] == []
    finally:
        server.stop()
    store = MemoryStore(server.data_dir, MiniLMEmbedder.shared())
    assert [r.thought for r in store.list("alice")] == ["The user loves hiking in the mountains."]
    assert store.list("bob") == []


@pytest.fixture(scope="module")
def deployed(tmp_path_factory):
    """``deploy/langgraph.json`` as it is, with alice's and bob's tokens (one server for the tests below)."""
    exe = _langgraph_cli()
    if exe is None:
        pytest.skip("langgraph CLI not installed (pip install 'langgraph-cli[inmem]')")
    tmp = tmp_path_factory.mktemp("deployed")
    server = DevServer(exe, tmp, DEPLOY, as_is=True, CAIM_AUTH_TOKENS=json.dumps(TOKENS))
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()


def _as(server: DevServer, token: str):
    from langgraph_sdk import get_sync_client

    return get_sync_client(url=server.url, api_key=None, headers={"Authorization": f"Bearer {token}"})


def _refused(status: int, call, *args, **kwargs) -> str:
    """The body of the error response ``call(*args, **kwargs)`` must get, with that status."""
    import httpx

    with pytest.raises(httpx.HTTPStatusError) as err:
        call(*args, **kwargs)
    assert err.value.response.status_code == status, err.value.response.text
    return err.value.response.text


def test_the_store_is_per_user(deployed):
    alice, bob = _as(deployed, "token-alice"), _as(deployed, "token-bob")
    alice.store.put_item(["alice", "notes"], "n1", {"text": "alice's secret"})
    bob.store.put_item(["bob", "notes"], "n1", {"text": "bob's note"})

    # bob cannot write into alice's namespace (or one that is nobody's), nor read, search, list or delete hers
    assert "begin with 'bob'" in _refused(403, bob.store.put_item, ["alice", "notes"], "n2", {"text": "planted"})
    _refused(403, bob.store.put_item, ["notes"], "n3", {"text": "unowned"})
    _refused(403, bob.store.get_item, ["alice", "notes"], "n1")
    _refused(403, bob.store.search_items, ["alice"])
    _refused(403, bob.store.list_namespaces, prefix=["alice"])
    _refused(403, bob.store.delete_item, ["alice", "notes"], "n1")

    # without a prefix, search and listing show only his own
    assert [i["value"] for i in bob.store.search_items([])["items"]] == [{"text": "bob's note"}]
    assert bob.store.list_namespaces()["namespaces"] == [["bob", "notes"]]

    # alice's item is untouched, nothing was planted beside it, and only she can delete it
    assert alice.store.get_item(["alice", "notes"], "n1")["value"] == {"text": "alice's secret"}
    assert alice.store.get_item(["alice", "notes"], "n2") is None
    assert alice.store.list_namespaces()["namespaces"] == [["alice", "notes"]]
    alice.store.delete_item(["alice", "notes"], "n1")
    assert alice.store.get_item(["alice", "notes"], "n1") is None


def test_a_run_context_reaching_for_the_deployment_is_refused_before_the_run(deployed):
    alice = _as(deployed, "token-alice")
    tid = alice.threads.create()["thread_id"]
    elsewhere = deployed.data_dir.parent / "elsewhere"
    turn = {"messages": [{"role": "user", "content": "I love hiking in the mountains."}], "turn_time": T0}
    cases = [
        ({"base_url": "http://203.0.113.9/v1", "provider": "openai"}, "'base_url' is set by the deployment"),
        ({"user_id": "alice", "data_dir": str(elsewhere)}, "'data_dir' is set by the deployment (CAIM_DATA_DIR"),
        ({"api_key": "sk-test"}, "'api_key' is set by the deployment (CAIM_API_KEY"),
        ({"namespace": "other"}, "'namespace' is set by the deployment (CAIM_NAMESPACE"),
        ({"endpoint": "http://203.0.113.9/v1"}, "unknown context key 'endpoint'"),
        ({"policy": "nope"}, "context policy 'nope' is no memory policy"),
        ({"candidate_cap": 1000}, "candidate_cap must be a whole number from 1 to 100"),
    ]
    for context, why in cases:
        assert why in _refused(400, alice.runs.wait, tid, "caim", input=turn, context=context)
    # the same sent as configuration, as a run without a thread, or as a cron's context
    base_url = {"base_url": "http://203.0.113.9/v1"}
    assert "CAIM_BASE_URL" in _refused(400, alice.runs.wait, tid, "caim", input=turn, config={"configurable": base_url})
    assert "CAIM_MODEL" in _refused(400, alice.runs.wait, None, "caim", input=turn, context={"model": "gpt-x"})
    cron = _refused(400, alice.crons.create_for_thread, tid, "caim", schedule="0 0 * * *", input=turn, context=base_url)
    assert "CAIM_BASE_URL" in cron

    # nothing ran, nothing was stored, no folder was made
    assert alice.runs.list(tid) == []
    assert not (alice.threads.get_state(tid)["values"] or {}).get("messages")
    assert not elsewhere.exists()

    # what a client may choose runs
    alice.runs.wait(tid, "caim", input=turn, context={"policy": "single-call", "max_kept": 3, "stm_token_budget": 800})
    assert [r["status"] for r in alice.runs.list(tid)] == ["success"]
    assert alice.threads.get_state(tid)["values"]["messages"][-1]["type"] == "ai"
    assert "refused run context: context key 'base_url' is set by the deployment" in deployed.log()


def test_an_over_long_message_or_a_bad_time_is_refused_before_the_server_stores_it(deployed):
    alice = _as(deployed, "token-alice")
    tid = alice.threads.create()["thread_id"]
    huge = {"messages": [{"role": "user", "content": "x" * 20_000}], "turn_time": T0}
    assert "20000 characters; at most 16000" in _refused(413, alice.runs.wait, tid, "caim", input=huge)
    blocks = {"messages": [{"role": "user", "content": [{"type": "text", "text": "y" * 20_000}]}]}
    assert "at most 16000" in _refused(413, alice.runs.wait, tid, "caim", input=blocks)
    many = {"messages": [{"role": "user", "content": "hi"}] * 201}
    assert "201 messages" in _refused(413, alice.runs.wait, tid, "caim", input=many)
    early = {"messages": [{"role": "user", "content": "hello"}], "turn_time": "0001-01-01T00:00:00"}
    assert "out of range" in _refused(422, alice.runs.wait, tid, "caim", input=early)
    garbage = {"messages": [{"role": "user", "content": "hello"}], "turn_time": "next tuesday"}
    assert "not an ISO 8601 time" in _refused(422, alice.runs.wait, tid, "caim", input=garbage)
    assert alice.runs.list(tid) == []
    assert not (alice.threads.get_state(tid)["values"] or {}).get("messages")


def test_a_malformed_token_map_stops_the_server_at_start_with_one_line(tmp_path):
    exe = _langgraph_cli()
    if exe is None:
        pytest.skip("langgraph CLI not installed (pip install 'langgraph-cli[inmem]')")
    server = DevServer(exe, tmp_path, DEPLOY, as_is=True, CAIM_AUTH_TOKENS="{token-alice: alice}")
    try:
        server.proc.wait(timeout=90)
    finally:
        server.stop()
    assert server.proc.returncode != 0
    last = server.log().strip().splitlines()[-1]
    assert last.startswith("caim.core.errors.ConfigError: CAIM_AUTH_TOKENS is not JSON")
    assert "a JSON object of token -> user id" in last


def _forget_auth_module(monkeypatch) -> None:
    """Let ``caim.agent.surfaces.auth`` load afresh (it reads the token map on import); the module imported
    before is put back after the test."""
    import caim.agent.surfaces

    monkeypatch.delitem(sys.modules, "caim.agent.surfaces.auth", raising=False)
    monkeypatch.delattr(caim.agent.surfaces, "auth", raising=False)


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ("", "CAIM_AUTH_TOKENS is not set"),
        ("not json", "CAIM_AUTH_TOKENS is not JSON"),
        ('["token-alice"]', "CAIM_AUTH_TOKENS must be a JSON object of token -> user id"),
        ("{}", "CAIM_AUTH_TOKENS must be a JSON object of token -> user id"),
        ('{"": "alice"}', "empty or space-padded token"),
        ('{" token ": "alice"}', "empty or space-padded token"),
        ('{"token-alice": ""}', "maps a token to ''"),
        ('{"token-alice": 7}', "maps a token to 7"),
    ],
)
def test_the_token_map_is_checked_when_the_auth_module_loads(monkeypatch, raw, why):
    import importlib

    from caim.core.errors import ConfigError

    _forget_auth_module(monkeypatch)
    monkeypatch.setenv("CAIM_AUTH_TOKENS", raw)
    with pytest.raises(ConfigError) as err:
        importlib.import_module("caim.agent.surfaces.auth")
    assert why in str(err.value) and "\n" not in str(err.value)


def test_verify_knows_each_token_and_nothing_else(monkeypatch):
    import importlib

    _forget_auth_module(monkeypatch)
    monkeypatch.setenv("CAIM_AUTH_TOKENS", json.dumps(TOKENS))
    auth = importlib.import_module("caim.agent.surfaces.auth")
    assert [auth.verify(t) for t in ("token-alice", "token-bob")] == ["alice", "bob"]
    assert [auth.verify(t) for t in ("token-alic", "token-alice ", "", "alice")] == [None] * 4
