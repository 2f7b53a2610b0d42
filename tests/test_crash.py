"""Idempotent post-thinking: the process is killed (SIGKILL) at each step of post-thinking, then
started again - everything is stored, nothing twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from caim.core.faults import POINTS

# Two sessions: the second repeats a fact of the first (merged by maintenance) and adds one.
SCRIPT = {
    "plan": {"needs_memory": "no", "memory": "past", "tags": [], "time_expressions": []},
    "respond": "ok",
    "key_events": {
        "events": [
            {"turn": 1, "event": "The user's favourite food is pizza."},
            {"turn": 2, "event": "The user plays the piano every evening."},
        ]
    },
    "thoughts": {"thoughts": [], "new_terms": []},
    "maintain": {"decisions": []},
}

RUN = textwrap.dedent(
    """
    import json, sys
    from caim.agent import CaimAgent, Settings
    step, day = sys.argv[1], sys.argv[2]
    with CaimAgent(Settings(), background=False) as agent:
        if step == "chat":
            agent.chat("My favourite food is pizza.", user_id="ann", at=f"2023-04-{day}T09:00:00")
            agent.chat("I play the piano every evening.", user_id="ann", at=f"2023-04-{day}T09:05:00")
        elif step == "end":
            agent.end_session(user_id="ann", at=f"2023-04-{day}T10:00:00")
        elif step == "end-if-open":
            if agent.state("ann").get("messages"):
                agent.end_session(user_id="ann", at=f"2023-04-{day}T10:00:00")
        print(json.dumps(sorted((r.id, r.thought) for r in agent.memories("ann"))))
    """
)


def run(env, step, day, point=None):
    e = dict(env)
    if point:
        e["CAIM_FAULT_POINT"] = point
    return subprocess.run([sys.executable, "-c", RUN, step, day], capture_output=True, text=True, env=e, timeout=180)


@pytest.fixture
def env(tmp_path, backend):
    (tmp_path / "script.json").write_text(json.dumps(SCRIPT))
    e = {k: v for k, v in os.environ.items() if not k.startswith(("CAIM_", "OPENAI_"))}
    e.update(
        {
            "CAIM_PROVIDER": "scripted",
            "CAIM_SCRIPT": str(tmp_path / "script.json"),
            "CAIM_DATA_DIR": str(tmp_path / "data"),
        }
    )
    e.update({f"CAIM_{k.upper()}": v for k, v in backend.items()})  # the server backend, if this run uses it
    return e


def session(env, day, point=None):
    assert run(env, "chat", day).returncode == 0
    return run(env, "end", day, point)


def reference(tmp_path, env):
    """What uninterrupted runs store: two sessions, the second repeating the first's facts."""
    clean = {k: v for k, v in env.items() if not k.endswith(("_URL", "NAMESPACE"))}
    clean["CAIM_DATA_DIR"] = str(tmp_path / "clean")
    assert session(clean, "27").returncode == 0
    done = session(clean, "28")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("point", POINTS)
def test_killed_at_each_step_then_restarted_stores_everything_exactly_once(tmp_path, env, point):
    expected = reference(tmp_path, env)
    assert len(expected) == 2  # the repeated facts were merged
    assert session(env, "27").returncode == 0
    killed = session(env, "28", point)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    again = run(env, "end-if-open", "28")  # the session is still open unless its reset was checkpointed
    assert again.returncode == 0, again.stderr
    stored = json.loads(again.stdout)
    assert sorted(t for _, t in stored) == sorted(t for _, t in expected)  # session ids differ between runs
    twice = run(env, "end", "28")  # a duplicate request on the (closed) session changes nothing
    assert json.loads(twice.stdout) == stored
