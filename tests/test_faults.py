"""Endpoint faults against a real HTTP endpoint on loopback (``caim.testing.simulated``): timeouts,
resets, HTTP 429/500, cut streams and malformed answers - bounded retries, then the recorded
fallback; the user's turn is always kept; no half-written records."""

from __future__ import annotations

import pytest

from caim.agent import CaimAgent, EndpointError
from caim.testing.simulated import SimulatedEndpoint, fail_first, minimal_answer

YES = {"needs_memory": "yes", "memory": "past", "tags": [], "time_expressions": []}
EVENTS = {"events": [{"turn": 1, "event": "The user's favourite food is pizza."}]}


@pytest.fixture
def sim_settings(settings):
    def make(endpoint):
        return settings.model_copy(
            update={
                "provider": "openai",
                "base_url": endpoint.base_url,
                "api_key": "sim",
                "model": "simulated",
                "request_timeout": 1.0,
                "retry_backoff": 0.01,
                "endpoint_retries": 2,
            }
        )

    return make


def test_rate_limited_then_answered_is_retried(sim_settings):
    with (
        SimulatedEndpoint({"Plan": YES, "respond": "Pizza!"}, faults=fail_first(1, "429", ("Plan",))) as ep,
        CaimAgent(sim_settings(ep)) as agent,
    ):
        r = agent.chat("Do you remember my favourite food?", user_id="ann")
        assert r.text == "Pizza!" and r.decisions["needs_memory"] == "yes"
        assert ep.roles().count("Plan") == 2  # one 429, one answer


def test_a_failing_planner_leaves_the_route_to_the_code_signals(sim_settings):
    with (
        SimulatedEndpoint({"respond": "ok"}, faults=fail_first(99, "500", ("Plan",))) as ep,
        CaimAgent(sim_settings(ep)) as agent,
    ):
        r = agent.chat("Do you remember my favourite food?", user_id="ann")
        assert r.route == "ltm+stm" and r.text == "ok"
        [plan] = [e for e in r.trace if e.get("role") == "plan"]
        assert plan["fallback"] and "HTTP 500" in plan["error"]
        assert ep.roles().count("Plan") == 3  # bounded: one try and two retries


@pytest.mark.parametrize("fault", ["timeout", "reset", "500"])
def test_when_the_answer_cannot_be_made_the_turn_is_kept_and_the_error_is_one_line(sim_settings, fault):
    with (
        SimulatedEndpoint({"Plan": YES}, faults=fail_first(99, fault, ("respond",)), stall=3) as ep,
        CaimAgent(sim_settings(ep)) as agent,
    ):
        with pytest.raises(EndpointError) as err:
            agent.chat("My favourite food is pizza.", user_id="ann")
        assert "\n" not in str(err.value)
        [kept] = agent.state("ann")["messages"]
        assert kept.content == "My favourite food is pizza."
        ep.faults = None
        agent.chat("And I love jazz.", user_id="ann")  # the endpoint is back: the session goes on
        assert len(agent.state("ann")["messages"]) == 3


def test_a_stream_cut_after_the_first_tokens_is_reported_not_repeated(sim_settings):
    answer = "Pizza is a great favourite food to have, with many toppings."
    with (
        SimulatedEndpoint({"Plan": YES, "respond": answer}, faults=fail_first(1, "truncate", ("respond",))) as ep,
        CaimAgent(sim_settings(ep)) as agent,
    ):
        pieces = []
        with pytest.raises(EndpointError, match="cut off"):
            for piece in agent.stream("Do you remember my favourite food?", user_id="ann"):
                pieces.append(piece)
        assert pieces and "".join(pieces) != answer
        assert agent.state("ann")["messages"][0].content == "Do you remember my favourite food?"
        assert "".join(agent.stream("Tell me again?", user_id="ann")) == answer


@pytest.mark.parametrize("fault", ["reset", "500", "malformed", "timeout"])
def test_post_thinking_with_a_failing_endpoint_stores_the_turns_verbatim(sim_settings, fault):
    table = {
        "Plan": {"needs_memory": "no", "memory": "past", "tags": [], "time_expressions": []},
        "respond": "Nice.",
        "KeyEvents": EVENTS,
    }
    post = ("KeyEvents", "Thoughts", "MaintenancePlan", "Backgrounds", "Principles")
    with SimulatedEndpoint(table, stall=3) as ep, CaimAgent(sim_settings(ep)) as agent:
        agent.chat("My favourite food is pizza.", user_id="ann", at="2023-04-27T09:00:00")
        ep.faults = fail_first(99, fault, post)
        summary = agent.end_session(user_id="ann")
        assert not summary.complete
        [rec] = agent.memories("ann")
        assert rec.kind == "raw" and rec.thought == "My favourite food is pizza."
        assert agent.state("ann")["messages"] == []
        assert all(e.get("fallback") for e in summary.trace if e.get("kind") == "llm")
        # the same session ended again (a duplicate request) stores nothing twice
        agent.record_turns(user_id="ann", turns=[])
        assert len(agent.memories("ann")) == 1


def test_minimal_answers_satisfy_every_role_schema():
    from caim.core.llm import strict_schema
    from caim.prompts import key_events, maintain, plan, relevance, thoughts

    for model in (
        plan.schema(["food"]),
        relevance.schema(3, 2),
        key_events.schema([1, 2]),
        thoughts.schema([1], ["food"], ["food"]),
        maintain.schema([1], [2]),
    ):
        model.model_validate(minimal_answer(strict_schema(model)))
