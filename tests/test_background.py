"""Post-thinking off the reply path: background end of session, durable queue, order, idle timer."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

from caim.agent import CaimAgent
from tests.scripts import SCRIPT


def test_background_end_returns_at_once_and_the_worker_stores_the_session(agent):
    agent.chat("My favourite food is pizza.", user_id="ann", at="2023-04-27T09:00:00")
    summary = agent.end_session(user_id="ann", background=True)
    assert summary.job and summary.stored == []
    assert agent.state("ann")["messages"] == []  # the user may chat on at once: a new session
    done = agent.wait(summary.job)
    assert done is not None and len(done.stored) == 1
    [rec] = agent.memories("ann")
    assert "pizza" in rec.thought and rec.event_time.isoformat().startswith("2023-04-27T09:00")
    assert agent.pending_sessions() == []


def test_sessions_of_one_user_are_processed_in_order_and_never_twice(agent, scripted):
    _, calls, _ = scripted
    agent.chat("My favourite food is pizza.", user_id="ann", at="2023-04-27T09:00:00")
    first = agent.end_session(user_id="ann", background=True)
    agent.chat("I love jazz.", user_id="ann", at="2023-04-28T09:00:00")
    second = agent.end_session(user_id="ann", background=True)
    agent.wait()
    events = [c for c in calls if c["role"] == "key_events"]
    assert len(events) == 2  # each session once
    assert "pizza" in str(events[0]["messages"][-1].content) and "jazz" in str(events[1]["messages"][-1].content)
    assert agent.wait(first.job).stored and agent.wait(second.job).stored
    assert len(agent.memories("ann")) == 2


def test_an_empty_session_queues_nothing(agent):
    assert agent.end_session(user_id="nobody", background=True).job == ""


def test_idle_timeout_fires_on_a_timer(settings, scripted):
    models, _, _ = scripted
    with CaimAgent(settings, models=models, idle_timeout=0.3) as a:
        a.chat("My favourite food is pizza.", user_id="ann")
        deadline = time.monotonic() + 20
        while not a.memories("ann") and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(a.memories("ann")) == 1  # no further turn was needed
        assert a.state("ann")["messages"] == []


CHILD = textwrap.dedent(
    """
    import os, signal, sys
    from caim.agent import CaimAgent, Settings
    agent = CaimAgent(Settings(), background=False)  # queue only: this process runs no worker
    agent.chat("My favourite food is pizza.", user_id="ann", at="2023-04-27T09:00:00")
    agent.chat("I love jazz.", user_id="ann", at="2023-04-27T09:05:00")
    job = agent.end_session(user_id="ann", background=True).job
    print(job, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
    """
)


def test_a_queued_session_survives_a_kill_and_is_resumed_at_the_next_start(tmp_path, monkeypatch, backend):
    script = {k: v for k, v in SCRIPT.items() if not callable(v)}
    script.update(
        {
            "plan": {"needs_memory": "no", "memory": "past", "tags": [], "time_expressions": []},
            "respond": "ok",
            "key_events": {
                "cycle": [
                    {
                        "events": [
                            {"turn": 1, "event": "The user's favourite food is pizza."},
                            {"turn": 2, "event": "The user loves jazz."},
                        ]
                    }
                ]
            },
            "thoughts": {"thoughts": [], "new_terms": []},
            "maintain": {"decisions": []},
        }
    )
    (tmp_path / "script.json").write_text(json.dumps(script))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CAIM_", "OPENAI_"))}
    env.update(
        {
            "CAIM_PROVIDER": "scripted",
            "CAIM_SCRIPT": str(tmp_path / "script.json"),
            "CAIM_DATA_DIR": str(tmp_path / "data"),
        }
    )
    env.update({f"CAIM_{k.upper()}": v for k, v in backend.items()})
    child = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, timeout=120)
    assert child.returncode == -signal.SIGKILL, child.stderr
    job = child.stdout.strip()
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    from caim.agent import Settings

    with CaimAgent(Settings()) as again:  # a new process would do the same at start
        assert again.pending_sessions("ann") == [job] or again.memories("ann")
        again.wait(timeout=60)
        thoughts = sorted(r.thought for r in again.memories("ann"))
        assert thoughts == ["The user loves jazz.", "The user's favourite food is pizza."]
        assert again.pending_sessions() == []
