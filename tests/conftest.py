"""Shared fixtures: a scripted-model agent on a temporary data dir, a no-network guard, and the
storage backends.

Store, graph and facade tests run twice when the servers are there: ``embedded`` (SQLite and a
Chroma directory in the data dir) and ``server`` (PostgreSQL for records and checkpoints, a Chroma
server for vectors), each test in a namespace of its own that is dropped afterwards.
``.ci/run`` starts both servers and sets ``CAIM_TEST_DATABASE_URL`` / ``CAIM_TEST_CHROMA_URL``;
without them the ``server`` runs are skipped with that reason.
"""

from __future__ import annotations

import contextlib
import os
import socket
import uuid

import pytest

from caim.agent import CaimAgent, Settings
from caim.agent.memory import Memory
from caim.core.scripted import scripted_models
from tests.scripts import SCRIPT

#: Test modules whose tests run against both backends.
BOTH_BACKENDS = {"test_store", "test_graph", "test_sessions", "test_memory_changes", "test_background", "test_crash"}
DATABASE_URL = os.environ.get("CAIM_TEST_DATABASE_URL")
CHROMA_URL = os.environ.get("CAIM_TEST_CHROMA_URL")


def pytest_generate_tests(metafunc):
    if "backend" in metafunc.fixturenames and metafunc.module.__name__.split(".")[-1] in BOTH_BACKENDS:
        metafunc.parametrize("backend", ["embedded", "server"], indirect=True)


@pytest.fixture
def backend(request):
    """``embedded`` or ``server`` - the servers' settings, in a namespace of this test's own."""
    kind = getattr(request, "param", "embedded")
    if kind == "embedded":
        yield {}
        return
    if not (DATABASE_URL and CHROMA_URL):
        why = "server backend: set CAIM_TEST_DATABASE_URL and CAIM_TEST_CHROMA_URL (.ci/run starts both)"
        if os.environ.get("CAIM_REQUIRE_SERVERS"):
            pytest.fail(why)
        pytest.skip(why)
    ns = "t" + uuid.uuid4().hex[:12]
    yield {"database_url": DATABASE_URL, "chroma_url": CHROMA_URL, "checkpoint_url": DATABASE_URL, "namespace": ns}
    drop_namespace(ns)


def drop_namespace(ns: str) -> None:
    import chromadb
    import psycopg

    with contextlib.suppress(Exception), psycopg.connect(DATABASE_URL, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {ns} CASCADE")
    with contextlib.suppress(Exception):
        host, port = CHROMA_URL.split("//")[1].rstrip("/").split(":")
        client = chromadb.HttpClient(host=host, port=int(port))
        for c in client.list_collections():
            name = str(getattr(c, "name", c))
            if name.startswith(ns + "_"):
                client.delete_collection(name)


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Any socket connection to a non-loopback address fails the test."""
    real_connect = socket.socket.connect

    def guarded(self, address):
        host = address[0] if isinstance(address, tuple) else address
        if isinstance(host, str) and not (
            host.startswith("127.") or host in ("localhost", "::1") or host.startswith("/")
        ):
            raise AssertionError(f"test tried to reach the network: {address!r}")
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)


@pytest.fixture
def settings(tmp_path, monkeypatch, backend):
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CAIM_PROVIDER", "CAIM_MODEL", "CAIM_BASE_URL", "CAIM_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    return Settings(data_dir=tmp_path / "data", _env_file=None, **backend)


@pytest.fixture
def scripted():
    """(models per role, shared call log) answering from ``tests.scripts.SCRIPT``; tests may edit the table."""
    script = dict(SCRIPT)
    models, calls = scripted_models(script)
    return models, calls, script


@pytest.fixture
def memory(settings, scripted):
    """A ``Memory`` on ``settings`` answering from the scripted table (``scripted``)."""
    models, _calls, _script = scripted
    m = Memory(settings, models=models)
    yield m
    m.close()


@pytest.fixture
def agent(settings, scripted):
    models, _calls, _script = scripted
    a = CaimAgent(settings, models=models)
    yield a
    a.close()


@pytest.fixture
def deployment_auth(monkeypatch):
    """``load(tokens)``: CAIM_AUTH_TOKENS set to ``tokens`` as the deployment sets it, and
    ``caim.agent.surfaces.auth`` loaded afresh under it (the module reads the map once, on import); the
    module imported before is put back after the test."""
    import importlib.util
    import json
    import sys

    import caim.agent.surfaces

    def load(tokens: dict[str, str]):
        monkeypatch.setenv("CAIM_AUTH_TOKENS", json.dumps(tokens))
        spec = importlib.util.find_spec("caim.agent.surfaces.auth")
        assert spec is not None and spec.loader is not None
        fresh = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(fresh)
        monkeypatch.setitem(sys.modules, "caim.agent.surfaces.auth", fresh)
        monkeypatch.setattr(caim.agent.surfaces, "auth", fresh, raising=False)
        return fresh

    return load


@pytest.fixture
def served_cli(tmp_path, monkeypatch):
    """A serving ``caim`` command in-process (typer's CliRunner) with the scripted provider on a temporary
    data dir, ``caim.agent.surfaces.auth`` read afresh; ``uvicorn.run`` records its app instead of serving.
    ``invoke(args, env)`` returns the result and the list of recorded starts."""
    import json
    import sys

    import uvicorn
    from typer.testing import CliRunner

    import caim.agent.surfaces
    from caim.agent.surfaces.cli import app

    script = tmp_path / "script.json"
    script.write_text(json.dumps({k: v for k, v in SCRIPT.items() if isinstance(v, str | dict)}))
    for var in [v for v in os.environ if v.startswith(("CAIM_", "OPENAI_"))]:
        monkeypatch.delenv(var)
    monkeypatch.setenv("CAIM_PROVIDER", "scripted")
    monkeypatch.setenv("CAIM_SCRIPT", str(script))
    monkeypatch.setenv("CAIM_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delitem(sys.modules, "caim.agent.surfaces.auth", raising=False)  # read CAIM_AUTH_TOKENS afresh
    monkeypatch.delattr(caim.agent.surfaces, "auth", raising=False)
    started: list[dict] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: started.append({"app": app, **kw}))

    def invoke(args: list[str], env: dict[str, str] | None = None):
        return CliRunner().invoke(app, args, env=env, catch_exceptions=False), started

    return invoke
