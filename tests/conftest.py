"""Shared fixtures: a scripted-model agent on a temporary data dir, and a no-network guard."""

from __future__ import annotations

import socket

import pytest

from caim.agent import CaimAgent, Settings
from caim.core.scripted import scripted_models
from tests.scripts import SCRIPT


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
def settings(tmp_path, monkeypatch):
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CAIM_PROVIDER", "CAIM_MODEL", "CAIM_BASE_URL", "CAIM_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    return Settings(data_dir=tmp_path / "data", _env_file=None)


@pytest.fixture
def scripted():
    """(models per role, shared call log) answering from ``tests.scripts.SCRIPT``; tests may edit the table."""
    script = dict(SCRIPT)
    models, calls = scripted_models(script)
    return models, calls, script


@pytest.fixture
def agent(settings, scripted):
    models, _calls, _script = scripted
    a = CaimAgent(settings, models=models)
    yield a
    a.close()
