"""Each shipped memory policy routes as specified; an outside policy can be registered and used."""

from __future__ import annotations

import pytest

from caim.agent import ConfigError
from caim.graph.policies import POLICIES, CaimPolicy, get_policy, register_policy
from tests.test_graph import llm_calls, steps, tell_and_end

QUESTION = "Do you remember my favourite food?"


def ask(agent, policy, text=QUESTION):
    return agent.chat(text, user_id="ann", at="2023-04-28T09:00:00", policy=policy)


def test_caim_policy_uses_the_controller_cascade_and_filter(agent):
    tell_and_end(agent)
    r = ask(agent, "caim")
    assert r.route == "ltm"
    assert llm_calls(r.trace, "controller") and llm_calls(r.trace, "relevance")
    general = ask(agent, "caim", "What is the capital of France?")
    assert general.route == "none"


def test_always_skips_the_controller(agent):
    tell_and_end(agent)
    r = ask(agent, "always", "What is the capital of France?")
    assert r.route == "ltm+stm"
    assert not llm_calls(r.trace, "controller")
    assert steps(r.trace, "fetch_candidates")


def test_no_filter_keeps_every_candidate_without_a_filter_call(agent, scripted):
    tell_and_end(agent)
    _, _, script = scripted
    script["relevance"] = {"relevant": []}  # the filter would drop everything
    assert ask(agent, "caim").memories == []
    r = ask(agent, "no-filter")
    assert not llm_calls(r.trace, "relevance")
    fetched = steps(r.trace, "fetch_candidates")[0]["ids"]
    assert fetched and [m["id"] for m in r.memories] == fetched[: agent.settings.max_kept]


def test_none_uses_and_stores_no_memory(agent):
    tell_and_end(agent)
    before = len(agent.memories("ann"))
    r = ask(agent, "none")
    assert r.route == "none" and r.memories == [] and not llm_calls(r.trace, "controller")
    agent.chat("My favourite drink is tea.", user_id="ann", policy="none")
    summary = agent.end_session(user_id="ann", policy="none")
    assert summary.stored == [] and len(agent.memories("ann")) == before


def test_single_call_plans_in_one_round_trip(agent, scripted):
    tell_and_end(agent)
    _, calls, _ = scripted
    calls.clear()
    r = ask(agent, "single-call")
    roles = [c["role"] for c in calls]
    assert roles.count("single_call") == 1
    assert "controller" not in roles and "tags" not in roles and "time" not in roles
    assert r.route == "ltm"
    assert steps(r.trace, "select_tags")[0]["tags"] == ["food"]
    assert any("pizza" in m["thought"] for m in r.memories)


def test_unknown_policy_is_a_clear_error(agent):
    with pytest.raises(ConfigError, match="unknown memory policy 'nope'"):
        ask(agent, "nope")


def test_policy_defined_outside_the_package_can_be_registered(agent):
    class RecentOnly(CaimPolicy):
        """Always LTM, no tags: fetch by time only (the last week)."""

        name = "recent-only"

        def route(self, state, env):
            return "ltm", {"controller": "recent-only"}

        def select_tags(self, state, env):
            return []

        def time_expressions(self, state, env):
            return ["last week"]

    register_policy(RecentOnly())
    try:
        assert get_policy("recent-only").name == "recent-only"
        tell_and_end(agent)
        r = ask(agent, "recent-only", "hello")
        assert r.route == "ltm"
        assert steps(r.trace, "resolve_time")[0]["ranges"][0]["expression"] == "last week"
        assert len(steps(r.trace, "fetch_candidates")[0]["ids"]) == 2
    finally:
        POLICIES.pop("recent-only", None)
