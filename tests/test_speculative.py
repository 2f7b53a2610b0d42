"""The answer drafted beside the decisions (``speculative_answer``): it stands only when the decided
prompt is the one it was started with, and a dropped draft costs no correctness - the reply is then
the one the decided prompt gets. Also the draft itself (``caim.core.llm.AnswerDraft``) and its book."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest
from langchain_core.messages import HumanMessage

from caim.agent import CaimAgent
from caim.core.llm import LLM, DraftBook
from caim.core.models import Models
from caim.core.scripted import scripted_models
from caim.core.settings import Settings
from caim.core.trace import llm_calls, steps
from caim.graph.env import Env
from caim.graph.policies import get_policy
from caim.graph.retrieval import filter_relevant
from caim.graph.state import Context, EarlyFilter, State
from caim.graph.steps import EarlyFilterStep

ASK = "What did I tell you about food? Do you remember?"


def tell(agent: CaimAgent) -> None:
    agent.chat("Hi! My favourite food is pizza.", user_id="ann", at="2023-04-27T09:00:00")
    agent.chat("I love hiking in the mountains.", user_id="ann", at="2023-04-27T09:05:00")
    agent.end_session(user_id="ann", at="2023-04-27T10:00:00")


def make(settings, scripted, **changes) -> CaimAgent:
    models, _, _ = scripted
    return CaimAgent(
        settings.model_copy(update={"speculative_answer": True, "early_answer": False, **changes}), models=models
    )


def answers(agent: CaimAgent) -> list:
    return llm_calls(agent.state("ann")["trace"], "respond")


def test_a_draft_confirmed_by_plan_and_filter_is_the_answer(settings, scripted):
    _, calls, _ = scripted
    with make(settings, scripted) as agent:
        tell(agent)
        calls.clear()
        r = agent.chat(ASK, user_id="ann", at="2023-04-28T09:00:00")
        [answer] = answers(agent)
        assert answer.get("draft") is True and not answer.get("discarded")
        assert [c["role"] for c in calls].count("respond") == 1  # the draft was the only answer call
        assert r.route == "ltm" and any("pizza" in m["thought"] for m in r.memories)
        assert "pizza" in r.text  # the scripted answer quotes the memories its prompt showed
        assert steps(r.trace, "search", EarlyFilterStep)[-1]["drafted"] is True


def test_a_draft_is_dropped_when_the_filter_keeps_nothing(settings, scripted):
    _, calls, script = scripted
    with make(settings, scripted, keep_similarity=1.01) as agent:  # no code floor: only the filter keeps
        tell(agent)
        script["relevance"] = {"relevant": []}
        calls.clear()
        r = agent.chat(ASK, user_id="ann", at="2023-04-28T09:00:00")
        drafts = [c for c in answers(agent) if c.get("discarded")]
        used = [c for c in answers(agent) if not c.get("discarded")]
        assert len(drafts) == 1 and len(used) == 1 and not used[0].get("draft")
        assert r.memories == [] and r.text == "I don't remember that."  # the decided prompt's answer
        assert drafts[0]["input_tokens"] > 0  # what the dropped draft cost is counted


def test_a_draft_is_dropped_when_the_plan_says_no_memory(settings, scripted):
    _, _, script = scripted
    with make(settings, scripted, route_rule="model") as agent:  # the model's route alone decides
        tell(agent)
        script["plan"] = {"needs_memory": "no", "memory": "past", "tags": [], "time_expressions": []}
        r = agent.chat(ASK, user_id="ann", at="2023-04-28T09:00:00")
        assert r.route == "none"
        assert [bool(c.get("discarded")) for c in answers(agent)] == [True, False]
        assert r.text.startswith("Reply to:")  # no memory reached the answer


def test_without_the_setting_nothing_is_drafted_and_the_filter_still_runs_beside_the_plan(settings, scripted):
    with make(settings, scripted, speculative_answer=False) as agent:
        tell(agent)
        r = agent.chat(ASK, user_id="ann", at="2023-04-28T09:00:00")
        [answer] = answers(agent)
        assert not answer.get("draft")
        assert [c["node"] for c in llm_calls(r.trace, "relevance")] == ["search"]
        assert steps(r.trace, "search", EarlyFilterStep)[-1]["drafted"] is False


def test_the_filter_runs_again_on_candidates_it_did_not_see_beside_the_plan(settings, scripted):
    """When the plan's tags or time expressions change the candidates, the early decision covers only
    some of them: the filter is asked again, after the plan (never a guess for the unseen ones)."""
    _, calls, _ = scripted
    with make(settings, scripted) as agent:
        tell(agent)
        agent.chat("I cook Thai food every Sunday.", user_id="ann", at="2023-04-27T11:00:00")
        agent.end_session(user_id="ann", at="2023-04-27T12:00:00")
        r = agent.chat(ASK, user_id="ann", at="2023-04-28T09:00:00")
        assert len(r.candidates) >= 2  # two memories about food reach the relevance floor
        svc = agent.services
        env = Env(svc, svc.settings, Context(user_id="ann"), datetime.now(UTC), "filter_relevant")
        state: State = {"messages": [HumanMessage(ASK)], "candidates": r.candidates}
        policy = get_policy("caim")
        seen_all: EarlyFilter = {"seen": [c["id"] for c in r.candidates], "kept": [r.candidates[1]["id"]]}
        calls.clear()
        out = filter_relevant({**state, "early": seen_all}, env, policy)
        assert calls == [] and r.candidates[1] in out["memories"]  # the early decision, no call
        seen_one: EarlyFilter = {"seen": [r.candidates[0]["id"]], "kept": []}
        out = filter_relevant({**state, "early": seen_one}, env, policy)
        assert [c["role"] for c in calls] == ["relevance"]  # asked again on all the candidates
        assert any("pizza" in m["thought"] for m in out["memories"])


# ---- the draft itself ------------------------------------------------------------------------------


def llm_for(script: dict) -> LLM:
    models, _ = scripted_models(script)
    return LLM(Models(Settings(_env_file=None), overrides=models))  # type: ignore[call-arg]


def test_take_replays_the_buffered_pieces_and_records_one_call():
    llm = llm_for({"respond": "one two three four"})
    draft = llm.draft("respond", [HumanMessage("hi")])
    time.sleep(0.2)  # the whole answer is buffered before anyone takes it
    pieces: list[str] = []
    trace: list = []
    assert draft.take(pieces.append, trace=trace, node="respond") == "one two three four"
    assert "".join(pieces) == "one two three four"
    [entry] = trace
    assert entry["draft"] is True and entry["output_tokens"] > 0 and "started" in entry


def test_cancel_records_a_discarded_call_and_a_failed_draft_gives_none():
    llm = llm_for({"respond": "some answer"})
    trace: list = []
    llm.draft("respond", [HumanMessage("hello there")]).cancel(trace=trace, node="respond")
    assert trace[0]["discarded"] is True and trace[0]["input_tokens"] > 0

    def boom(messages, rf):
        raise RuntimeError("the endpoint fell over")

    failed = llm_for({"respond": boom}).draft("respond", [HumanMessage("hi")])
    out: list = []
    assert failed.take(out.append, trace=[], node="respond") is None and out == []


def test_the_book_gives_each_draft_once_and_cancels_drafts_nobody_took():
    llm = llm_for({"respond": "x"})
    book = DraftBook(ttl=0.0)
    first = book.put(llm.draft("respond", [HumanMessage("a")]))
    time.sleep(0.01)
    second = book.put(llm.draft("respond", [HumanMessage("b")]))  # sweeps the stale first one
    assert book.pop(first) is None
    assert book.pop(second) is not None and book.pop(second) is None
    assert book.pop(None) is None and len(book) == 0


@pytest.mark.parametrize("provider,expected", [("openai", True), ("local", False)])
def test_drafting_is_on_for_endpoints_and_off_for_the_bundled_model(provider, expected):
    s = Settings(provider=provider, api_key="x", _env_file=None)  # type: ignore[call-arg]
    assert Models(s).speculative is expected
    assert Models(s.model_copy(update={"speculative_answer": not expected})).speculative is (not expected)
