"""What every surface shares: one error -> status mapping (``caim.agent.surfaces.errors``) and one
bearer-token check (``caim.agent.surfaces.tokens``). Each surface is driven in-process with a real
client (Starlette's TestClient, the MCP SDK's client, typer's runner); the same error raised under
each must reach its client with the same status and the same line, and a wrong token must be refused
by each."""

from __future__ import annotations

import hmac

import pytest
from mcp.client import Client
from starlette.testclient import TestClient

from caim.agent import CaimAgent
from caim.agent.memory import Memory
from caim.agent.surfaces.errors import error_line, http_status
from caim.agent.surfaces.mcp_server import create_http_app, create_server
from caim.agent.surfaces.openai_server import create_app as create_serve_app
from caim.agent.surfaces.tokens import TokenMap, bearer_user
from caim.agent.surfaces.ui import create_ui_app
from caim.core.errors import ConfigError, EndpointError, InputError, QuotaError, StorageError

TOKENS = {"token-of-alice": "alice", "token-of-bob": "bob"}
ALICE = {"authorization": "Bearer token-of-alice"}
LOCAL = "http://127.0.0.1"

#: One error of each kind a surface answers, with the status every surface must give it.
ERRORS = [
    (InputError("policy must be one of: default, careful"), 400),
    (QuotaError("alice keeps at most 10 records; forget some first"), 413),
    (EndpointError("cannot reach the model endpoint http://127.0.0.1:9/v1"), 502),
    (EndpointError("the model did not answer within 5s"), 504),
    (StorageError("the memory store is read-only:\n/data/caim.db"), 503),
    (ConfigError("CAIM_MODEL is not set"), 503),
]


def test_the_mapping_is_the_table():
    assert [http_status(e) for e, _ in ERRORS] == [s for _, s in ERRORS]
    assert http_status(TimeoutError()) == 504 and http_status(KeyError("x")) == 500
    assert error_line(StorageError("a\n  b")) == "a b"
    assert error_line(RuntimeError("secret path /etc/x")) == "internal server error (RuntimeError)"


def _raiser(exc: BaseException):
    def fail(*_a, **_k):
        raise exc

    return fail


async def _afail(exc: BaseException):
    raise exc


@pytest.mark.parametrize(("exc", "status"), ERRORS, ids=[f"{type(e).__name__}-{s}" for e, s in ERRORS])
async def test_each_surface_answers_an_error_with_the_same_status_and_line(
    exc, status, settings, scripted, monkeypatch, served_cli
):
    models, _calls, _script = scripted
    line = error_line(exc)

    # caim serve: OpenAI's error shape
    monkeypatch.setattr(CaimAgent, "achat", lambda *_a, **_k: _afail(exc))
    with CaimAgent(settings, models=models) as agent:
        with TestClient(create_serve_app(agent, verify=TOKENS.get, idle_seconds=None), base_url=LOCAL) as c:
            body = {"model": "caim", "messages": [{"role": "user", "content": "Where did I go in May?"}]}
            r = c.post("/v1/chat/completions", json=body, headers=ALICE)
        assert r.status_code == status, r.text
        assert r.json()["error"]["message"].startswith(line)

        # the FastAPI example: {"detail": line}
        from examples.fastapi_chat import create_app as create_example_app

        with TestClient(create_example_app(agent, verify=TOKENS.get), base_url=LOCAL) as c:
            r = c.post("/chat", json={"message": "Where did I go in May?"}, headers=ALICE)
        assert (r.status_code, r.json()) == (status, {"detail": line})

    monkeypatch.setattr(Memory, "search", _raiser(exc))
    with Memory(settings, models=models) as memory:
        # caim ui: an error page with the line
        ui = TestClient(create_ui_app(memory, verify=TOKENS.get), base_url=LOCAL)
        r = ui.get("/ui/search", params={"q": "May"}, headers=ALICE)
        assert r.status_code == status and line in r.text

        # caim mcp: a tool error of the line
        async with Client(create_server(memory, user="alice")) as client:
            result = await client.call_tool("search_memory", {"query": "May"})
        assert result.is_error and result.content[0].text == line

    # the CLI: the line on standard error, exit code 2
    monkeypatch.setattr("caim.memory.records.check_polarity", _raiser(exc))
    result, _ = served_cli(["memories", "list", "--user", "alice", "--polarity", "like"])
    assert result.exit_code == 2 and result.stderr.strip() == f"caim: {line}"


def test_the_langgraph_app_answers_a_refused_run_with_its_status_and_line():
    from caim.agent.surfaces import langgraph_app

    app = TestClient(langgraph_app.create_app(), base_url=LOCAL)
    r = app.post("/runs", json={"input": {"messages": []}, "context": {"provider": "openai"}})
    assert r.status_code == 400 and "provider" in r.json()["detail"]


WRONG = [
    {"authorization": "Bearer token-of-alicf"},
    {"authorization": "Bearer "},
    {"authorization": "Basic token-of-alice"},
    {"authorization": "token-of-alice"},
    {},
]


async def test_each_surface_refuses_a_wrong_token_and_takes_the_right_one(agent, memory, deployment_auth):
    auth = deployment_auth(TOKENS)
    verify = auth.verify  # the deployment's check, over CAIM_AUTH_TOKENS
    serve = TestClient(create_serve_app(agent, verify=verify, idle_seconds=None), base_url=LOCAL)
    ui = TestClient(create_ui_app(memory, verify=verify), base_url=LOCAL)
    mcp = TestClient(create_http_app(memory, verify=verify), base_url=LOCAL)
    for headers in WRONG:
        assert serve.get("/v1/models", headers=headers).status_code == 401, headers
        page = ui.get("/ui/search", params={"q": "x"}, headers=headers, follow_redirects=False)
        assert page.status_code in (401, 303), headers  # a wrong token 401; none at all: to the sign-in page
        assert mcp.post("/mcp", json={}, headers=headers).status_code == 401, headers
        with pytest.raises(auth.Auth.exceptions.HTTPException) as refused:
            await auth.authenticate(headers.get("authorization"))
        assert refused.value.status_code == 401
    signin = ui.post("/ui/signin", data={"token": "token-of-alicf"}, follow_redirects=False)
    assert signin.status_code == 401
    assert serve.get("/v1/models", headers=ALICE).status_code == 200
    assert ui.get("/ui/search", params={"q": "x"}, headers=ALICE).status_code == 200
    with mcp:  # the MCP SDK's session manager runs in the app's lifespan
        assert mcp.post("/mcp", json={}, headers=ALICE).status_code not in (401, 500)
    assert (await auth.authenticate("Bearer token-of-bob"))["identity"] == "bob"


def test_the_token_check_compares_every_token_in_constant_time(monkeypatch):
    tokens = TokenMap({f"token-{i}": f"user-{i}" for i in range(5)})
    compared: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def counting(a, b):
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", counting)
    for token, user in (("token-0", "user-0"), ("token-4", "user-4"), ("token-5", None)):
        compared.clear()
        assert bearer_user(f"Bearer {token}", tokens.verify) == user
        assert len(compared) == 5  # every known token, wherever the match is, or none
        assert all(len(a) == len(b) == 32 for a, b in compared)  # digests, never the tokens themselves
