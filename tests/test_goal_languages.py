"""Goal-aware recall in other languages (issue 28): a task request in German, French, Spanish,
Chinese and Japanese is recognised by its language's cues (``caim.memory.intent_langs``), and a slot
is filled from what the user said in an earlier session in that language; closed-vocabulary values
are the catalogue's English words, so they compare across languages."""

from __future__ import annotations

import pytest

from caim import Memory
from caim.core.scripted import ScriptedChatModel
from caim.memory.intents import Catalogue, read_slot, unit_of
from caim.memory.stm import Exchange

U = "u"
#: language -> (earlier turns, a later request, its intent, slots the earlier session fills)
CASES = {
    "de": (
        [
            "Wir sind letzten Monat nach Hamburg gezogen, ich wohne jetzt in Hamburg.",
            "Italienisches Essen mag ich am liebsten.",
        ],
        "Kannst du uns für Freitag einen Tisch reservieren?",
        "restaurant",
        {"city": "Hamburg", "cuisine": "italian"},
    ),
    "fr": (
        ["J'habite à Lyon depuis cinq ans.", "Pour les vacances, on prend toujours le train."],
        "Tu peux organiser un voyage pour nous en mai ?",
        "travel",
        {"home_city": "Lyon", "transport": "train"},
    ),
    "es": (
        [
            "Mi hermana ha empezado a hacer cerámica.",
            "Su cumpleaños es el 3 de abril y no quiero gastar más de 50 euros.",
        ],
        "¿Me ayudas a buscar un regalo para mi hermana?",
        "gift",
        {"occasion": "birthday", "budget": "50 euros"},
    ),
    "zh": (
        ["我住在上海，离公司很近。", "我只有周末有空。"],
        "帮我预约一下牙医吧。",
        "appointment",
        {"city": "上海", "availability": "weekends"},
    ),
    "ja": (
        ["私は京都に住んでいます。", "ジャズが大好きで、よくライブに行きます。"],
        "今週末のコンサートのチケットを探してくれる？",
        "entertainment",
        {"city": "京都", "genre": "jazz"},
    ),
}


@pytest.mark.parametrize("code", list(CASES))
def test_a_request_in_each_language_is_recognised(code):
    _, request, intent, _ = CASES[code]
    assert Catalogue().recognise(request) == intent


@pytest.mark.parametrize("code", list(CASES))
def test_a_slot_filled_from_an_earlier_session_in_that_language(settings, code):
    earlier, request, intent, want = CASES[code]
    models = ScriptedChatModel(script={"default": "no answer"})
    with Memory(settings, persist=False, models=models, background=False) as memory:
        turns = []
        for i, text in enumerate(earlier):
            turns += [
                {"role": "user", "content": text, "time": f"2024-03-01T10:0{2 * i}:00"},
                {"role": "assistant", "content": "👍", "time": f"2024-03-01T10:0{2 * i + 1}:00"},
            ]
        memory.remember(turns, user_id=U, background=False)
        recall = memory.recall(request, user_id=U, at="2024-04-01T12:00:00")
        assert recall.intent == intent
        assert {s: k.value for s, k in recall.known.items() if s in want} == want
        assert {k.memory for k in recall.known.values()} <= {m["id"] for m in recall.memories}


def test_a_value_said_in_two_languages_is_one_value():
    cuisine = Catalogue().intents["restaurant"].slots[0]
    said = [
        "Italienisches Essen mag ich am liebsten.",
        "J'adore la cuisine italienne.",
        "Me encanta la comida italiana.",
    ]
    assert {read_slot(cuisine, t) for t in said} == {"italian"}


#: language -> (a task request, the reply, the user's next turn, the outcome the task reached)
OUTCOMES = {
    "de": (CASES["de"][1], "Erledigt - der Tisch ist reserviert.", "Danke!", "booked"),
    "fr": (CASES["fr"][1], "Avec plaisir : train ou avion ?", "Finalement on annule, désolé.", "cancelled"),
    "es": (CASES["es"][1], "¿Una taza o un libro?", "Me quedo con la taza de cerámica.", "chosen"),
    "zh": (CASES["zh"][1], "预约好了，周六上午十点。", "谢谢！", "booked"),
    "ja": (CASES["ja"][1], "土曜日の席があります。", "やっぱりキャンセルでお願いします。", "cancelled"),
}


@pytest.mark.parametrize("code", list(OUTCOMES))
def test_a_tasks_outcome_is_read_in_its_language(code):
    request, reply, then, want = OUTCOMES[code]
    intent = Catalogue().intents[CASES[code][2]]
    window = [Exchange(1, request, reply, None), Exchange(2, then, "👍", None)]
    assert unit_of(intent, window).outcome == want


#: language -> (what the user said of someone close, that relation in English, what they like)
LIKES = {
    "de": ("Meine Schwester liebt Keramik und Yoga.", "sister", "Keramik"),
    "fr": ("Ma sœur adore la céramique depuis un an.", "sister", "la céramique"),
    "es": ("A mi hermana le encanta la cerámica y el yoga.", "sister", "la cerámica"),
    "zh": ("我妹妹很喜欢陶艺，每周都去上课。", "sister", "陶艺"),
    "ja": ("妹は陶芸が大好きです。", "sister", "陶芸"),
}


@pytest.mark.parametrize("code", list(LIKES))
def test_what_a_gifts_recipient_likes_is_read_in_its_language(code):
    said, relation, want = LIKES[code]
    interests = {s.name: s for s in Catalogue().intents["gift"].slots}["interests"]
    assert read_slot(interests, said, relation) == want
    assert read_slot(interests, said, "brother") == ""  # someone else's liking


def test_a_gift_request_is_filled_with_the_recipients_interest_said_in_spanish(settings):
    turns = [
        {"role": "user", "content": LIKES["es"][0], "time": "2024-03-01T10:00:00"},
        {"role": "assistant", "content": "¡Qué bien!", "time": "2024-03-01T10:01:00"},
    ]
    with Memory(settings, persist=False, models=ScriptedChatModel(script={"default": "no answer"})) as memory:
        memory.remember(turns, user_id=U, background=False)
        recall = memory.recall("¿Me ayudas a buscar un regalo para mi hermana?", user_id=U, at="2024-04-01T12:00:00")
        assert recall.intent == "gift" and recall.known["interests"].value == "la cerámica"
