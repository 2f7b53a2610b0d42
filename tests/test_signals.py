"""Code signals that a message needs memory (``caim.memory.text.memory_signals``): the controller
never routes these to "no memory", whatever the model says."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pytest

from caim.graph.retrieval import combine
from caim.memory.text import in_first_person, memory_signals, named_speakers, unsupported


@pytest.mark.parametrize(
    "message,signal",
    [
        ("Do you remember what I said about my sister?", "past_reference"),
        ("You recommended a podcast last time, which one was it?", "past_reference"),
        ("I once recommended a cooking show to you, what was it called?", "past_reference"),
        ("We once talked about a hiking trail. Where was it?", "past_reference"),
        ("I showed you a photo of my garden, what flowers were in it?", "past_reference"),
        ("What is my dog's name?", "self_question"),
        ("When I was at the museum, I bought a poster. What was on it?", "self_question"),
        ("What did I do yesterday?", "time_reference"),
        ("Which podcasts have you recommended to me?", "past_reference"),
        ("What tips have you told me about for sleeping better?", "past_reference"),
        ("I don't like horror films, right?", "self_question"),
        ('"I do not enjoy cold weather, right?"', "self_question"),  # quoted, as pasted
        ("You once taught me a bread recipe. What flour did it use?", "past_reference"),
        ("What board games have you shared with me?", "past_reference"),
        ("What kind of jazz do I like?", "self_question"),
        ("On June 3rd, how far did I cycle?", "self_question"),
        ("I have a chess club. How many members are in it?", "self_question"),
        ("What's the forecast for Friday? How am I feeling about the trip?", "self_question"),
    ],
)
def test_memory_questions_raise_a_signal(message, signal):
    assert getattr(memory_signals(message), signal) is True


@pytest.mark.parametrize(
    "message",
    [
        "What is the capital of France?",
        "How do I boil an egg?",
        "How should we split a restaurant bill fairly?",
        "Tell me a joke about cats.",
        "Paris is in France, right?",
    ],
)
def test_general_questions_raise_none(message):
    signals = asdict(memory_signals(message))
    assert not any(v for k, v in signals.items() if k != "question")


# ---- names --------------------------------------------------------------------------------------
def test_the_names_lexicon_tags_each_word_with_where_it_is_no_name():
    """Each capitalised non-name keeps its position: inside a sentence (``names`` skips it), opening
    one (no subject of a fact), or both - so "There is..." opens no fact about someone while a
    "There" inside a sentence stays a capitalised word like any other."""
    from caim.memory.capture import states_fact
    from caim.memory.text import NOT_NAMES, NOT_SUBJECTS, names
    from caim.memory.text.names import _NOT_A_NAME

    assert set(_NOT_A_NAME.values()) == {"inside", "opening", "both"}
    assert set(_NOT_A_NAME) == NOT_NAMES | NOT_SUBJECTS
    assert "There" in NOT_SUBJECTS and "There" not in NOT_NAMES  # opening only
    assert "When" in NOT_NAMES and "When" not in NOT_SUBJECTS  # inside only
    assert "The" in NOT_NAMES and "The" in NOT_SUBJECTS  # both
    # a capitalised word opening a sentence is never a name; inside one, only the lexicon's are skipped
    assert names("Yesterday Mel and I met When it rained. Anna came too.") == ["Mel"]
    assert names("We sat There.") == ["There"]
    assert states_fact("Clara got a puppy.") and not states_fact("There is a party at the beach.")


# ---- the answer check's signals --------------------------------------------------------------------
PROMPT = 'Today is Monday, October 23, 2023. - (8 May 2023) "I went to a support group yesterday [7 May 2023]."'


@pytest.mark.parametrize(
    "answer,made_up",
    [
        ("You went on 7 May 2023.", []),
        ("You went on May 7th.", []),
        ("You went on October 17th at 9am.", ["17 october"]),  # "17" and "October" apart do not support it
        ("You went in 2021 with Bertrand.", ["2021", "bertrand"]),
        ("You went to a support group.", []),
    ],
)
def test_unsupported_finds_what_the_answer_made_up(answer, made_up):
    from caim.memory.text import unsupported

    assert unsupported(answer, PROMPT) == made_up


def test_the_note_quotes_the_kept_memory_that_matches_the_question():
    from caim.graph.reply import best_match

    kept = [
        {"id": "a", "thought": "I'm so proud of you!", "tags": [], "event_time": "2023-05-08T10:00:00"},
        {"id": "b", "thought": "I joined a choir.", "tags": [], "event_time": "2023-05-08T10:00:00"},
        {"id": "c", "thought": "I went to a support group yesterday.", "tags": [], "event_time": "2023-05-08T10:00:00"},
    ]
    assert best_match("When did I go to the support group?", kept)["id"] == "c"
    assert best_match("What's up?", kept)["id"] == "a"  # nothing shared: the best-ranked


def test_on_a_tie_the_note_quotes_the_more_focused_memory():
    from caim.graph.reply import best_match

    kept = [
        {
            "id": "long",
            "thought": "Yesterday I joined a new activist group and we had lots of community support at the rally.",
            "tags": [],
            "event_time": "2023-05-08T10:00:00",
        },
        {"id": "short", "thought": "I went to a support group yesterday.", "tags": [], "event_time": "2023-05-08"},
    ]
    assert best_match("When did I go to the support group?", kept)["id"] == "short"


GVD = Path(__file__).resolve().parents[2] / "shared" / "data" / "gvd" / "probing_questions_en.jsonl"


@pytest.mark.skipif(not GVD.is_file(), reason="GVD data not found beside the project (../shared/data/gvd)")
def test_the_code_signals_route_gvds_probing_questions_to_memory():
    """Every GVD probing question refers to an earlier conversation; with the plan on code (the
    bundled model's shipped record) the code signals alone must send nearly all of them to memory."""
    lines = [json.loads(line) for line in GVD.read_text(encoding="utf-8").splitlines() if line.strip()]
    questions = [q for user in lines for qs in user.values() for q in qs]
    routed = [combine(None, {**asdict(memory_signals(q)), "first_turn": True}, "signals") != "none" for q in questions]
    assert len(questions) >= 100 and sum(routed) / len(routed) >= 0.95


def test_a_verbatim_record_holds_every_specific_it_names():
    """A memory in its speaker's own words invents nothing, whatever the other sources hold before it
    (a shared image's caption ends where names are read) and however a name is written ("GoT")."""
    said = "Fantasy books fuel my creativity. Are Harry Potter and GoT still your favorites?"
    sources = "We got this! [shared an image: a photo of books]\n" + said
    assert unsupported(said, sources) == []
    assert unsupported("Are Harry Potter and GoT still your favorites?", "Harry Potter is great.") == ["got"]


@pytest.mark.parametrize(
    ("question", "embedded"),
    [
        ("What did Caroline pay for car insurance?", "What did I pay for car insurance?"),  # "car" is no name
        ("Has Mel been to Caroline's studio?", "Has been to studio?"),  # two, not joined: names out
        ("What is Caroline's identity?", "What is my identity?"),
        ("When did Caroline and Melanie go to a pride festival?", "When did we go to a pride festival?"),
        ("Is Melanie's son OK?", "Is my son OK?"),
        ("Where does Melanie live?", "Where do I live?"),
        ("Who supports Caroline?", "Who supports I?"),  # after a verb: the subject form, by rule
        ("¿Qué pintó Caroline el mes pasado?", "¿Qué pintó el mes pasado?"),  # the verb would have to agree
        ("Caroline和Melanie一起去了哪里？", "我们一起去了哪里？"),
        ("谁送给Caroline一本书？", "谁送给我一本书？"),
        ("Carolineさんはどこに住んでいますか？", "私はどこに住んでいますか？"),
        ("Caroline?", "Caroline?"),  # nothing but the name
        ("Who was my Caroline at school?", "Who was my at school?"),  # someone the user has: no rule
    ],
)
def test_a_question_is_embedded_as_the_speakers_it_names_would_ask_it(question, embedded):
    assert in_first_person(question, named_speakers(question, ["Caroline", "Melanie"])) == embedded
