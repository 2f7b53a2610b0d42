"""Answers that use their memory, and show it: a memory question is answered from the kept memories
(by code where the answer model does not beat it), and every surface shows the memories used."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from caim.agent import CaimAgent
from caim.agent.facade import Used
from caim.agent.memory import session_turns
from caim.core.trace import llm_calls, steps
from caim.core.types import PROBED
from caim.graph.state import USED
from caim.graph.steps import EarlyAnswerStep
from caim.memory.answer import NOTHING_KEPT, Additions, compose, memory_question, used_by
from caim.memory.capture import raw_record
from caim.memory.records import MemoryBrief
from caim.memory.search.relevance import explain

LEEDS = "I teach chemistry at a secondary school in Leeds."
YORK = "I'm training for the York half marathon in March."
ASK = "Where do I teach, and which race am I training for?"
#: What a weak model said to the question above.
GARBLED = (
    "You're an AI assistant designed specifically to help with text rewriting. Rewrite the input text again "
    "but this time with nonspecific words only."
)


def brief(i: int, thought: str, day: str = "2024-05-03", speaker: str = "") -> MemoryBrief:
    m: MemoryBrief = {"id": f"m{i}", "thought": thought, "tags": ["personal"], "event_time": f"{day}T10:00:00+00:00"}
    if speaker:
        m["speaker"] = speaker
    return m


def code_answers(settings):
    """``settings`` with the answer on code and every other role on the model (as a weak model's record says)."""
    return settings.model_copy(update={"use_model_for": [r for r in PROBED if r != "answer"]})


def told(agent: CaimAgent, user: str = "ann") -> None:
    agent.memory.add(LEEDS, user_id=user, at="2024-05-03T09:00:00")
    agent.memory.add(YORK, user_id=user, at="2024-05-04T09:00:00")
    agent.memory.add("My brother Tom is a dentist in Bristol.", user_id=user, at="2024-05-05T09:00:00")


# ---- composing ---------------------------------------------------------------------------------------
def test_compose_quotes_the_memories_that_answer_with_who_said_them_and_when():
    kept = [brief(1, "My brother Tom is a dentist."), brief(2, YORK, "2024-05-04"), brief(3, LEEDS)]
    got = compose(ASK, kept)
    assert got.text.splitlines() == [
        f'You said (3 May 2024): "{LEEDS}"',
        f'You said (4 May 2024): "{YORK}"',
    ]  # in the question's order; the brother, who answers nothing, is left out
    assert [m["id"] for m in got.quoted] == ["m3", "m2"]


def test_compose_says_who_said_it():
    kept = [brief(1, "Try Kafka on the Shore for the flight.", speaker="assistant"), brief(2, "Sam loves hiking.")]
    kept[1]["speaker"] = "Sam"
    assert compose("Which book did you recommend for the flight?", kept).text.startswith("I suggested (3 May 2024)")
    assert compose("What does Sam love doing?", kept).text.startswith("Sam said (3 May 2024)")


def test_compose_quotes_the_reply_a_memory_was_given_when_that_answers():
    asked = brief(1, "Have you seen any works by artists that can inspire me?")
    asked["source"] = (
        "user: Have you seen any works by artists that can inspire me? / assistant: Renaissance painters can "
        "inspire you, such as Leonardo da Vinci, Michelangelo and Raphael."
    )
    books = brief(2, 'Then I recommend "The Little Prince".', speaker="assistant")
    got = compose("What painters did you recommend to me?", [books, asked])
    assert got.text == (
        'I suggested (3 May 2024): "Renaissance painters can inspire you, such as Leonardo da Vinci, '
        'Michelangelo and Raphael."'
    )
    assert [m["id"] for m in got.quoted] == ["m1"]


def verbatim(i: int, text: str, asked: str = "", reply: str = "", day: str = "2024-05-03") -> MemoryBrief:
    """The brief a kept verbatim record of the user's turn carries (the turns around it included)."""
    when = datetime.fromisoformat(f"{day}T10:00:00+00:00")
    rec = raw_record(
        user_id="ann", session_id="s", turn=i, text=text, when=when, tags=["personal"], asked=asked, reply=reply
    )
    return rec.brief(400)


def test_a_verbatim_records_brief_carries_the_turns_around_it():
    m = verbatim(1, "I loved Gulangyu Island.", asked="Which place did you like most?", reply="It is charming.")
    assert (m["before"], m["after"]) == ("Which place did you like most?", "It is charming.")
    assert "before" not in verbatim(2, "I loved it.") and "after" not in verbatim(2, "I loved it.")


def test_compose_quotes_the_reply_a_verbatim_turn_was_given():
    asked = verbatim(
        1,
        "Italian food looks amazing. Do you have any recommended dishes?",
        reply=("I recommend mozzarella pasta and roasted pear salad."),
    )
    got = compose("What Italian dishes did you recommend to me?", [asked])
    assert got.text.startswith('I suggested (3 May 2024): "I recommend mozzarella pasta and roasted pear salad."')
    kept_too = brief(2, "Sure. I recommend mozzarella pasta and roasted pear salad.", speaker="assistant")
    twice = compose("What Italian dishes did you recommend to me?", [asked, kept_too]).text
    assert twice.count("mozzarella") == 1 and "Sure. I recommend" in twice  # the same reply once, the longer


def test_compose_reads_a_short_answer_by_the_question_it_answered():
    kept = [
        verbatim(1, "I traveled to Xiamen recently. It's a beautiful city."),
        verbatim(
            2, "I loved Gulangyu Island.", asked="Xiamen has many attractions. Which attraction did you like most?"
        ),
    ]
    got = compose("I went on a trip to Xiamen. What is my favourite attraction there?", kept)
    assert [m["id"] for m in got.quoted] == [kept[1]["id"]]  # the trip is given; the attraction is asked


def test_compose_quotes_the_speaker_the_question_asks_about():
    kept = [
        brief(1, "I like comedies and romance films."),
        brief(2, "Films like Lost in Thailand are fun.", speaker="assistant"),
    ]
    assert compose("What films do I like?", kept).quoted == [kept[0]]
    assert compose("What films did you suggest?", kept).quoted == [kept[1]]


def test_compose_quotes_what_was_said_on_the_day_the_question_names():
    kept = [
        brief(1, "I went for a walk in the park.", "2023-05-02"),
        brief(2, "This speech is very important.", "2023-05-04"),
    ]
    day = (datetime(2023, 5, 4, tzinfo=UTC), datetime(2023, 5, 4, 23, 59, tzinfo=UTC))
    week = (datetime(2023, 4, 30, tzinfo=UTC), datetime(2023, 5, 6, 23, 59, tzinfo=UTC))
    question = "On May 4th, I told you about a problem. What was it about?"
    assert compose(question, kept, [day]).quoted == [kept[1]]
    assert kept[0] in compose(question, kept, [week]).quoted  # "recently" names no day


def test_compose_quotes_words_someone_said_over_a_tasks_summary():
    task = brief(1, "Task (entertainment): genre: romance - open.")
    task["task"] = True
    said = brief(2, "I want a film to watch tonight.")
    assert compose("What genre of film do I like?", [task, said]).quoted == [said]
    assert compose("What genre of film do I like?", [task]).quoted == [task]


def test_a_long_memory_is_quoted_from_its_sentence_on_the_question():
    reply = (
        "Hi Sunny, watching something is a great idea. " * 9
        + 'Try the comedy "Crazy Alien" and the action film "The Climbers".'
    )
    got = compose("Which films did you recommend?", [brief(1, reply, speaker="assistant")])
    assert got.text == 'I suggested (3 May 2024): "… Try the comedy "Crazy Alien" and the action film "The Climbers"."'


def test_compose_with_nothing_kept_says_it_does_not_remember():
    assert compose(ASK, []).text == NOTHING_KEPT


def test_a_memory_question_is_about_the_user_or_the_shared_past_not_a_request():
    assert memory_question(ASK) and memory_question("What did you recommend to me?")
    assert not memory_question("Can you recommend a good book?") and not memory_question("I teach in Leeds.")


def test_the_models_sentences_stand_only_where_they_add_and_contradict_nothing():
    quoted = compose(ASK, [brief(1, LEEDS), brief(2, YORK)])
    adds = Additions(f"{LEEDS}\n{YORK}\n{ASK}", quoted, ASK)
    reply = (
        "You don't teach at a school. "  # denies a quoted memory
        "I don't remember where you teach. "  # says the memory is missing
        "As an AI assistant I cannot run. "  # the model about itself
        "Your race is on 12 March in Leeds. "  # a date nobody said
        '<remarks><title>marathon</title></remarks> "<p>Your chemistry class. '  # markup
        "Good luck with your marathon training and your chemistry classes!"
    )
    kept = [s for piece in reply.split(" ") for s in adds.feed(piece + " ")] + adds.finish()
    assert kept == ["Good luck with your marathon training and your chemistry classes!"] and not adds.done
    adds.feed("Leeds has good running clubs for marathon training. York in March is lovely. ")
    assert adds.done  # two sentences stand: the rest of the reply is not read


def test_used_by_finds_the_memories_a_reply_repeats():
    kept = [brief(1, LEEDS), brief(2, YORK)]
    assert [m["id"] for m in used_by("You teach chemistry in Leeds.", kept, ASK)] == ["m1"]
    assert used_by(GARBLED, kept, ASK) == []


# ---- the answer in the graph ----------------------------------------------------------------------------
def test_a_weak_models_memory_question_is_answered_from_memory_and_shows_it(settings, scripted):
    models, calls, script = scripted
    script["respond"] = GARBLED
    with CaimAgent(code_answers(settings), models=models) as agent:
        told(agent)
        pieces = list(agent.stream(ASK, user_id="ann", at="2024-06-01T09:00:00"))
        state = agent.state("ann")
    text, used = "".join(pieces), pieces[-1]
    assert text.splitlines() == [f'You said (3 May 2024): "{LEEDS}"', f'You said (4 May 2024): "{YORK}"']
    assert "AI assistant" not in text  # the model's words contradicted nothing but added nothing either
    assert pieces[0].startswith("You said (3 May 2024)")  # the quotes stream first, before the model's
    assert isinstance(used, Used) and used == "" and "ltm" in used.route
    assert [m["thought"] for m in used.used] == [LEEDS, YORK]
    assert "respond" in [c["role"] for c in calls]  # the model was asked; its sentences did not stand
    reply = state["messages"][-1]
    assert reply.content == text and [u["thought"] for u in reply.additional_kwargs[USED]] == [LEEDS, YORK]
    assert [t.used for t in session_turns(state["messages"])][-1][0]["event_time"].startswith("2024-05-03")


def test_without_additions_the_composed_answer_needs_no_model_call(settings, scripted):
    models, calls, _ = scripted
    with CaimAgent(code_answers(settings).model_copy(update={"answer_additions": False}), models=models) as agent:
        told(agent)
        calls.clear()
        r = agent.chat(ASK, user_id="ann", at="2024-06-01T09:00:00")
    assert r.text.splitlines() == [f'You said (3 May 2024): "{LEEDS}"', f'You said (4 May 2024): "{YORK}"']
    assert "respond" not in [c["role"] for c in calls] and len(r.used) == 2


def test_a_memory_question_with_nothing_kept_is_answered_without_the_model(settings, scripted):
    models, calls, _ = scripted
    with CaimAgent(code_answers(settings), models=models) as agent:
        agent.memory.add("My brother Tom is a dentist in Bristol.", user_id="ann")
        calls.clear()
        r = agent.chat("Which race am I training for?", user_id="ann")
    assert r.text == NOTHING_KEPT and r.used == []
    assert "respond" not in [c["role"] for c in calls]


def test_what_was_said_earlier_in_the_session_answers_too(settings, scripted):
    models, _, script = scripted
    script["respond"] = GARBLED
    with CaimAgent(code_answers(settings), models=models) as agent:
        agent.memory.add("My brother Tom is a dentist in Bristol.", user_id="ann")
        agent.chat("I teach chemistry in Leeds now.", user_id="ann", at="2024-06-01T09:00:00")
        r = agent.chat("Where do I teach?", user_id="ann", at="2024-06-01T09:01:00")
    assert r.text == 'You said (1 June 2024): "I teach chemistry in Leeds now."'
    assert r.used == []  # a turn of this session is no stored memory


def test_a_model_that_answers_without_its_memories_gets_the_best_one_quoted(agent, scripted):
    _, _, script = scripted
    told(agent)
    script["respond"] = "I hope you have a lovely day."
    r = agent.chat("Where do I teach?", user_id="ann", at="2024-06-01T09:00:00")
    assert r.text.startswith("I hope you have a lovely day.")
    assert f'(From my memory: you said (3 May 2024): "{LEEDS}")' in r.text
    assert [m["thought"] for m in r.used] == [LEEDS]


def test_a_model_answer_shows_the_memories_it_used(agent, scripted):
    _, _, script = scripted
    told(agent)
    script["respond"] = "You teach chemistry at a school in Leeds."
    r = agent.chat("Where do I teach?", user_id="ann", at="2024-06-01T09:00:00")
    assert r.text == "You teach chemistry at a school in Leeds."  # it used a kept memory: no note
    assert [m["thought"] for m in r.used] == [LEEDS]


# ---- the answer starts before the plan where the code signals leave no doubt ---------------------------
def test_a_clear_memory_question_is_answered_before_the_plan(settings, scripted):
    models, calls, _ = scripted
    with CaimAgent(settings.model_copy(update={"early_answer": True}), models=models) as agent:
        told(agent)
        calls.clear()
        r = agent.chat("Where do I teach chemistry?", user_id="ann", at="2024-06-01T09:00:00")
    [early] = steps(r.trace, "search", EarlyAnswerStep)
    assert early["early_answer"] == "ltm+stm" == r.route and r.decisions["early_answer"] is True
    assert [c["node"] for c in llm_calls(r.trace, "respond")] == ["search"]  # in the search, beside the plan
    assert "relevance" not in [c["role"] for c in calls]  # no filter round trip either
    assert LEEDS in r.text and LEEDS in [m["thought"] for m in r.used]


@pytest.mark.parametrize(
    "text,early",
    [
        ("Thanks!", True),  # small talk needs no memory
        ("What's the weather like on Mars?", False),  # no signal either way: the plan decides
    ],
)
def test_small_talk_starts_at_once_and_anything_unclear_waits_for_the_plan(settings, scripted, text, early):
    models, _, _ = scripted
    with CaimAgent(settings.model_copy(update={"early_answer": True}), models=models) as agent:
        told(agent)
        r = agent.chat(text, user_id="ann", at="2024-06-01T09:00:00")
    assert bool(steps(r.trace, "search", EarlyAnswerStep)) is early
    if early:
        assert r.route == "none" and r.memories == []


def test_without_the_setting_the_answer_waits_for_the_plan(settings, scripted):
    models, _, _ = scripted
    with CaimAgent(settings.model_copy(update={"early_answer": False}), models=models) as agent:
        told(agent)
        r = agent.chat("Where do I teach chemistry?", user_id="ann", at="2024-06-01T09:00:00")
    assert not steps(r.trace, "search", EarlyAnswerStep)
    assert [c["node"] for c in llm_calls(r.trace, "respond")] == ["respond"]


# ---- search results a person can trust ----------------------------------------------------------------
FACTS = [
    LEEDS,
    YORK,
    "My brother Tom is a dentist in Bristol.",
    "I love Thai green curry.",
    "My cat is called Miso.",
    "I play the cello in a community orchestra.",
    "My partner works as an architect.",
    "I'm reading a biography of Marie Curie.",
]


def test_search_returns_only_relevant_memories_with_a_relevance_and_why(memory):
    for fact in FACTS:
        memory.add(fact, user_id="ann")
    found = memory.search("half marathon", user_id="ann", k=10)
    assert [m["thought"] for m in found] == [YORK]  # k is a most; the dentist is not returned at all
    [hit] = found
    assert 0 < hit["relevance"] <= 1 and hit["matched"] == ["half", "marathon"]
    assert explain(hit).startswith(f'relevance {hit["relevance"]:.2f}: holds the words "half", "marathon"')
    assert memory.search("which paint suits a garden fence", user_id="ann", k=10) == []


def test_a_memory_is_shown_in_reply_to_the_turn_before_it_never_after(memory):
    said = [
        ("user", "I adopted a cat last week."),
        ("assistant", "What is the cat called?"),
        ("user", "Her name is Miso."),
    ]
    store = memory.services.store
    when = datetime(2024, 5, 3, 9, tzinfo=UTC)
    store.add(
        [
            raw_record(
                user_id="ann",
                session_id="s",
                turn=i,
                text=t,
                when=when,
                tags=["pets"],
                speaker=r,
            )
            for i, (r, t) in enumerate(said)
        ]
    )
    store.flush()
    found = {m["thought"]: m for m in memory.search("my cat Miso", user_id="ann", k=10)}
    assert "context" not in found["I adopted a cat last week."]  # the reply after it is not what it answered
    assert found["Her name is Miso."]["context"] == "assistant: What is the cat called?"


# ---- bad input: one line, nothing unbounded -------------------------------------------------------------
def test_bad_input_is_answered_in_one_line_and_nothing_is_kept_unbounded(settings, scripted):
    models, _, script = scripted
    script["respond"] = GARBLED
    long_fact = "I teach chemistry in Leeds " + "and I really like it " * 400
    with CaimAgent(code_answers(settings), models=models) as agent:
        agent.memory.add(long_fact, user_id="ann", at="2024-05-03T09:00:00")
        empty = list(agent.stream("   ", user_id="ann"))
        foreign = agent.chat("私はどこで教えていますか？", user_id="ann", at="2024-06-01T09:00:00")
        long_answer = agent.chat("Where do I teach?", user_id="ann", at="2024-06-01T09:01:00")
        [entry] = agent.state("ann")["messages"][-1].additional_kwargs[USED]
    assert len("".join(empty).splitlines()) == 1 and isinstance(empty[-1], Used) and empty[-1].used == []
    assert len(foreign.text.splitlines()) == 1  # a language the user never wrote: answered in one line
    assert long_answer.text.startswith('You said (3 May 2024): "I teach chemistry in Leeds')
    assert len(long_answer.text) < 500 and len(entry["thought"]) <= 300  # the long memory is quoted clipped
