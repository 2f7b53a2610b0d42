"""The profile above the concrete memories (issue 27, items 2-4): a background per aspect rewritten
after each session (grounded, versioned, code's paragraph when the model fails or invents), preference
principles found by clustering, linked into the answer's prompt, and shown by ``Memory.profile``,
export/import, the CLI, MCP and the browser; forgetting and denying leave nothing of the forgotten in it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from caim.agent.facade import Turn
from caim.memory.profile import PREFERENCES, Background, Profile, about_user, clusters, grounded_text
from caim.prompts.respond import PROFILE_HEAD

U = "marta"
FOOD = [
    ("I love Italian food, especially fresh pasta.", "2024-05-01T10:00:00"),
    ("I hate spicy food, it burns my stomach.", "2024-05-01T10:01:00"),
]
LATER = [("I really like sushi, salmon above all.", "2024-05-08T10:00:00")]


def session(memory, said, user=U):
    msgs = [{"role": "user", "content": text, "time": at} for text, at in said]
    return memory.remember(msgs, user_id=user, background=False)


def food(profile: Profile) -> Background:
    return profile.backgrounds["food"]


# ---- code pieces --------------------------------------------------------------------------------------
def test_clusters_choose_k_by_the_data():
    rng = np.random.default_rng(0)
    centers = np.eye(8)[:3]
    x = np.vstack([c + 0.05 * rng.standard_normal((6, 8)) for c in centers])
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    labels = clusters(x)
    assert len(set(labels.tolist())) == 3
    assert all(len(set(labels[i * 6 : i * 6 + 6].tolist())) == 1 for i in range(3))
    one = np.tile(centers[0], (6, 1)) + 0.01 * rng.standard_normal((6, 8))
    assert set(clusters(one / np.linalg.norm(one, axis=1, keepdims=True)).tolist()) == {0}  # no split is better


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("What do you know about me?", True),
        ("what do I like?", True),
        ("Qu'est-ce que tu sais de moi ?", True),
        ("¿Qué sabes de mí?", True),
        ("你知道我什么？", True),
        ("What do I need for the trip?", False),
        ("Do you know Paris?", False),
    ],
)
def test_questions_about_the_user_as_a_whole(text, want):
    assert about_user(text) is want


# ---- backgrounds ------------------------------------------------------------------------------------
def test_a_session_writes_the_background_of_each_aspect_it_touched(memory):
    session(memory, FOOD)
    profile = memory.profile(user_id=U)
    bg = food(profile)
    stored = {r.id: r for r in memory.list(user_id=U)}
    assert set(bg.members) == set(stored) and bg.source == "model"
    assert "pasta" in bg.text and "spicy" in bg.text


def test_the_next_session_rewrites_it_and_keeps_the_earlier_version(memory):
    session(memory, FOOD)
    first = food(memory.profile(user_id=U)).text
    session(memory, LATER)
    bg = food(memory.profile(user_id=U))
    assert "sushi" in bg.text and "pasta" in bg.text  # recursive: the paragraph before, plus the new memories
    assert [v.text for v in bg.history] == [first]


def test_an_invented_specific_is_refused_and_the_aspects_newest_memories_stand(memory, scripted):
    _models, _calls, script = scripted
    script["profile"] = lambda messages, rf: (
        {"backgrounds": [{"aspect": "food", "text": "Moved to Lisbon in 2019 and loves pasta."}]}
        if "backgrounds" in rf["json_schema"]["schema"]["properties"]
        else {"principles": []}
    )
    out = session(memory, FOOD)
    bg = food(memory.profile(user_id=U))
    assert bg.source == "code" and "Lisbon" not in bg.text and "2019" not in bg.text
    assert "Italian food" in bg.text and "spicy food" in bg.text
    step = next(e["data"] for e in out.trace if e["node"] == "update_profile" and e["kind"] == "step")
    assert step["aspects_by_model"] == [] and "food" in step["aspects"]


def test_a_failing_model_leaves_codes_background(memory, scripted):
    _models, _calls, script = scripted
    script["profile"] = "not json"
    session(memory, FOOD)
    bg = food(memory.profile(user_id=U))
    assert bg.source == "code" and "pasta" in bg.text


def test_the_grounding_rule():
    from caim.memory.records import MemoryRecord, utcnow

    rec = MemoryRecord(user_id=U, thought="Works as a nurse at the hospital.", tags=["work"], event_time=utcnow())
    assert grounded_text("A nurse at a hospital.", [rec])
    assert not grounded_text("A nurse at St Mary's since 2015.", [rec])
    assert not grounded_text("", [rec])


# ---- principles ---------------------------------------------------------------------------------------
def test_preferences_become_principles_with_likes_dislikes_and_members(memory):
    session(memory, FOOD)
    session(memory, LATER)
    (p,) = memory.profile(user_id=U).principles
    prefs = {r.id for r in memory.list(user_id=U) if r.polarity is not None}
    assert set(p.members) == prefs and len(prefs) == 3
    assert any("Italian food" in x for x in p.likes) and any("sushi" in x for x in p.likes)
    assert any("spicy food" in x for x in p.dislikes)
    assert len(p.members) <= PREFERENCES


def test_a_model_principle_naming_what_its_members_do_not_hold_is_refused(memory, scripted):
    _models, _calls, script = scripted
    normal = script["profile"]
    script["profile"] = lambda messages, rf: (
        normal(messages, rf)
        if "backgrounds" in rf["json_schema"]["schema"]["properties"]
        else {"principles": [{"group": 1, "requirement": "Tokyo restaurants", "summary": "Likes Tokyo."}]}
    )
    session(memory, FOOD)
    (p,) = memory.profile(user_id=U).principles
    assert p.source == "code" and "Tokyo" not in p.requirement + p.summary


# ---- the answer -------------------------------------------------------------------------------------------
def test_a_concrete_hit_brings_its_aspects_background(memory):
    assert PROFILE_HEAD not in memory.recall("Do you remember what I said about pasta?", user_id=U).prompt
    session(memory, FOOD)
    session(memory, LATER)
    recall = memory.recall("Do you remember what I said about pasta?", user_id=U)
    assert any("pasta" in m["thought"] for m in recall.memories)
    assert PROFILE_HEAD in recall.prompt and '"food: ' in recall.prompt
    assert "likes: " in recall.prompt  # the principle its memory belongs to


def test_what_do_you_know_about_me_is_answered_from_the_profile(agent):
    agent.record_turns(user_id=U, turns=[Turn(text, "Noted.", at) for text, at in FOOD])
    agent.end_session(user_id=U)
    reply = agent.chat("What do you know about me?", user_id=U)
    assert "food: " in reply.text and "likes: " in reply.text


# ---- forgetting, export, import ------------------------------------------------------------------------------
def test_forgetting_a_memory_leaves_nothing_of_it_in_the_profile(memory):
    session(memory, FOOD)
    session(memory, LATER)
    spicy = next(r for r in memory.list(user_id=U) if "spicy" in r.thought)
    assert memory.forget(spicy.id, user_id=U)
    profile = memory.profile(user_id=U)
    dumped = profile.model_dump_json()
    assert "spicy" not in dumped and "stomach" not in dumped and spicy.id not in dumped
    assert "pasta" in food(profile).text


def test_denying_an_aspect_drops_its_background(memory):
    session(memory, FOOD)
    assert memory.deny("food", user_id=U) >= 1
    profile = memory.profile(user_id=U)
    assert "food" not in profile.backgrounds and "pasta" not in profile.model_dump_json()


def test_forget_all_drops_the_profile(memory):
    session(memory, FOOD)
    memory.forget_all(user_id=U)
    assert memory.profile(user_id=U).empty


def test_export_and_import_carry_the_profile(memory):
    session(memory, FOOD)
    data = memory.export(user_id=U)
    assert data["profile"]["backgrounds"]["food"]["text"] == food(memory.profile(user_id=U)).text
    memory.import_(json.loads(json.dumps(data)), user_id="copy")
    copied = memory.profile(user_id="copy")
    ids = {r.id for r in memory.list(user_id="copy")}
    assert food(copied).text == food(memory.profile(user_id=U)).text and set(food(copied).members) == ids


def test_an_imported_profile_that_its_records_do_not_ground_is_rebuilt(memory):
    session(memory, FOOD)
    data = memory.export(user_id=U)
    data["profile"]["backgrounds"]["food"]["text"] = "Lives at 12 Rua Augusta, Lisbon; card 4111 1111."
    memory.import_(data, user_id="copy")
    bg = food(memory.profile(user_id="copy"))
    assert "Lisbon" not in bg.text and "4111" not in bg.text and bg.source == "code"


def test_a_malformed_imported_profile_is_a_one_line_error(memory):
    from caim.core.errors import CaimError

    session(memory, FOOD)
    data = memory.export(user_id=U)
    data["profile"] = {"backgrounds": {"food": {"aspect": "food", "text": "x" * 5000}}}
    with pytest.raises(CaimError, match="not a caim profile") as err:
        memory.import_(data, user_id="copy")
    assert "\n" not in str(err.value)


def test_a_preference_told_of_a_pet_is_stored_as_its_own_and_never_in_the_users_principles(memory):
    session(memory, [*FOOD, ("My dog Biscuit loves the beach.", "2024-05-07T10:30:00")])
    session(memory, LATER)
    recs = memory.list(user_id=U)
    dog = next(r for r in recs if "Biscuit" in r.thought)
    assert (dog.polarity, dog.holder, dog.own_polarity) == ("like", "My dog Biscuit", None)
    members = {i for p in memory.profile(user_id=U).principles for i in p.members}
    assert members and dog.id not in members
    assert not any("beach" in x for p in memory.profile(user_id=U).principles for x in p.likes)
