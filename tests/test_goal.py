"""Goal-aware recall (issue 28): intents recognised by code, slots filled from memory (the newest
current value; a dislike never fills a liked slot; what the request states is not asked again), the
filling memories kept first, the answer told to confirm what is known and ask only for what is
missing, intent units stored by post-thinking, a deployment's own intents."""

from __future__ import annotations

import json

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, SystemMessage

from caim import Memory
from caim.core.scripted import ScriptedChatModel, scripted_models
from caim.graph.builder import with_memory
from caim.graph.services import Services
from caim.memory.intents import CATALOGUE_INTENTS, Catalogue, Slot, fill, read_slot
from caim.memory.records import MemoryRecord

U = "u"
EARLIER = [
    ("We lived in Lisbon for years.", "2024-01-05T10:00:00"),
    ("I'm vegetarian, have been for a decade.", "2024-01-05T10:02:00"),
    ("I can't stand Thai food, way too spicy for me.", "2024-02-01T10:00:00"),
    ("We moved to Porto last month.", "2024-03-01T10:00:00"),
    ("I love Italian food more than anything.", "2024-03-01T10:03:00"),
]
REQUEST = "Could you book us a table somewhere nice on Friday?"


@pytest.fixture
def memory(settings):
    m = Memory(settings, persist=False, models=ScriptedChatModel(script={"default": "no answer"}), background=False)
    yield m
    m.close()


def said(memory, items, user=U):
    for text, at in items:
        memory.remember([{"role": "user", "content": text, "time": at}], user_id=user, background=False)


def restaurant():
    return Catalogue().intents["restaurant"]


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        (REQUEST, "restaurant"),
        ("Can you help me plan a weekend trip in May?", "travel"),
        ("I need a birthday gift for my sister", "gift"),
        ("Please book me a dentist appointment", "appointment"),
        ("Find us tickets for a concert on Saturday", "entertainment"),
        ("What did I tell you about Porto?", ""),
        ("I went to the cinema yesterday", ""),
    ],
)
def test_intents_by_their_cues(text, intent):
    assert Catalogue().recognise(text) == intent


def test_a_request_without_cues_is_recognised_by_meaning(memory):
    recall = memory.recall("Where should we eat tonight?", user_id=U)
    assert recall.intent == "restaurant"
    assert memory.recall("How are you today?", user_id=U).intent == ""


def test_the_plans_task_names_an_intent_code_misses(settings):
    vague = "Can you sort something out for Ana's big day?"
    plan = {"needs_memory": "yes", "memory": "past", "tags": [], "time_expressions": [], "task": "gift"}
    for script, want in [({"default": "no answer"}, ""), ({"plan": plan, "default": "no answer"}, "gift")]:
        with Memory(settings, persist=False, models=scripted_models(script)[0], background=False) as m:
            assert m.recall(vague, user_id=U).intent == want


def test_slots_read_from_text():
    slots = {s.name: s for s in restaurant().slots}
    assert read_slot(slots["party_size"], "It will be the six of us.") == "6"
    assert read_slot(slots["budget"], "Keep it under 40 euros per person") == "40 euros"
    assert read_slot(slots["cuisine"], "I can't stand Thai food.") == ""  # a dislike fills no liked slot
    gift = {s.name: s for s in Catalogue().intents["gift"].slots}
    assert read_slot(gift["interests"], "My sister is really into pottery lately.", "sister") == "pottery"
    assert read_slot(gift["interests"], "My brother is really into chess.", "sister") == ""


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("We moved from Lisbon to Porto last month.", "Porto"),
        ("I'm from Manchester and it rains a lot.", "Manchester"),
        ("Our flat in Kraków is getting small.", "Kraków"),
        ("The clinic is in Utrecht, near the station.", "Utrecht"),
        ("We are going in May.", ""),
    ],
)
def test_where_the_user_lives_or_a_task_takes_place(text, want):
    assert read_slot(Slot("city", "", "city"), text) == want


def test_a_relations_city_is_not_the_users_and_a_statement_beats_a_mention():
    city = Slot("city", "", "city")
    assert read_slot(city, "My sister lives in Ottawa and keeps asking me to visit.") == ""
    assert read_slot(city, "Our team in Toronto just hit its goal.") == "Toronto"
    records = [
        _record("We moved from Grenoble to Lyon in January.", "2024-01-10"),
        _record("Last summer we rented an apartment in Biarritz.", "2024-02-10"),
    ]
    filled = fill(Catalogue().intents["travel"], "Plan our summer holiday", records)
    assert filled.known["home_city"].value == "Lyon"  # the newer record only mentions a place


def test_amounts_in_any_currency_and_a_relation_with_a_word_before_it():
    budget = Slot("budget", "", "money")
    assert read_slot(budget, "Our budget for the holiday is 8000 złoty.") == "8000 złoty"
    assert read_slot(budget, "A dinner shouldn't cost more than 500 kroner.") == "500 kroner"
    assert read_slot(budget, "I can spend 3 days there.") == ""
    recipient = {s.name: s for s in Catalogue().intents["gift"].slots}["recipient"]
    assert read_slot(recipient, "My best friend Priya just bought her first flat!") == "friend"
    availability = {s.name: s for s in Catalogue().intents["appointment"].slots}["availability"]
    assert read_slot(availability, "I used to be free on Mondays, but now only weekends.") == "weekends"


def _record(text: str, day: str) -> MemoryRecord:
    from datetime import datetime

    from caim.memory.records import SourceTurn

    when = datetime.fromisoformat(f"{day}T10:00:00")
    return MemoryRecord(
        id=text[:12],
        user_id=U,
        thought=text,
        tags=["personal"],
        event_time=when,
        sources=[SourceTurn(role="user", text=text, time=when, turn=1)],
    )


def test_a_slot_fact_no_key_event_keeps_is_kept_and_fills_a_later_task(memory):
    session = [
        {"role": "user", "content": "There are 8 of us now after the two new hires.", "time": "2024-03-10T10:00"},
        {"role": "assistant", "content": "A growing team!", "time": "2024-03-10T10:01"},
        {"role": "user", "content": "Everyone loved the korean place last time.", "time": "2024-03-10T10:02"},
        {"role": "assistant", "content": "Good to know.", "time": "2024-03-10T10:03"},
    ]
    memory.remember(session, user_id=U, background=False)
    memory.remember(session, user_id=U, background=False)  # a re-run stores nothing twice
    kept = [r for r in memory.list(user_id=U) if "8 of us" in r.thought]
    assert len(kept) == 1 and kept[0].kind == "raw"  # kept once, as said (the reader's or the task's tags)
    recall = memory.recall("Could you organise a team dinner for Wednesday?", user_id=U, at="2024-04-01T12:00:00")
    assert recall.known["party_size"].value == "8" and recall.known["cuisine"].value == "korean"
    assert {k.memory for k in recall.known.values()} <= {m["id"] for m in recall.memories}


def test_who_comes_along_and_what_a_recipient_is_into():
    company = {s.name: s for s in Catalogue().intents["entertainment"].slots}["company"]
    assert read_slot(company, "Went to a jazz night with friends on Friday.") == "friends"
    assert read_slot(company, "My sister and I always go to stand-up together.") == "my sister"
    interests = {s.name: s for s in Catalogue().intents["gift"].slots}["interests"]
    assert read_slot(interests, "These days she's obsessed with pottery.", "sister") == "pottery"
    assert read_slot(interests, "She spends every free hour gardening; huge tomatoes.", "mum") == "gardening"


def test_a_negated_value_a_home_and_a_relation_who_likes_an_outing():
    travel = {s.name: s for s in Catalogue().intents["travel"].slots}
    assert read_slot(travel["transport"], "The train was so relaxed, nobody wants to drive anymore.") == "train"
    assert read_slot(travel["lodging"], "We love staying in a cabin in the woods.") == "cabin"
    party = {s.name: s for s in restaurant().slots}["party_size"]
    assert read_slot(party, "Book somewhere in Porto for 5 amazing people.") == "5"
    assert read_slot(party, "Book it for 7 pm.") == "" and read_slot(party, "Book the cabin for 3 nights.") == ""
    gift = {s.name: s for s in Catalogue().intents["gift"].slots}
    assert read_slot(gift["recipient"], "We're spending Christmas at my brother's this year.") == ""
    assert read_slot(gift["recipient"], "It's my sister's birthday on Monday.") == "sister"
    assert read_slot(gift["occasion"], "Mother's Day is coming up again.") == "mother's day"
    assert read_slot(gift["interests"], "He's planning to spend all his time fly fishing.", "dad") == "fly fishing"
    company = {s.name: s for s in Catalogue().intents["entertainment"].slots}["company"]
    assert read_slot(company, "My son is 10 and loves anything sci-fi.") == "my son"
    assert read_slot(company, "My flatmates and I went clubbing last weekend.") == "my flatmates"
    assert read_slot(company, "My son is 10 and loves football.") == ""


def test_a_users_slot_turn_whose_reply_was_captured_still_fills_the_next_task(memory):
    assert Catalogue().recognise("Book a vietnamese place in Melbourne for 5 on Friday.") == "restaurant"
    session = [
        {
            "role": "user",
            "content": "Sort out Friday for the 5 of us in Melbourne, vietnamese please.",
            "time": "2024-04-13T08:45",
        },
        {"role": "assistant", "content": "Booked: Pho Mai in Fitzroy, Friday at 7 pm.", "time": "2024-04-13T08:46"},
    ]
    memory.remember(session, user_id=U, background=False)  # the reply is captured; the user's turn is kept too
    recall = memory.recall("Book dinner for my birthday crew on the 12th.", user_id=U, at="2024-05-01T12:00:00")
    assert {s: k.value for s, k in recall.known.items()} == {
        "cuisine": "vietnamese",
        "city": "Melbourne",
        "party_size": "5",
    }


def test_fill_takes_the_newest_current_value_and_leaves_stated_slots_alone(memory):
    said(memory, EARLIER)
    records: list[MemoryRecord] = memory.list(user_id=U)
    filled = fill(restaurant(), "Book a table for 3 people tonight", records)
    assert filled.known["city"].value == "Porto" and filled.known["cuisine"].value == "italian"
    assert filled.known["diet"].value == "vegetarian"
    assert filled.stated == {"party_size": "3"} and filled.missing == ["budget"]
    porto = next(r for r in records if "Porto" in r.thought)
    assert filled.known["city"].memory == porto.id and filled.known["city"].date == "2024-03-01"


def test_recall_fills_slots_keeps_the_fillers_and_asks_only_for_the_rest(memory):
    said(memory, EARLIER)
    recall = memory.recall(REQUEST, user_id=U, at="2024-04-01T12:00:00")
    assert recall.intent == "restaurant" and "ltm" in recall.route
    assert {s: k.value for s, k in recall.known.items()} == {
        "cuisine": "italian",
        "city": "Porto",
        "diet": "vegetarian",
    }
    assert recall.missing == ["party_size", "budget"]
    kept = [m["id"] for m in recall.memories]
    assert all(k.memory in kept for k in recall.known.values())
    assert kept[: len(recall.known)] == [k.memory for k in recall.known.values()]  # fillers first
    assert "task request" in recall.prompt and "ask only for: party_size, budget" in recall.prompt
    assert '- city: "Porto" (said 2024-03-01)' in recall.prompt
    assert "Thai" not in json.dumps([k.value for k in recall.known.values()])


def test_no_task_no_slots(memory):
    said(memory, EARLIER)
    recall = memory.recall("Do you remember where we lived before?", user_id=U)
    assert recall.intent == "" and recall.known == {} and "task request" not in recall.prompt


def test_post_thinking_stores_a_task_as_an_intent_unit_and_a_later_request_uses_it(memory):
    session = [
        {
            "role": "user",
            "content": "Can you book a table for the six of us? Mexican please.",
            "time": "2024-03-10T10:00",
        },
        {"role": "assistant", "content": "Done - booked for Saturday at 8!"},
    ]
    memory.remember(session, user_id=U, background=False)
    memory.remember(session, user_id=U, background=False)  # a re-run stores nothing twice
    (unit,) = [r for r in memory.list(user_id=U) if r.intent is not None]
    assert unit.intent.name == "restaurant" and unit.intent.outcome == "booked"
    assert unit.intent.slots == {"party_size": "6", "cuisine": "mexican"}
    assert [s.text for s in unit.sources if s.role == "user"] == [session[0]["content"]]
    recall = memory.recall("Book us a restaurant for Friday again", user_id=U, at="2024-04-01T12:00:00")
    assert recall.known["party_size"].memory == unit.id and recall.known["cuisine"].value == "mexican"


def test_a_deployments_own_intent(tmp_path, settings):
    (tmp_path / "intents.json").write_text(
        json.dumps(
            [
                {
                    "name": "haircut",
                    "description": "book a haircut",
                    "cues": [r"\bhaircut\b"],
                    "slots": [{"name": "barber", "query": "my barber", "kind": "vocab", "vocab": ["barber", "salon"]}],
                    "tag": "style",
                }
            ]
        )
    )
    catalogue = Catalogue.load(tmp_path)
    assert catalogue.recognise("I need a haircut on Monday") == "haircut"
    assert set(catalogue.intents) == {*(i.name for i in CATALOGUE_INTENTS), "haircut"}
    (tmp_path / "intents.json").write_text(
        '[{"name": "x", "description": "y", "slots": [{"name": "Bad Name", "query": "q"}]}]'
    )
    with pytest.raises(ValueError, match=r"intents\.json"):
        Catalogue.load(tmp_path)


def test_your_own_agent_gets_the_same_task_note(settings):
    seen = []

    class Agent(GenericFakeChatModel):
        def invoke(self, messages, *a, **kw):  # type: ignore[override]
            seen.append([m for m in messages if isinstance(m, SystemMessage)])
            return super().invoke(messages, *a, **kw)

    services = Services.create(settings, persist=False)
    memory = Memory(settings, services=services, models=ScriptedChatModel(script={"default": "no answer"}))
    said(memory, EARLIER)
    graph = with_memory(Agent(messages=iter([AIMessage("Sure!")])), services=services)
    graph.invoke({"messages": [("user", REQUEST)]}, context={"user_id": U})
    system = "\n".join(str(m.content) for m in seen[0])
    assert "task request" in system and '"Porto"' in system
    memory.close()


PERMIT = [
    {"role": "user", "content": "Can you renew my parking permit for the car?", "time": "2024-03-10T10:00"},
    {"role": "assistant", "content": "Done - it's renewed and confirmed until March.", "time": "2024-03-10T10:01"},
]


def _describes(messages, response_format):
    if "carry out a task" in str(messages[0].content):
        return {"tasks": [{"turn": 1, "description": "Renew the parking permit."}]}
    return "no answer"


def test_a_task_of_no_catalogue_intent_is_described_embedded_and_matched_later(settings):
    models = scripted_models({"key_events": _describes, "default": "no answer"})[0]
    with Memory(settings, persist=False, models=models, background=False) as m:
        m.remember(PERMIT, user_id=U, background=False)
        m.remember(PERMIT, user_id=U, background=False)  # a re-run stores nothing twice
        (unit,) = [r for r in m.list(user_id=U) if r.intent is not None]
        assert unit.intent.name == "other" and unit.intent.description == "renew the parking permit"
        assert unit.intent.outcome == "booked" and len(unit.intent.vector) > 100
        recall = m.recall("Could you sort out my parking permit renewal again?", user_id=U, at="2024-04-01T12:00")
        assert recall.intent == "renew the parking permit" and recall.memories[0]["id"] == unit.id
        assert m.recall("What's a good lentil soup recipe?", user_id=U, at="2024-04-01T12:00").intent == ""


@pytest.mark.parametrize("answer", ["no answer", {"tasks": [{"turn": 1, "description": "renew 2 permits <b>"}]}])
def test_no_unknown_intent_when_the_model_fails_or_describes_badly(settings, answer):
    models = scripted_models({"key_events": lambda m, f: answer, "default": "no answer"})[0]
    with Memory(settings, persist=False, models=models, background=False) as m:
        m.remember(PERMIT, user_id=U, background=False)
        assert not [r for r in m.list(user_id=U) if r.intent is not None]
        assert m.recall("Could you renew my parking permit again?", user_id=U, at="2024-04-01T12:00").intent == ""


def test_an_earlier_task_vector_of_another_length_is_passed_over_not_an_error():
    import numpy as np

    from caim.memory.intents import OTHER, closest_task
    from caim.memory.records import IntentUnit

    same = _record("Renew the parking permit", "2023-05-01")
    same.intent = IntentUnit(name=OTHER, description="renew a parking permit", vector=[1.0, 0.0, 0.0])
    other = _record("Order groceries for the week", "2023-05-02")
    other.intent = IntentUnit(name=OTHER, description="order groceries", vector=[1.0, 0.0, 0.0, 0.0])
    found, sim = closest_task(np.array([1.0, 0.0, 0.0], dtype=np.float32), [other, same])
    assert found is same and sim == 1.0


def test_earlier_tasks_are_read_once_per_write_version_within_a_bound(monkeypatch):
    from caim.memory.intents import OTHER, LearnedTasks
    from caim.memory.records import IntentUnit

    permit = _record("Renew the parking permit", "2020-01-01")
    permit.intent = IntentUnit(name=OTHER, description="renew the parking permit", vector=[1.0, 0.0])
    newer = [_record(f"Task {i}", "2024-01-01") for i in range(700)]  # newer tasks, all in the same tag

    class Store:
        version_now, reads = 1, 0

        def version(self, user_id):
            return self.version_now

        def page(self, user_id, offset, limit, tags=None):
            self.reads += 1
            return [*newer, permit][offset : offset + limit]

    store = Store()
    tasks = LearnedTasks(store)
    assert tasks.of(U) == [permit]  # older than 700 newer records of the tag
    reads = store.reads
    assert tasks.of(U) == [permit] and store.reads == reads  # same version: no read
    store.version_now = 2
    tasks.of(U)
    assert store.reads > reads  # a write of the user's: read again
    monkeypatch.setattr("caim.memory.intents.LEARNED_MAX", 500)
    assert LearnedTasks(store).of(U) == []  # past the newest 500 of the tag: not read


def test_what_a_recipient_likes_said_by_their_name(memory):
    said(
        memory,
        [
            ("My sister Anna just moved to Leeds!", "2024-03-01T10:00:00"),
            ("Anna and I play chess every Sunday.", "2024-03-08T10:00:00"),
            ("Tom plays golf badly.", "2024-03-09T10:00:00"),
        ],
    )
    recall = memory.recall("Help me find a gift for my sister.", user_id=U, at="2024-04-01T12:00:00")
    assert recall.known["interests"].value == "chess"
    interests = {s.name: s for s in Catalogue().intents["gift"].slots}["interests"]
    assert read_slot(interests, "Tom plays golf badly.", "sister", ["Anna"]) == ""  # not her name


def test_a_slot_fact_is_tagged_as_any_message_not_with_the_tasks_it_could_serve(memory):
    session = [
        {"role": "user", "content": "Lol yeah, 4 of us", "time": "2024-03-10T10:00"},
        {"role": "assistant", "content": "Nice.", "time": "2024-03-10T10:01"},
    ]
    memory.remember(session, user_id=U, background=False)
    kept = [r for r in memory.list(user_id=U) if "4 of us" in r.thought]
    assert len(kept) == 1  # kept for a later task's party size
    assert not {"restaurants", "trips", "food", "travel"} & set(kept[0].tags)  # no task's term as its topic
    recall = memory.recall("Could you book us a table for Friday?", user_id=U, at="2024-04-01T12:00:00")
    assert recall.known["party_size"].value == "4"
