"""End to end with the real bundled local model (llama.cpp on 127.0.0.1): structure, not wording."""

from __future__ import annotations

import pytest

from caim.agent import CaimAgent, Settings
from caim.core.trace import CodeRoleStep, llm_calls, steps

pytestmark = pytest.mark.integration

ROUTES = {"none", "stm", "ltm", "ltm+stm"}


@pytest.fixture(scope="module")
def local_settings(tmp_path_factory):
    return Settings(provider="local", data_dir=tmp_path_factory.mktemp("local-data"), _env_file=None)


def test_session_post_thinking_and_recall_with_the_bundled_model(local_settings):
    with CaimAgent(local_settings) as first:
        r1 = first.chat(
            "Hi, my name is Emily and my favourite food is pizza.", user_id="emily", at="2023-04-27T09:00:00"
        )
        r2 = first.chat(
            "I love painting and I play the piano every evening.", user_id="emily", at="2023-04-27T09:04:00"
        )
        for r in (r1, r2):
            assert r.route in ROUTES and r.text.strip()
            calls = llm_calls(r.trace)
            assert calls and all(e["input_tokens"] > 0 for e in calls)
        summary = first.end_session(user_id="emily", at="2023-04-27T10:00:00")
        records = first.memories("emily")
        assert records, "post-thinking stored nothing"
        said = {
            "Hi, my name is Emily and my favourite food is pizza.",
            "I love painting and I play the piano every evening.",
        }
        covered = {s.text for rec in records for s in rec.sources if s.role == "user" and not s.context}
        assert covered == said, summary.trace  # both fact-stating turns are remembered, extraction or not
        onto = first.services.ontology.current
        for rec in records:
            assert 1 <= len(rec.tags) <= 3 and all(t in onto for t in rec.tags)
            assert rec.event_time.date().isoformat() == "2023-04-27"
            # the user's turn is its source - or, for a reply kept as the assistant's words, its context
            assert any(s.text in said for s in rec.sources if s.role == "user")
    # a second agent on the same data dir: the records are there and retrieval runs over them
    with CaimAgent(local_settings.model_copy(update={"policy": "always"})) as second:
        assert len(second.memories("emily")) == len(records)
        r = second.chat(
            "What did I tell you yesterday about my favourite food?", user_id="emily", at="2023-04-28T09:00:00"
        )
        assert r.route == "ltm+stm" and r.text.strip()
        # "yesterday" is resolved in code whatever the model says, so every record of that day is a candidate
        assert any(x["start"].startswith("2023-04-27") for x in r.time_ranges)
        fetched = [c["id"] for c in r.candidates]
        assert set(fetched) == {rec.id for rec in records}
        kept = [m["id"] for m in r.memories]
        assert set(kept) <= set(fetched)


def test_the_bundled_model_is_skipped_where_code_beat_it(local_settings):
    with CaimAgent(local_settings) as agent:
        r = agent.chat("What did I tell you about my sister?", user_id="probe", at="2023-05-01T09:00:00")
        assert "plan" not in {e["role"] for e in llm_calls(r.trace)}  # the shipped probe record: plan on code
        assert {"role": "plan", "use": "code"} in steps(r.trace, "controller", CodeRoleStep)
        assert r.route == "ltm+stm" and r.text.strip()  # the code signals route it to memory


def test_plan_and_cascade_with_the_bundled_model_give_valid_decisions(local_settings):
    with CaimAgent(local_settings.model_copy(update={"use_model_for": ["all"]})) as agent:
        r = agent.chat("What is the capital of France?", user_id="probe", at="2023-05-01T09:00:00")
        assert r.decisions["needs_memory"] in ("yes", "no") and r.decisions["memory"] in ("past", "current", "both")
        assert not any(e.get("fallback") for e in llm_calls(r.trace))  # constrained: never a fallback
        assert r.route in ROUTES
        r = agent.chat(
            "What is the capital of France?", user_id="probe", at="2023-05-01T09:01:00", policy="caim-cascade"
        )
        cascade = {k: v for k, v in r.decisions.items() if k != "rule"}
        assert cascade and all(v in ("A", "B") for v in cascade.values())
        assert r.route in ROUTES


def test_a_first_session_with_the_bundled_model_stores_only_what_was_said(tmp_path):
    marta = "Hi! I'm Marta. I just moved to Porto and I'm learning to surf with my friend Joana."
    with CaimAgent(Settings(provider="local", data_dir=tmp_path / "d", _env_file=None)) as agent:
        replies = [agent.chat(m, user_id="marta").text for m in (marta, "What's a good beginner surf spot?")]
        agent.end_session(user_id="marta")
        records = agent.memories("marta")
    said = [" ".join(t.split()) for t in (marta, *replies)]
    assert [r.thought for r in records if r.speaker != "assistant"] == [marta]  # her words, nothing invented
    assert all(any(r.thought.removesuffix(" …") in s for s in said) for r in records)  # every memory was said
