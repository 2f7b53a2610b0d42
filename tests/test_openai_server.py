"""``caim serve`` (caim.agent.surfaces.openai_server) driven by the official ``openai`` client: the app runs under
uvicorn in a thread on 127.0.0.1 with a scripted-model agent. Completions whole and streamed, memory
across sessions, bearer-token users and their isolation, the ``caim`` extension, limits, and
OpenAI-style errors for a failing or slow model that lose nothing."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator

import pytest

openai = pytest.importorskip("openai")
uvicorn = pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx")

from caim.agent import CaimAgent  # noqa: E402
from caim.agent.surfaces.openai_server import MAX_REQUEST_MESSAGES, create_app  # noqa: E402

TOKENS = {"token-of-alice": "alice", "token-of-bob": "bob"}


@pytest.fixture
def tokens(deployment_auth):
    """CAIM_AUTH_TOKENS as the deployment sets it, ``caim.agent.surfaces.auth`` loaded afresh under it."""
    deployment_auth(TOKENS)
    return TOKENS


class Served:
    """A uvicorn server on a free loopback port, in a thread."""

    def __init__(self, app) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        config = uvicorn.Config(app, log_level="warning", lifespan="on")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def __enter__(self) -> Served:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            assert time.monotonic() < deadline and self.thread.is_alive(), "uvicorn did not start"
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(20)
        self.sock.close()

    def client(self, token: str = "token-of-alice", **kw) -> openai.OpenAI:
        return openai.OpenAI(base_url=f"{self.url}/v1", api_key=token, max_retries=0, timeout=60, **kw)


@pytest.fixture
def agent(settings, scripted):
    models, _calls, _script = scripted
    a = CaimAgent(settings, models=models)
    yield a
    a.close()


@pytest.fixture
def served(agent, tokens) -> Iterator[Served]:
    with Served(create_app(agent, idle_seconds=None)) as s:
        yield s


def ask(client: openai.OpenAI, text: str, **kw):
    return client.chat.completions.create(model="caim", messages=[{"role": "user", "content": text}], **kw)


def test_models_lists_the_served_id(served):
    assert [m.id for m in served.client().models.list()] == ["caim"]
    assert served.client().models.retrieve("caim").owned_by == "caim"
    with pytest.raises(openai.NotFoundError):
        served.client().models.retrieve("gpt-4o")


def test_a_completion_whole_and_streamed_with_the_caim_extension(served, agent):
    client = served.client()
    done = ask(client, "I love hiking in the mountains.")
    assert done.object == "chat.completion" and done.model == "caim"
    assert done.choices[0].message.role == "assistant" and done.choices[0].finish_reason == "stop"
    assert done.choices[0].message.content == "Reply to: I love hiking in the mountains."
    assert done.model_extra["caim"] == {"route": "none", "memories": [], "used": [], "notice": ""}
    assert done.usage.total_tokens > 0

    # a client's own history and model name: only the newest user message is the turn
    stream = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[
            {"role": "system", "content": "You are helpful."},
            {"role": "user", "content": "I love hiking in the mountains."},
            {"role": "assistant", "content": done.choices[0].message.content},
            {"role": "user", "content": [{"type": "text", "text": "I went to Rome with my sister."}]},
        ],
        stream=True,
        stream_options={"include_usage": True},
        temperature=0.2,
    )
    chunks = list(stream)
    assert all(c.object == "chat.completion.chunk" and c.id == chunks[0].id for c in chunks)
    assert chunks[0].choices[0].delta.role == "assistant"
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "Reply to: I went to Rome with my sister."
    final = next(c for c in chunks if c.choices and c.choices[0].finish_reason)
    assert final.choices[0].finish_reason == "stop" and final.model_extra["caim"]["route"] == "none"
    assert chunks[-1].choices == [] and chunks[-1].usage.total_tokens > 0
    # the session holds each turn once: the client's resent history is not added again
    said = [m.content for m in agent.state("alice")["messages"] if m.type == "human"]
    assert said == ["I love hiking in the mountains.", "I went to Rome with my sister."]


def test_the_stream_is_openais_event_stream_ending_with_done(served):
    body = {"model": "caim", "stream": True, "messages": [{"role": "user", "content": "Hello there."}]}
    headers = {"Authorization": "Bearer token-of-alice"}
    with httpx.stream("POST", f"{served.url}/v1/chat/completions", json=body, headers=headers, timeout=60) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        raw = r.read().decode()
    events = [e for e in raw.split("\n\n") if e]
    assert all(e.startswith("data: ") for e in events) and events[-1] == "data: [DONE]"
    last = json.loads(events[-2].removeprefix("data: "))
    assert last["choices"][0]["finish_reason"] == "stop" and "caim" in last


def test_a_client_that_drops_a_stream_blocks_no_later_request(served, agent):
    body = {"model": "caim", "stream": True, "messages": [{"role": "user", "content": "I love hiking."}]}
    headers = {"Authorization": "Bearer token-of-alice"}
    with httpx.stream("POST", f"{served.url}/v1/chat/completions", json=body, headers=headers, timeout=60) as r:
        assert next(r.iter_lines()).startswith("data: ")  # then hang up
    reply = ask(served.client(), "I went to Rome with my sister.", timeout=30)
    assert reply.choices[0].message.content == "Reply to: I went to Rome with my sister."
    said = [m.content for m in agent.state("alice")["messages"] if m.type == "human"]
    assert said == ["I love hiking.", "I went to Rome with my sister."]  # the dropped turn was kept


def test_a_memory_of_one_session_is_recalled_in_the_next(served, agent):
    client = served.client()
    ask(client, "I love hiking in the mountains.")
    ended = httpx.post(f"{served.url}/v1/sessions/end", headers={"Authorization": "Bearer token-of-alice"}, timeout=30)
    assert ended.status_code == 200 and ended.json()["ended"] is True and ended.json()["job"]
    assert agent.wait(ended.json()["job"]).stored  # post-thinking ran in the background
    assert agent.state("alice")["messages"] == []  # a new session

    again = ask(client, "Do you remember my hiking?")
    ext = again.model_extra["caim"]
    assert ext["route"] == "ltm"
    assert [m["thought"] for m in ext["memories"]] == ["I love hiking in the mountains."]
    assert ext["memories"][0]["id"] == agent.memories("alice")[0].id
    assert again.choices[0].message.content == "From memory: I love hiking in the mountains."

    assert [(m["thought"], m["speaker"]) for m in ext["used"]] == [("I love hiking in the mountains.", "user")]

    streamed = list(ask(client, "Do you remember my hiking?", stream=True))
    final = next(c for c in streamed if c.choices and c.choices[0].finish_reason)
    assert [m["thought"] for m in final.model_extra["caim"]["memories"]] == ["I love hiking in the mountains."]
    assert [m["thought"] for m in final.model_extra["caim"]["used"]] == ["I love hiking in the mountains."]


def test_the_deployment_can_ask_for_the_memories_used_under_each_answer(settings, scripted, tokens):
    models, _, _ = scripted
    with CaimAgent(settings.model_copy(update={"cite_memories": True}), models=models) as cited:
        cited.memory.add("I love hiking in the mountains.", user_id="alice", at="2024-05-03T09:00:00")
        with Served(create_app(cited, idle_seconds=None)) as s:
            whole = ask(s.client(), "Do you remember my hiking?").choices[0].message.content
            pieces = list(ask(s.client(), "Do you remember my hiking?", stream=True))
            plain = ask(s.client(), "Thanks, that is all.").choices[0].message.content
    footer = '\n\nMemories used:\n[1] you said (3 May 2024): "I love hiking in the mountains."'
    assert whole == "From memory: I love hiking in the mountains." + footer
    assert "".join(c.choices[0].delta.content or "" for c in pieces if c.choices).endswith(footer)
    assert "Memories used" not in plain  # an answer that used no memory has no footer


def test_an_idle_session_ends_by_itself(agent, tokens):
    with Served(create_app(agent, idle_seconds=0.3)) as s:
        ask(s.client(), "I love hiking in the mountains.")
        deadline = time.monotonic() + 20
        while agent.state("alice")["messages"]:
            assert time.monotonic() < deadline, "the idle session was not ended"
            time.sleep(0.05)
        agent.wait()
    assert [r.thought for r in agent.memories("alice")] == ["I love hiking in the mountains."]


def test_a_wrong_or_missing_key_is_an_authentication_error(served, agent):
    with pytest.raises(openai.AuthenticationError) as caught:
        ask(served.client("token-of-mallory"), "Hello")
    assert caught.value.status_code == 401 and caught.value.body["code"] == "invalid_api_key"
    r = httpx.get(f"{served.url}/v1/models", timeout=10)
    assert r.status_code == 401 and r.json()["error"]["type"] == "invalid_request_error"
    assert httpx.get(f"{served.url}/health", timeout=10).json() == {"status": "ok"}
    assert agent.state("mallory")["messages"] == []


def test_each_token_reaches_only_its_own_users_memories(served, agent):
    alice, bob = served.client("token-of-alice"), served.client("token-of-bob")
    ask(alice, "I love hiking in the mountains.")
    httpx.post(f"{served.url}/v1/sessions/end", headers={"Authorization": "Bearer token-of-alice"}, timeout=30)
    agent.wait()
    assert len(agent.memories("alice")) == 1

    # Bob names Alice in the request's user field: he is still Bob, and sees none of her memories
    reply = ask(bob, "Do you remember my hiking?", user="alice")
    assert reply.model_extra["caim"]["memories"] == []
    assert "hiking in the mountains" not in (reply.choices[0].message.content or "")
    assert [m.content for m in agent.state("bob")["messages"] if m.type == "human"] == ["Do you remember my hiking?"]
    assert agent.state("alice")["messages"] == []  # nothing was added to Alice's session
    # Bob ending "his" session ends none of Alice's
    ask(alice, "I went to Rome with my sister.")
    r = httpx.post(
        f"{served.url}/v1/sessions/end", headers={"Authorization": "Bearer token-of-bob"}, json={}, timeout=30
    )
    assert r.status_code == 200
    assert len(agent.state("alice")["messages"]) == 2


def test_an_over_long_message_is_refused_with_one_line_and_nothing_stored(served, agent):
    limit = agent.settings.max_message_chars
    with pytest.raises(openai.APIStatusError) as caught:
        ask(served.client(), "x" * (limit + 1))
    assert caught.value.status_code == 413
    error = caught.value.body
    assert error["code"] == "message_too_long" and f"at most {limit}" in error["message"]
    assert "\n" not in error["message"]
    assert agent.state("alice")["messages"] == []


def test_limits_and_client_mistakes_are_one_line_openai_errors(agent, tokens):
    with Served(create_app(agent, idle_seconds=None, max_body_bytes=65536)) as s:
        client = s.client()
        with pytest.raises(openai.APIStatusError) as caught:  # the body limit, before it is read
            ask(client, "y" * 70000)
        assert caught.value.status_code == 413 and "request body over 65536 bytes" in caught.value.body["message"]
        many = [{"role": "user", "content": "hi"}] * (MAX_REQUEST_MESSAGES + 1)
        with pytest.raises(openai.APIStatusError) as caught:
            client.chat.completions.create(model="caim", messages=many)
        assert caught.value.status_code == 413 and caught.value.body["code"] == "too_many_messages"
        with pytest.raises(openai.BadRequestError) as caught:
            client.chat.completions.create(model="caim", messages=[{"role": "system", "content": "Be brief."}])
        assert caught.value.body["code"] == "no_user_message"
        with pytest.raises(openai.BadRequestError):
            client.chat.completions.create(model="caim", messages=[])
        with pytest.raises(openai.BadRequestError):
            ask(client, "Hello", n=2)
        r = httpx.post(
            f"{s.url}/v1/chat/completions",
            headers={"Authorization": "Bearer token-of-alice", "content-type": "application/json"},
            content=b"{not json",
            timeout=10,
        )
        assert r.status_code == 400 and set(r.json()) == {"error"} and "malformed JSON" in r.json()["error"]["message"]
    assert agent.state("alice")["messages"] == []


def test_a_failing_model_is_a_5xx_openai_error_and_the_turn_is_kept(served, agent, scripted):
    from caim.core.errors import EndpointError

    _models, _calls, script = scripted

    def down(messages, rf):
        raise EndpointError("cannot reach the model endpoint http://127.0.0.1:9/v1: ConnectError")

    script["respond"] = down
    with pytest.raises(openai.InternalServerError) as caught:
        ask(served.client(), "I love hiking in the mountains.")
    assert caught.value.status_code == 502
    assert caught.value.response.headers["x-should-retry"] == "false"
    error = caught.value.body
    assert error["type"] == "upstream_error" and "cannot reach the model endpoint" in error["message"]
    assert "\n" not in error["message"]
    with pytest.raises(openai.InternalServerError) as caught:  # streamed: the status, before any chunk
        list(ask(served.client(), "I went to Rome with my sister.", stream=True))
    assert caught.value.status_code == 502
    said = [m.content for m in agent.state("alice")["messages"] if m.type == "human"]
    assert said == ["I love hiking in the mountains.", "I went to Rome with my sister."]  # nothing lost


def test_a_slow_model_is_a_504_not_a_hang_and_its_turn_is_kept(agent, tokens, scripted):
    _models, _calls, script = scripted
    release = threading.Event()

    def slow(messages, rf):
        release.wait(20)
        return "Sorry for the wait."

    script["respond"] = slow
    with Served(create_app(agent, idle_seconds=None, turn_timeout=0.5)) as s:
        start = time.monotonic()
        with pytest.raises(openai.InternalServerError) as caught:
            ask(s.client(), "I love hiking in the mountains.")
        assert caught.value.status_code == 504 and time.monotonic() - start < 10
        assert caught.value.body["type"] == "timeout_error" and "kept" in caught.value.body["message"]
        release.set()
        deadline = time.monotonic() + 20
        while len(agent.state("alice")["messages"]) < 2:  # the turn finishes and is kept
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert agent.state("alice")["messages"][-1].content == "Sorry for the wait."
        release.clear()
        with pytest.raises(openai.InternalServerError) as caught:  # streamed
            list(ask(s.client(), "Still there?", stream=True))
        assert caught.value.status_code == 504
        release.set()


def test_without_auth_on_loopback_the_user_is_the_requests(agent):
    with Served(create_app(agent, auth=False, idle_seconds=None)) as s:
        client = s.client("anything")
        ask(client, "I love hiking in the mountains.", user="carol")
        ask(client, "Hello")
    assert [m.content for m in agent.state("carol")["messages"] if m.type == "human"] == [
        "I love hiking in the mountains."
    ]
    assert len(agent.state("default")["messages"]) == 2


def test_the_app_refuses_to_start_without_tokens(agent, monkeypatch):
    from caim.core.errors import ConfigError

    monkeypatch.delenv("CAIM_AUTH_TOKENS", raising=False)
    with pytest.raises(ConfigError, match="CAIM_AUTH_TOKENS"):
        create_app(agent)


@pytest.fixture
def cli(served_cli):
    """The command in-process; uvicorn.run records its app (``served_cli`` in conftest)."""
    return served_cli


@pytest.mark.parametrize(
    ("args", "env", "needle"),
    [
        (["serve"], {}, "set CAIM_AUTH_TOKENS"),
        (["serve", "--no-auth", "--host", "0.0.0.0"], {}, "loopback host only"),
        (["serve", "--host", "10.1.2.3", "--no-auth"], {"CAIM_AUTH_TOKENS": json.dumps(TOKENS)}, "loopback"),
        (["serve"], {"CAIM_AUTH_TOKENS": "not json"}, "CAIM_AUTH_TOKENS is not JSON"),
    ],
)
def test_serve_refuses_to_start_unauthenticated_off_loopback(cli, args, env, needle):
    result, started = cli(args, env)
    assert result.exit_code == 2 and not started
    assert needle in result.output and len(result.output.strip().splitlines()) == 1, result.output


@pytest.mark.parametrize(
    ("args", "env"),
    [
        (["serve", "--port", "8123"], {"CAIM_AUTH_TOKENS": json.dumps(TOKENS)}),
        (["serve", "--no-auth", "--host", "::1", "--idle-minutes", "0"], {}),
        (["serve", "--no-auth", "--host", "localhost"], {}),
    ],
)
def test_serve_starts_the_app_on_the_host_and_port(cli, args, env):
    result, started = cli(args, env)
    assert result.exit_code == 0, result.output
    assert "caim serve" in result.output and "/v1" in result.output
    (run,) = started
    assert run["host"] == (args[args.index("--host") + 1] if "--host" in args else "127.0.0.1")
    assert run["port"] == (8123 if "--port" in args else 8000)
    assert {"/v1/chat/completions", "/v1/models", "/v1/sessions/end"} <= {r.path for r in run["app"].routes}
