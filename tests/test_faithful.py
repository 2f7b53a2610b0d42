"""Nothing is stored that was not said: a memory never asserts a name, number or date its source
turns do not hold, and the assistant's side keeps what it gave the user, not its chatter."""

from __future__ import annotations

import re

from caim import CaimAgent
from caim.core.trace import steps
from caim.graph.steps import InventedEvent, InventedThought, KeyEventsStep, ThoughtsStep
from tests.scripts import QUOTED_AFTER_DATE

MARTA = "Hi! I'm Marta. I just moved to Porto and I'm learning to surf with my friend Joana."
RAMBLING = (
    "Awesome question Marta! Today we celebrate our love and respect for each other as friends. "
    "I'm so glad you asked me what my favorite hobby was when I first started surfing. "
    "It would be playing with Joana at the beach every summer since 2015."
)


def _stored(agent: CaimAgent, user: str) -> list[str]:
    return [r.thought for r in agent.memories(user)]


def _tags(rf: dict) -> list[str]:
    """One tag the thoughts schema offers."""
    return rf["json_schema"]["schema"]["$defs"]["Thought"]["properties"]["tags"]["items"]["enum"][:1]


def _refused_events(summary) -> list[InventedEvent]:
    """The key events post-thinking refused for naming what was not said."""
    return [v for s in steps(summary.trace, "extract_key_events", KeyEventsStep) for v in s.get("invented", [])]


def _refused_thoughts(summary) -> list[InventedThought]:
    """The sentences post-thinking refused for naming what was not said."""
    return [v for s in steps(summary.trace, "write_thoughts", ThoughtsStep) for v in s["invented"]]


def test_an_event_naming_what_nobody_said_is_refused_and_the_words_are_kept(agent, scripted):
    _models, _calls, script = scripted
    script["key_events"] = {"events": [{"turn": 1, "event": "Mara's Surf Day in Porto with Joana"}]}
    script["respond"] = "Welcome to Porto!"
    agent.chat(MARTA, user_id="marta")
    summary = agent.end_session(user_id="marta")
    assert _stored(agent, "marta") == [MARTA]  # the user's words, not the invented "Mara"
    (refusal,) = _refused_events(summary)
    assert refusal["event"] == "Mara's Surf Day in Porto with Joana" and refusal["invented"]
    assert _refused_thoughts(summary) == []


def test_a_thought_with_an_invented_number_is_refused(agent, scripted):
    _models, _calls, script = scripted

    def thoughts(messages, rf):
        found = re.findall(QUOTED_AFTER_DATE, str(messages[-1].content))
        said = [{"event": int(n), "thought": "The user has 4 kids and a dog.", "tags": _tags(rf)} for n, _ in found]
        return {"thoughts": said, "new_terms": []}

    script["thoughts"] = thoughts
    agent.chat("I am a parent of three kids and a dog.", user_id="ann")
    summary = agent.end_session(user_id="ann")
    assert _stored(agent, "ann") == ["I am a parent of three kids and a dog."]
    assert _refused_events(summary) == []
    assert _refused_thoughts(summary) == [{"thought": "The user has 4 kids and a dog.", "invented": ["4"]}]


def test_a_thought_may_write_three_as_3(agent, scripted):
    _models, _calls, script = scripted
    script["thoughts"] = lambda messages, rf: {
        "thoughts": [{"event": 1, "thought": "The user has 3 kids and a dog.", "tags": _tags(rf)}],
        "new_terms": [],
    }
    agent.chat("I am a parent of three kids and a dog.", user_id="ann")
    agent.end_session(user_id="ann")
    assert _stored(agent, "ann") == ["The user has 3 kids and a dog."]


def test_the_assistants_chatter_is_not_memory_but_what_it_gave_is(agent, scripted):
    _models, _calls, script = scripted
    script["key_events"] = {"events": []}
    script["respond"] = {"cycle": [RAMBLING, "I'd recommend Praia do Cabedelo, a sheltered beach for beginners."]}
    agent.chat(MARTA, user_id="marta")
    agent.chat("What's a good beginner surf spot?", user_id="marta")
    agent.chat("Thanks, I'll try Cabedelo on Sunday!", user_id="marta")  # the user takes it up
    agent.end_session(user_id="marta")
    stored = _stored(agent, "marta")
    assert MARTA in stored
    assert "I'd recommend Praia do Cabedelo, a sheltered beach for beginners." in stored
    assert not any("favorite hobby" in t or "celebrate" in t for t in stored)


def test_with_a_persona_the_assistants_own_news_is_kept(settings, scripted):
    models, _calls, script = scripted
    script["key_events"] = {"events": []}
    script["respond"] = "I ran a charity race last Saturday with my sister Lena."
    with CaimAgent(settings.model_copy(update={"persona": True}), models=models) as agent:
        agent.chat("How was your weekend?", user_id="ann")
        agent.end_session(user_id="ann")
        assert [r.speaker for r in agent.memories("ann")] == ["assistant"]
    with CaimAgent(settings.model_copy(update={"data_dir": settings.data_dir / "plain"}), models=models) as agent:
        agent.chat("How was your weekend?", user_id="ann")
        agent.end_session(user_id="ann")
        assert agent.memories("ann") == []
