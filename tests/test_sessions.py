"""Two sessions through the public API, with Chroma and the checkpoint on disk."""

from caim.agent import CaimAgent


def test_memories_persist_across_agent_instances(settings, scripted):
    models, _, _ = scripted
    with CaimAgent(settings, models=models) as first:
        first.chat("Hello, my name is Emily.", user_id="emily", at="2023-04-27T09:00:00")
        first.chat("I love painting and playing the piano.", user_id="emily", at="2023-04-27T09:03:00")
        summary = first.end_session(user_id="emily", at="2023-04-27T09:30:00")
        assert len(summary.stored) == 2
    # a new agent (new process in real life) on the same data dir
    with CaimAgent(settings, models=models) as second:
        assert len(second.memories("emily")) == 2
        general = second.chat("What is the plot of Inception?", user_id="emily", at="2023-04-28T10:00:00")
        assert general.route == "none"
        recall = second.chat(
            "What did I tell you about painting? Do you remember?", user_id="emily", at="2023-04-28T10:01:00"
        )
        assert recall.route == "ltm"
        assert any("painting" in m["thought"] for m in recall.memories)
        assert "painting" in recall.text


def test_open_session_survives_a_restart(settings, scripted):
    models, _, _ = scripted
    with CaimAgent(settings, models=models) as a:
        a.chat("My favourite food is pizza.", user_id="ann")
    with CaimAgent(settings, models=models) as b:
        assert len(b.state("ann")["messages"]) == 2  # SQLite checkpoint
        assert len(b.end_session(user_id="ann").stored) == 1


def test_admin_get_forget_export(agent):
    agent.chat("My favourite food is pizza.", user_id="ann")
    agent.chat("I love jazz.", user_id="ann")
    agent.end_session(user_id="ann")
    recs = agent.memories("ann")
    assert agent.get_memory("ann", recs[0].id).thought == recs[0].thought
    assert agent.get_memory("bob", recs[0].id) is None
    assert agent.forget("ann", recs[0].id) and len(agent.memories("ann")) == 1
    exported = agent.export_user("ann")
    assert exported["user_id"] == "ann" and len(exported["memories"]) == 1
    assert exported["memories"][0]["sources"]
    assert agent.forget_user("ann") == 1 and agent.memories("ann") == []


def test_idle_timeout_ends_the_previous_session(settings, scripted):
    models, _, _ = scripted
    with CaimAgent(settings, models=models, idle_timeout=600) as a:
        a.chat("My favourite food is pizza.", user_id="ann", at="2023-04-27T09:00:00")
        a.chat("What is 2+2?", user_id="ann", at="2023-04-27T09:05:00")
        assert a.memories("ann") == []  # still the same session
        a.chat("Hello again", user_id="ann", at="2023-04-27T11:00:00")
        assert len(a.memories("ann")) == 1  # post-thinking ran on the idle session
        assert len(a.state("ann")["messages"]) == 2  # the new session holds only the new turn


async def test_async_chat_and_stream(agent):
    r = await agent.achat("My favourite food is pizza.", user_id="ann")
    assert r.text
    tokens = [t async for t in agent.astream("What is the capital of France?", user_id="ann")]
    assert len(tokens) > 1 and "".join(tokens).startswith("Reply to:")
    summary = await agent.aend_session(user_id="ann")
    assert len(summary.stored) == 1


def test_recorded_turns_are_post_thought_and_a_session_can_be_discarded(agent, scripted):
    from caim.agent import Turn

    _, calls, _ = scripted
    n = agent.record_turns(
        user_id="ann",
        turns=[
            Turn("My favourite food is pizza.", "Pizza is great!", "2023-04-27T09:00:00"),
            Turn("I love jazz.", None, "2023-04-27T09:03:00"),
        ],
    )
    assert n == 3 and not [c for c in calls if c["role"] == "respond"]  # nothing was answered
    summary = agent.end_session(user_id="ann")
    assert len(summary.stored) == 2
    assert {r.event_time.isoformat() for r in agent.memories("ann")} == {
        "2023-04-27T09:00:00+00:00",
        "2023-04-27T09:03:00+00:00",
    }
    agent.chat("My favourite colour is green.", user_id="ann")
    assert agent.discard_session(user_id="ann") == 2
    assert agent.end_session(user_id="ann").stored == []  # discarded, so nothing new to remember
