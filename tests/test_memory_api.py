"""``caim.Memory``: the memory without an answer model - recall, remember, search, add, admin - and
its subgraphs as parts of someone else's graph."""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langgraph.graph import START, StateGraph
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict

from caim import CaimAgent, InputError, Memory
from caim.agent.memory import Recall
from caim.graph.builder import build_post_thinking_graph, build_recall_graph
from caim.graph.state import Context

SESSION = [
    {"role": "user", "content": "My sister Ana lives in Lisbon.", "time": "2024-05-07T10:00:00"},
    {"role": "assistant", "content": "Lisbon is lovely in spring.", "time": "2024-05-07T10:00:05"},
    {"role": "user", "content": "I love hiking in the mountains.", "time": "2024-05-07T10:01:00"},
    {"role": "assistant", "content": "Which mountains?"},
]


def test_remember_stores_what_was_said_with_its_dates_once(memory):
    summary = memory.remember(SESSION, user_id="marta", background=False)
    thoughts = sorted(r["thought"] for r in summary.stored)
    assert thoughts == ["I love hiking in the mountains.", "My sister Ana lives in Lisbon."]
    records = memory.list(user_id="marta")
    assert sorted(r.event_time.isoformat() for r in records) == [
        "2024-05-07T10:00:00+00:00",
        "2024-05-07T10:01:00+00:00",
    ]
    memory.remember(SESSION, user_id="marta", background=False)  # the same messages again
    assert sorted(r.id for r in memory.list(user_id="marta")) == sorted(r.id for r in records)
    assert memory.list(user_id="somebody-else") == []


def test_remember_in_the_background_is_queued_and_done(memory):
    summary = memory.remember(SESSION[:2], user_id="marta")
    assert summary.job and summary.stored == []
    done = memory.wait(summary.job, timeout=60)
    assert done is not None and [r["thought"] for r in done.stored] == ["My sister Ana lives in Lisbon."]
    assert memory.pending(user_id="marta") == []


def test_langchain_messages_and_pairs_are_remembered_too(memory):
    msgs: list[Any] = [HumanMessage("I am a nurse in Porto.", id="m1"), AIMessage("That's demanding work.", id="m2")]
    memory.remember(msgs, user_id="joana", background=False)
    memory.remember([("user", "My cat is called Miso.")], user_id="joana", background=False)
    assert sorted(r.thought for r in memory.list(user_id="joana")) == [
        "I am a nurse in Porto.",
        "My cat is called Miso.",
    ]


def test_search_ranks_without_a_model(memory, scripted):
    _models, calls, _script = scripted
    memory.remember(SESSION, user_id="marta", background=False)
    calls.clear()
    hits = memory.search("Where does Ana live?", user_id="marta", k=2)
    assert hits[0]["thought"] == "My sister Ana lives in Lisbon."
    assert hits[0]["scores"]["total"] >= hits[-1]["scores"]["total"]
    assert calls == []


def test_recall_gives_the_route_the_kept_memories_and_a_quoted_prompt_block(memory):
    memory.remember(SESSION, user_id="marta", background=False)
    got = memory.recall("Do you remember where my sister lives?", user_id="marta", at="2024-06-01T09:00:00")
    assert isinstance(got, Recall) and "ltm" in got.route
    assert [m["thought"] for m in got.memories][:1] == ["My sister Ana lives in Lisbon."]
    assert got.prompt.startswith("Text inside <data> tags") and '"My sister Ana lives in Lisbon."' in got.prompt
    assert "7 May 2024" in got.prompt and got.signals and got.decisions
    general = memory.recall("What is the capital of France?", user_id="marta")
    assert general.route == "none" and general.prompt == "" and general.memories == []


def test_recall_asks_no_answer_of_any_model(settings, scripted, tmp_path):
    models, calls, _script = scripted
    drafting = settings.model_copy(update={"speculative_answer": True, "data_dir": tmp_path / "drafting"})
    with Memory(drafting, models=models) as memory:
        memory.remember(SESSION, user_id="marta", background=False)
        calls.clear()
        got = memory.recall("Do you remember where my sister lives?", user_id="marta")
    assert got.memories and calls
    assert "respond" not in {c["role"] for c in calls}  # caim's own answer is never drafted for recall


def test_recall_reads_the_history_it_is_given(memory):
    history = [("user", "I just said I like tea."), ("assistant", "Noted, tea.")]
    got = memory.recall("Did I tell you what I just said I like?", user_id="marta", history=history)
    assert got.route in ("stm", "ltm+stm")


def test_add_stores_a_stated_fact_that_code_alone_would_not_call_one(memory, scripted):
    _models, _calls, script = scripted
    script["key_events"] = {"events": []}  # the model finds nothing: the words are kept
    summary = memory.add("Ana's birthday is on 12 March.", user_id="marta", at="2024-02-01T08:00:00")
    assert [r["thought"] for r in summary.stored] == ["Ana's birthday is on 12 March."]
    (record,) = memory.list(user_id="marta")
    assert record.event_time.isoformat() == "2024-02-01T08:00:00+00:00"
    memory.add("Ana's birthday is on 12 March.", user_id="marta", at="2024-02-01T08:00:00")
    assert len(memory.list(user_id="marta")) == 1


def test_admin_get_history_export_import_forget(memory):
    memory.remember(SESSION, user_id="marta", background=False)
    rec = memory.list(user_id="marta")[0]
    assert memory.get(rec.id, user_id="marta") == rec
    assert memory.get(rec.id, user_id="bob") is None
    assert memory.history(rec.id, user_id="marta")[0]["change"] in ("created", "captured")
    dump = memory.export(user_id="marta")
    assert {m["id"] for m in dump["memories"]} == {r.id for r in memory.list(user_id="marta")}
    assert memory.forget(rec.id, user_id="bob") is False
    assert memory.forget(rec.id, user_id="marta") is True and memory.get(rec.id, user_id="marta") is None
    memory.import_(dump, user_id="marta")
    assert memory.get(rec.id, user_id="marta") == rec
    assert memory.forget_all(user_id="marta") == 2 and memory.list(user_id="marta") == []


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda m: m.recall("x" * 16_001, user_id="marta"), "at most 16000"),
        (lambda m: m.remember([{"role": "user", "content": "hi", "time": "0001-01-01"}], user_id="marta"), "range"),
        (lambda m: m.remember([{"role": "wizard", "content": "hi"}], user_id="marta"), "unknown message role"),
        (lambda m: m.remember([{"role": "user"}], user_id="marta"), "text content"),
        (lambda m: m.search("hi", user_id="marta", k=0), "k must be"),
        (lambda m: m.add("hi", user_id=""), "user id is required"),
        (lambda m: m.recall("hi", user_id="marta", policy="bogus"), "unknown memory policy"),
    ],
)
def test_bad_input_is_one_line_and_stores_nothing(memory, call, words):
    with pytest.raises(InputError, match=words):
        call(memory)
    assert memory.list(user_id="marta") == [] and memory.pending(user_id="marta") == []


async def test_async_twins(memory):
    await memory.aremember(SESSION, user_id="marta", background=False)
    hits = await memory.asearch("hiking", user_id="marta", k=1)
    got = await memory.arecall("Do you remember what I love?", user_id="marta")
    assert hits[0]["thought"] == "I love hiking in the mountains."
    assert "I love hiking in the mountains." in [m["thought"] for m in got.memories]
    assert len(await memory.alist(user_id="marta")) == 2


def test_caim_agent_chats_on_a_memory(memory, settings):
    memory.add("My favourite food is pizza.", user_id="marta")
    with CaimAgent(settings, memory=memory) as agent:
        reply = agent.chat("Do you remember my favourite food?", user_id="marta")
        assert "pizza" in reply.text and reply.memories
        assert agent.memories("marta") == memory.list(user_id="marta")


class HostState(TypedDict, total=False):
    """A developer's own graph state: messages in; caim's recall keys out."""

    messages: Annotated[list[AnyMessage], add_messages]
    memory_prompt: str
    memories: list
    route: str
    seen: str


def test_the_subgraphs_are_nodes_of_another_graph(memory):
    memory.remember(SESSION, user_id="marta", background=False)
    host = StateGraph(HostState, context_schema=Context)
    host.add_node("recall", build_recall_graph(memory.services))
    host.add_node("answer", lambda state: {"seen": state["memory_prompt"]})
    host.add_edge(START, "recall")
    host.add_edge("recall", "answer")
    out = host.compile().invoke(
        {"messages": [HumanMessage("Do you remember where my sister lives?")]}, context=Context(user_id="marta")
    )
    assert "ltm" in out["route"] and "Ana lives in Lisbon" in out["seen"]
    assert [m.text for m in out["messages"]] == ["Do you remember where my sister lives?"]

    post = build_post_thinking_graph(memory.services)
    done = post.invoke(
        {"messages": [HumanMessage("I play the cello.", additional_kwargs={"caim_time": "2024-06-01T10:00:00"})]},
        context=Context(user_id="marta"),
    )
    assert [r["thought"] for r in done["stored"]] == ["I play the cello."]


def test_only_the_answer_streams_as_messages(memory, settings):
    memory.remember(SESSION, user_id="marta", background=False)
    with CaimAgent(settings, memory=memory) as agent:
        config = agent._config(agent.thread_id("marta"))
        parts = list(
            agent.graph.stream(
                {"messages": [HumanMessage("Do you remember where my sister lives?")]},
                config,
                context=agent._context("marta", None),
                stream_mode="messages",
                subgraphs=True,
            )
        )
    nodes = {meta["langgraph_node"] for _ns, (_chunk, meta) in parts}
    assert nodes == {"respond"}  # the plan's and the filter's JSON never reach a caller
