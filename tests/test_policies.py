"""Each shipped memory policy decides as specified; an outside policy can be registered and used."""

from __future__ import annotations

import pytest

from caim.agent import InputError
from caim.core.trace import llm_calls
from caim.graph.policies import POLICIES, CaimPolicy, get_policy, register_policy
from tests.test_graph import roles, tell_and_end

QUESTION = "Do you remember my favourite food?"


def ask(agent, policy, text=QUESTION):
    return agent.chat(text, user_id="ann", at="2023-04-28T09:00:00", policy=policy)


def test_caim_plans_in_one_call_and_filters(agent, scripted):
    tell_and_end(agent)
    _, calls, _ = scripted
    calls.clear()
    r = ask(agent, "caim")
    assert r.route == "ltm" and sorted(roles(calls)) == ["plan", "relevance", "respond"]
    assert roles(calls)[-1] == "respond"
    assert ask(agent, "caim", "What is the capital of France?").route == "none"


def test_cascade_is_the_papers_controller_step_by_step(agent, scripted):
    tell_and_end(agent)
    _, calls, _ = scripted
    calls.clear()
    r = ask(agent, "caim-cascade")
    assert r.route == "ltm"
    assert r.decisions["needs_memory"] == "A" and r.decisions["needs_both"] == "B" and r.decisions["past_only"] == "A"
    assert roles(calls) == ["controller", "controller", "controller", "tags", "time", "relevance", "respond"]
    tag_call = next(c for c in calls if c["role"] == "tags")
    enum = tag_call["response_format"]["json_schema"]["schema"]["properties"]["tags"]["items"]["enum"]
    assert set(enum) == set(agent.services.ontology.current.tags)  # the whole ontology, as in the paper


def test_always_skips_the_controller(agent):
    tell_and_end(agent)
    r = ask(agent, "always", "What is the capital of France?")
    assert r.route == "ltm+stm"
    assert not llm_calls(r.trace, "plan") and not llm_calls(r.trace, "controller")
    assert r.candidates


def test_no_filter_keeps_the_best_ranked_without_a_filter_call(agent, scripted):
    tell_and_end(agent)
    _, _, script = scripted
    script["relevance"] = {"relevant": []}  # the filter would drop all but the floor
    r = ask(agent, "no-filter")
    assert not llm_calls(r.trace, "relevance")
    assert r.candidates and r.memories == r.candidates[: agent.settings.max_kept]


def test_single_call_makes_one_model_call_per_turn(agent, scripted):
    tell_and_end(agent)
    _, calls, _ = scripted
    calls.clear()
    r = ask(agent, "single-call")
    assert roles(calls) == ["respond"]
    assert r.route == "ltm+stm" and any("pizza" in m["thought"] for m in r.memories)
    assert ask(agent, "single-call", "What is the capital of France?").route == "none"


def test_dense_baseline_takes_the_nearest_records_every_turn(agent, scripted):
    tell_and_end(agent)
    _, calls, _ = scripted
    calls.clear()
    r = ask(agent, "dense", "What is the capital of France?")
    assert r.route == "ltm+stm" and roles(calls) == ["respond"]
    assert r.candidates and all(set(c["scores"]) <= {"total", "dense"} for c in r.candidates)


def test_none_uses_and_stores_no_memory(agent):
    tell_and_end(agent)
    before = len(agent.memories("ann"))
    r = ask(agent, "none")
    assert r.route == "none" and r.memories == [] and not llm_calls(r.trace)[:-1]
    agent.chat("My favourite drink is tea.", user_id="ann", policy="none")
    summary = agent.end_session(user_id="ann", policy="none")
    assert summary.stored == [] and len(agent.memories("ann")) == before


def test_unknown_policy_is_a_clear_error(agent):
    with pytest.raises(InputError, match="unknown memory policy 'nope'"):
        ask(agent, "nope")
    assert agent.state("ann")["messages"] == []  # refused before anything was stored


def test_policy_defined_outside_the_package_can_be_registered(agent):
    class RecentOnly(CaimPolicy):
        """Always LTM, looking for what was said last week."""

        name = "recent-only"

        def plan(self, state, env, shortlist):
            return {
                "route": "ltm",
                "decisions": {"controller": "recent-only"},
                "tags": [],
                "time_expressions": ["last week"],
                "model": True,
            }

    register_policy(RecentOnly())
    try:
        assert get_policy("recent-only").name == "recent-only"
        tell_and_end(agent)
        r = agent.chat("hello", user_id="ann", at="2023-04-30T09:00:00", policy="recent-only")
        assert r.route == "ltm"
        assert any(x["expression"] == "last week" for x in r.time_ranges)
        assert all("range" in c["scores"] for c in r.candidates[:2])
    finally:
        POLICIES.pop("recent-only", None)
