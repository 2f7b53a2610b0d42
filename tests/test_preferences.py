"""Preference polarity and reason (issue 27, item 1): the code signal, the record fields, the rule
between model and code, maintenance of a turned preference, the answer's memory line, search and
list filters, export and import."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from caim import InputError
from caim.memory.build import ThoughtDraft, preference
from caim.memory.records import MemoryRecord
from caim.memory.text.polarity import polarity
from caim.prompts import thoughts
from caim.prompts.respond import memory_lines
from tests.scripts import thoughts as scripted_thoughts

DATA = Path(__file__).parent / "data" / "preferences.jsonl"
BEACHES = "I can't stand crowded beaches, too noisy."
T0 = datetime(2024, 5, 7, 10, tzinfo=UTC)


def said(memory, text, at, user="marta"):
    return memory.remember([{"role": "user", "content": text, "time": at}], user_id=user, background=False)


def only(memory, user="marta", **kw):
    (rec,) = memory.list(user_id=user, **kw)
    return rec


# ---- the code signal ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "want", "reason"),
    [
        (BEACHES, "dislike", "too noisy"),
        ("I don't love it anymore", "dislike", ""),
        ("I really like hiking because it clears my head", "like", "it clears my head"),
        ("I don't mind rainy days", "neutral", ""),
        ("Ich liebe Berlin, weil es so lebendig ist", "like", "es so lebendig ist"),
        ("Je n'aime pas le fromage", "dislike", ""),
        ("No me gusta el café", "dislike", ""),
        ("我很喜欢爬山，因为空气好", "like", "空气好"),
        ("うるさいから、混んだビーチは嫌い", "dislike", "うるさい"),
    ],
)
def test_the_code_signal_reads_polarity_negation_and_reason(text, want, reason):
    found = polarity(text)
    assert found is not None and (found.polarity, found.reason) == (want, reason)
    assert reason in text  # the reason is a span of the turn: it asserts nothing the turn does not hold


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("I'm loving it!", "like"),
        ("Lately, I've been interested in card-making.", "like"),
        ("Dance is my passion.", "like"),
        ("Clay is incredible, it brings me so much joy!", "like"),
        ("I'm not interested in golf.", "dislike"),
    ],
)
def test_more_english_cues(text, want):
    found = polarity(text)
    assert found is not None and found.polarity == want


@pytest.mark.parametrize(
    "text",
    [
        "I hope they love it!",
        "You must love seeing how you've grown.",
        "Their love and support got me through.",
        "It taught us a lot about love and loyalty.",
        "Fingers crossed a producer falls in love with it.",
        "It seems that you are also very interested in tourism.",
    ],
)
def test_another_persons_attitude_or_a_noun_is_no_preference_of_the_speaker(text):
    assert polarity(text) is None


@pytest.mark.parametrize("text", ["Do you like jazz?", "It looks like rain", "I'd like a table for two", "Hi!"])
def test_questions_and_other_likes_state_no_preference(text):
    assert polarity(text) is None


def test_the_labelled_set_is_read_by_code_alone_with_accuracy_of_at_least_0_9():
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(rows) >= 60 and {r["lang"] for r in rows} == {"en", "de", "fr", "es", "zh", "ja"}
    got = [(p.polarity if (p := polarity(r["text"])) else "none") == r["polarity"] for r in rows]
    assert sum(got) / len(got) >= 0.9


# ---- model and code ----------------------------------------------------------------------------
def draft(event, **kw):
    return ThoughtDraft(turn=1, event=event, when=T0, source=event, **kw)


def test_code_wins_where_it_found_a_cue_and_the_model_fills_in_where_it_found_none():
    assert preference(draft(BEACHES, polarity="like")) == ("dislike", "too noisy", "")
    assert preference(draft("Sushi night is the best.", polarity="like")) == ("like", None, "")
    assert preference(draft("Sushi night is the best.")) == (None, None, "")
    assert preference(draft(BEACHES, speaker="assistant")) == (None, None, "")  # the assistant's words
    assert preference(draft(BEACHES, speaker="Sam")) == ("dislike", "too noisy", "")  # Sam's, on Sam's record


def test_a_preference_told_of_a_pet_or_another_person_is_held_by_them():
    assert preference(draft("My dog Biscuit loves the beach.", polarity="like")) == ("like", None, "My dog Biscuit")
    assert preference(draft("My sister hates flying.")) == ("dislike", None, "My sister")


def test_a_model_reason_is_kept_only_when_its_source_holds_it():
    text = "Sushi night is the best, fresh fish every Friday."
    assert preference(draft(text, polarity="like", reason="fresh fish every Friday")) == (
        "like",
        "fresh fish every Friday",
        "",
    )
    assert preference(draft(text, polarity="like", reason="fresh fish since 2019")) == ("like", None, "")


def test_the_thoughts_schema_enumerates_polarity_and_rejects_other_values():
    model = thoughts.schema([1], ["food"], ["food"])
    prop = model.model_json_schema()["$defs"]["Thought"]["properties"]["polarity"]
    assert prop["anyOf"][0]["enum"] == ["like", "dislike", "neutral"]
    ok = {"event": 1, "thought": "likes sushi", "tags": ["food"], "polarity": "like"}
    model.model_validate({"thoughts": [ok], "new_terms": []})
    with pytest.raises(ValueError, match="polarity"):
        model.model_validate({"thoughts": [{**ok, "polarity": "love"}], "new_terms": []})


def test_a_model_answering_a_polarity_outside_the_set_leaves_the_code_signal(memory, scripted):
    _models, _calls, script = scripted

    def loves(messages, rf):
        out = scripted_thoughts(messages, rf)
        for t in out["thoughts"]:
            t["polarity"] = "love"
        return out

    script["thoughts"] = loves
    said(memory, BEACHES, "2024-05-07T10:00:00")
    rec = only(memory)
    assert (rec.polarity, rec.reason) == ("dislike", "too noisy")


# ---- the record --------------------------------------------------------------------------------
def test_remember_stores_polarity_and_reason(memory):
    said(memory, BEACHES, "2024-05-07T10:00:00")
    said(memory, "My sister Ana lives in Lisbon.", "2024-05-07T10:05:00")
    recs = {r.thought: r for r in memory.list(user_id="marta")}
    beach = next(r for t, r in recs.items() if "beaches" in t)
    assert (beach.polarity, beach.reason) == ("dislike", "too noisy")
    lisbon = next(r for t, r in recs.items() if "Lisbon" in t)
    assert (lisbon.polarity, lisbon.reason) == (None, None)


def test_an_old_record_without_the_fields_loads():
    old = {"user_id": "ann", "thought": "I live in Porto.", "tags": ["home"], "event_time": "2023-01-01T00:00:00Z"}
    rec = MemoryRecord.model_validate_json(json.dumps(old))
    assert rec.polarity is None and rec.reason is None
    assert "polarity" not in rec.brief()


def test_the_answer_prompt_shows_the_preference_line(memory):
    said(memory, BEACHES, "2024-05-07T10:00:00")
    [line] = memory_lines([only(memory).brief()])
    assert 'preference: dislikes "crowded beaches" \u2014 "too noisy"' in line
    got = memory.recall("Do I like crowded beaches?", user_id="marta")  # the block the answer is given
    assert 'preference: dislikes "crowded beaches" \u2014 "too noisy"' in got.prompt


def test_search_and_list_filter_by_polarity(memory):
    said(memory, BEACHES, "2024-05-07T10:00:00")
    said(memory, "I love hiking in the mountains.", "2024-05-07T10:05:00")
    said(memory, "My sister Ana lives in Lisbon.", "2024-05-07T10:10:00")
    assert [m["thought"] for m in memory.search("beaches hiking", user_id="marta", polarity="dislike")] == [
        only(memory, polarity="dislike").thought
    ]
    assert "hiking" in only(memory, polarity="like").thought
    assert memory.list(user_id="marta", polarity="neutral") == []
    with pytest.raises(InputError, match="polarity must be one of like, dislike, neutral"):
        memory.search("beaches", user_id="marta", polarity="love")
    with pytest.raises(InputError, match="polarity must be one of"):
        memory.list(user_id="marta", polarity="hates")


def test_export_and_import_keep_polarity_and_reason(memory):
    said(memory, BEACHES, "2024-05-07T10:00:00")
    dump = memory.export(user_id="marta")
    assert [(m["polarity"], m["reason"]) for m in dump["memories"]] == [("dislike", "too noisy")]
    memory.import_(dump, user_id="bob")
    rec = only(memory, user="bob")
    assert (rec.polarity, rec.reason) == ("dislike", "too noisy")


def test_the_cli_lists_and_filters_by_polarity(memory, settings):
    from typer.testing import CliRunner

    from caim.agent.surfaces.cli import app

    said(memory, BEACHES, "2024-05-07T10:00:00")
    memory.close()
    runner = CliRunner(env={"COLUMNS": "200"})  # wide enough that no thought wraps
    args = ["memories", "list", "--user", "marta", "--data-dir", str(settings.data_dir)]
    shown = runner.invoke(app, [*args, "--polarity", "dislike"])
    assert shown.exit_code == 0 and "too noisy" in shown.output and "dislike" in shown.output
    assert "no memories" in runner.invoke(app, [*args, "--polarity", "like"]).output
    bad = runner.invoke(app, [*args, "--polarity", "love"])
    assert bad.exit_code != 0 and "polarity must be one of" in bad.output


# ---- maintenance -------------------------------------------------------------------------------
def test_a_like_then_a_dislike_of_the_same_thing_closes_the_like_with_history(agent):
    agent.chat("I love crowded beaches in summer.", user_id="ann", at="2023-03-01T09:00:00")
    agent.end_session(user_id="ann", at="2023-03-01T10:00:00")
    agent.chat(BEACHES, user_id="ann", at="2023-06-01T09:00:00")
    summary = agent.end_session(user_id="ann", at="2023-06-01T10:00:00")
    [change] = [c for c in summary.changes if c["change"] == "contradicts"]
    recs = {r.id: r for r in agent.memories("ann")}
    new, old = recs[change["record"]], recs[change["others"][0]]
    assert (old.polarity, new.polarity) == ("like", "dislike")
    assert new.current and old.valid_until is not None and old.superseded_by == new.id
    assert [h.change for h in old.history][-2:] == ["superseded", "contradicted"]
    assert "was a like, now a dislike" in old.history[-1].note
    assert agent.memory.history(new.id, user_id="ann")  # the chain reaches the old like


def test_the_benchmark_prints_accuracy_per_language_and_writes_its_doc(tmp_path, capsys):
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "preferences.py"
    spec = importlib.util.spec_from_file_location("caim_bench_preferences", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    doc = tmp_path / "preferences.md"
    result = bench.main(["--doc", str(doc)])
    hit, n = result["per"]["all"]
    assert n >= 200 and hit / n >= 0.9
    # turns of real conversations, read from ../shared by reference; LoCoMo's statements are the
    # harder ones (a friend's art, a pet's favourite food: whose liking is it?)
    for source, floor in (("locomo-dev", 0.85), ("gvd", 0.9)):
        right, total = result["per"][source]
        assert total >= 40 and right / total >= floor, source
    kept = [ok for _, ok in result["recalled"]]
    assert kept and sum(kept) / len(kept) >= 0.9  # "Do I like X?" keeps the stated dislike of X
    printed = capsys.readouterr().out
    assert "| ja |" in printed and f"| all | {n} | {hit} |" in printed and printed.strip() in doc.read_text()


def test_a_like_and_a_dislike_of_different_things_both_stay_current(memory):
    said(memory, "I hate spicy food, it burns.", "2024-05-01T10:00:00")
    said(memory, "I really like Japanese food.", "2024-05-08T10:00:00")
    assert sorted(r.polarity for r in memory.list(user_id="marta") if r.current) == ["dislike", "like"]


def test_a_like_then_a_dislike_of_the_same_thing_in_one_session_closes_the_like_with_history(memory):
    turns = [
        {"role": "user", "content": "I love crowded beaches in summer.", "time": "2024-05-07T10:00:00"},
        {"role": "user", "content": BEACHES, "time": "2024-05-07T10:05:00"},
    ]
    memory.remember(turns, user_id="marta", background=False)
    recs = memory.list(user_id="marta")
    [old] = [r for r in recs if r.polarity == "like"]
    [new] = [r for r in recs if r.polarity == "dislike"]
    assert new.current and old.valid_until is not None and old.superseded_by == new.id
    assert [h.change for h in old.history][-2:] == ["superseded", "contradicted"]
    assert "was a like, now a dislike" in old.history[-1].note and "was a like" in new.history[-1].note
    assert [r.id for r in recs if r.current and r.polarity] == [new.id]  # one current polarity of the thing


def test_a_pets_preference_is_shown_as_theirs_and_left_out_of_the_users_preferences(memory, settings):
    from typer.testing import CliRunner

    from caim.agent.surfaces.cli import app

    said(memory, "My dog Biscuit loves the beach.", "2024-05-07T10:00:00")
    rec = only(memory)
    assert (rec.polarity, rec.holder) == ("like", "My dog Biscuit") and rec.brief()["holder"] == "My dog Biscuit"
    assert memory.list(user_id="marta", polarity="like") == []
    assert memory.search("beach", user_id="marta", polarity="like") == []
    [line] = memory_lines([rec.brief()])
    assert 'preference of "My dog Biscuit" (not the speaker\'s): likes' in line
    dump = memory.export(user_id="marta")
    memory.import_(dump, user_id="bob")
    assert only(memory, user="bob").holder == "My dog Biscuit"
    memory.close()
    runner = CliRunner(env={"COLUMNS": "200"})
    shown = runner.invoke(app, ["memories", "list", "--user", "marta", "--data-dir", str(settings.data_dir)])
    assert "like (held by My dog Biscuit)" in shown.output


# ---- lasting attitudes in six languages ----------------------------------------------------------
CUES = Path(__file__).parent / "data" / "polarity_cues.jsonl"


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("Gardening makes me so happy, I'm out there every evening.", "like"),
        ("Knitting keeps me sane during exam season.", "like"),
        ("Running is what's keeping me sane this winter.", "like"),
        ("Pottery has been helping me unwind after work.", "like"),
        ("That documentary about octopuses was brilliant.", "like"),
        ("The new Dune film was such a letdown.", "dislike"),
        ("Gärtnern macht mich einfach glücklich.", "like"),
        ("Lesen ist meine Zuflucht nach der Arbeit.", "like"),
        ("Le jardinage me rend vraiment heureuse.", "like"),
        ("Je ne supporte pas la coriandre.", "dislike"),
        ("Cocinar me hace muy feliz.", "like"),
        ("Esa película fue buenísima.", "like"),
        ("画画让我特别开心。", "like"),
        ("读书是我的避风港。", "like"),
        ("我特别讨厌挤地铁。", "dislike"),
        ("読書は私の逃げ場なんだ。", "like"),
        ("仕事がつまらなくてしかたない。", "dislike"),
        ("Honestly nothing helps me relax like a long swim.", "like"),
        ("I love nothing more than a long walk.", "like"),
        ("Nothing makes me happy anymore.", "dislike"),
        ("I'm a huge fan of Studio Ghibli films.", "like"),
        ("Jazz really isn't for me.", "dislike"),
        ("Writing and creative projects are what get me through tough times.", "like"),
        ("Ich bin ein riesiger Fan von Studio Ghibli.", "like"),
        ("Die Lasagne bei Luigi ist die beste der Stadt.", "like"),
        ("Je suis une grande fan des films de Miyazaki.", "like"),
        ("L'escalade, c'est mon bonheur.", "like"),
        ("Mon boulot m'ennuie de plus en plus.", "dislike"),
        ("Soy un gran fan de las películas de Miyazaki.", "like"),
        ("El último libro de Zafón me pareció aburridísimo.", "dislike"),
        ("恐怖片真不是我的菜。", "dislike"),
        ("我对现在的工作越来越厌倦了。", "dislike"),
        ("ホラー映画は私には合わない。", "dislike"),
        ("今の仕事に飽きてきた。", "dislike"),
        ("走ると頭がすっきりする。", "like"),
        ("Loud restaurants wear me out.", "dislike"),
        ("Mit Opern kann ich nichts anfangen.", "dislike"),
        ("Mein absoluter Favorit ist der Apfelstrudel.", "like"),
        ("Ce roman a été un vrai coup de cœur.", "like"),
        ("Le bruit des voisins m'insupporte.", "dislike"),
        ("El reguetón me pone de los nervios.", "dislike"),
        ("做手工是我的快乐源泉。", "like"),
        ("吵闹的餐厅让我很抓狂。", "dislike"),
        ("毎朝のコーヒーがやめられない。", "like"),
        ("彼女の歌声にすっかり虜になった。", "like"),
        ("Early mornings are not really my scene.", "dislike"),
        ("Fotografieren macht mir große Freude.", "like"),
        ("Cette série m'a complètement bluffée.", "like"),
        ("Soy más de montaña que de playa.", "like"),
        ("No soy muy de discotecas.", "dislike"),
        ("这家的菜很对我胃口。", "like"),
        ("这种咖啡我实在喝不惯。", "dislike"),
        ("最近ヨガにハマった。", "like"),
        ("満員電車で通勤するとストレスがたまる。", "dislike"),
    ],
)
def test_lasting_attitudes_are_read_in_every_language(text, want):
    found = polarity(text)
    assert found is not None and (found.polarity, found.holder) == (want, "")


@pytest.mark.parametrize(
    ("text", "holder"),
    [
        ("Mi hermano odia el fútbol.", "Mi hermano"),
        ("我家猫特别喜欢晒太阳。", "我家猫"),
        ("Mon chien adore la plage.", "Mon chien"),
        ("Meine Tochter ist verrückt nach Pferden.", "Meine Tochter"),
        ("Mein Mann mag keine Pilze.", "Mein Mann"),
        ("姉の犬は雪が好き。", "姉の犬"),
        ("Meine Oma schwärmt für alte Filme.", "Meine Oma"),
    ],
)
def test_a_pets_or_a_relatives_attitude_is_theirs(text, holder):
    found = polarity(text)
    assert found is not None and found.holder == holder


def test_the_polarity_cue_set_is_read_with_its_holders_and_no_one_off_excitement_plan_or_wish():
    rows = [json.loads(line) for line in CUES.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert {r["lang"] for r in rows} == {"en", "de", "fr", "es", "zh", "ja"}
    stated = [r for r in rows if r["polarity"]]
    read = [(p.polarity, bool(p.holder)) if (p := polarity(r["text"])) else None for r in stated]
    right = sum(got == (r["polarity"], bool(r["holder"])) for got, r in zip(read, stated, strict=True))
    assert right / len(stated) >= 0.95
    said = {r["text"]: polarity(r["text"]) for r in rows if not r["polarity"]}
    assert [text for text, p in said.items() if p is not None and p.polarity != "neutral"] == []


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("Salir a correr me despeja la mente.", "like"),
        ("Les réunions interminables m'agacent.", "dislike"),
        ("Yoga hilft mir, abzuschalten.", "like"),
    ],
)
def test_a_short_sentence_the_detection_is_unsure_of_is_read_with_the_other_tables(text, want):
    found = polarity(text)
    assert found is not None and found.polarity == want


def test_an_english_sentence_holding_another_languages_cue_is_no_preference():
    assert polarity("The people around me gave me renewed energy and a purpose.") is None
