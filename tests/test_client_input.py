"""What a client sends is checked before anything is stored: over-long messages, bad turn times and
unknown policies are one-line ``InputError``s that leave the session as it was, through the facade
and through the graph itself; an abandoned stream blocks no one and its reply stays in the session."""

from __future__ import annotations

import threading

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from caim.agent.facade import Turn
from caim.core.errors import InputError
from caim.graph.state import REFUSED


def _messages(agent, user="ann"):
    return [(type(m).__name__, str(m.content)) for m in agent.state(user)["messages"]]


def _checkpoint_bytes(agent) -> int:
    """The largest value any checkpoint row of the data dir holds."""
    import sqlite3

    con = sqlite3.connect(str(agent.settings.data_dir / "checkpoints.sqlite"))
    try:
        sizes = [
            sum(len(c) for c in row if isinstance(c, bytes | str))
            for table in ("checkpoints", "writes")
            for row in con.execute(f"SELECT * FROM {table}")
        ]
    finally:
        con.close()
    return max(sizes, default=0)


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"text": "x" * 16_001}, "16001 characters; at most 16000"),
        ({"text": "hi", "at": "0001-01-01T00:00:00"}, "out of range"),
        ({"text": "hi", "at": "yesterday at noon"}, "not an ISO 8601 time"),
        ({"text": "hi", "policy": "bogus"}, "unknown memory policy 'bogus'"),
        ({"text": "hi", "user_id": "u" * 1000}, "user id of 1000 characters"),
    ],
)
def test_bad_input_is_one_line_and_stores_nothing(agent, kwargs, words):
    agent.chat("I keep bees in my garden.", user_id="ann")
    before = _messages(agent)
    kwargs = {"user_id": "ann", **kwargs}
    with pytest.raises(Exception) as info:
        agent.chat(**kwargs)
    assert words in str(info.value) and "\n" not in str(info.value)
    assert _messages(agent) == before
    assert _checkpoint_bytes(agent) < 16_000
    with pytest.raises(Exception, match=words.split(";")[0][:12]):
        list(agent.stream(**kwargs))
    assert _messages(agent) == before
    assert agent.chat("And what do I keep?", user_id="ann").text


def test_the_limit_is_a_setting(settings, scripted):
    from caim.agent import CaimAgent

    models, _calls, _script = scripted
    with CaimAgent(settings.model_copy(update={"max_message_chars": 50}), models=models) as agent:
        with pytest.raises(InputError, match="at most 50"):
            agent.chat("y" * 51, user_id="ann")
        with pytest.raises(InputError, match="at most 50"):
            agent.record_turns(user_id="ann", turns=[Turn("fine", "z" * 51)])
        assert agent.state("ann")["messages"] == []


def test_the_graph_refuses_an_over_long_message_and_keeps_the_session_clean(agent):
    agent.chat("I keep bees in my garden.", user_id="ann")
    before = _messages(agent)
    config, context = agent._config(agent.thread_id("ann")), agent._context("ann", None)
    with pytest.raises(InputError, match="at most 16000"):
        agent.graph.invoke({"messages": [{"role": "user", "content": "x" * 20_000}]}, config, context=context)
    messages = agent.state("ann")["messages"]
    assert _messages(agent) == before
    assert not any(m.additional_kwargs.get(REFUSED) for m in messages)
    reply = agent.chat("What do I keep?", user_id="ann")
    kinds = [k for k, _ in _messages(agent)]
    assert reply.text and kinds == ["HumanMessage", "AIMessage"] * 2


@pytest.mark.parametrize("when", ["0001-01-01T00:00:00", "not a time", "9999-12-31T23:59:59"])
def test_the_graph_refuses_a_bad_turn_time_without_an_unanswered_message(agent, when):
    agent.chat("I keep bees in my garden.", user_id="ann")
    before = _messages(agent)
    config, context = agent._config(agent.thread_id("ann")), agent._context("ann", None)
    with pytest.raises(InputError, match="turn time"):
        agent.graph.invoke({"messages": [HumanMessage("hello")], "turn_time": when}, config, context=context)
    assert _messages(agent) == before
    assert isinstance(agent.state("ann")["messages"][-1], AIMessage)


def test_an_abandoned_stream_blocks_no_one_and_its_reply_stays(agent, scripted):
    _models, _calls, script = scripted
    script["respond"] = "one two three four five"
    pieces = agent.stream("Tell me something in five words.", user_id="ann")
    assert next(pieces) == "one"
    other: dict[str, object] = {}

    def second_turn() -> None:
        script_reply = agent.chat("And again?", user_id="ann")
        other["text"] = script_reply.text

    t = threading.Thread(target=second_turn)
    t.start()
    t.join(60)
    assert not t.is_alive(), "a held stream blocked the user's next turn"
    pieces.close()
    texts = [text for kind, text in _messages(agent) if kind == "AIMessage"]
    assert texts == ["one two three four five", other["text"]]


async def test_an_abandoned_async_stream_keeps_its_reply(agent, scripted):
    _models, _calls, script = scripted
    script["respond"] = "alpha beta gamma"
    stream = agent.astream("Say three words.", user_id="ann")
    assert await stream.__anext__() == "alpha"
    await stream.aclose()
    reply = await agent.achat("Next?", user_id="ann")
    texts = [text for kind, text in _messages(agent) if kind == "AIMessage"]
    assert texts == ["alpha beta gamma", reply.text]
