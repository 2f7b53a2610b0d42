"""caim's code path in languages other than English: detection, the lexical index, and the code
signals, over small conversations in German, French, Spanish, Chinese and Japanese written for
these tests."""

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from caim.core.embeddings import Embedder
from caim.eval.fit import ALL_SIGNALS
from caim.memory.capture import captures, raw_record, reply_worth_keeping, states_fact
from caim.memory.search.engine import scoring
from caim.memory.search.retrieval import Query, Retriever
from caim.memory.stm import Exchange
from caim.memory.storage.store import MemoryStore
from caim.memory.text import (
    asks_about_past,
    date_windows,
    has_time_expression,
    is_aggregate_question,
    is_small_talk,
    is_when_question,
    memory_signals,
    named_speakers,
    names,
    prior,
    tells_past_action,
    tokenize,
    without_opener,
)
from caim.memory.text.lang import detect, expecting
from caim.memory.text.timeref import find_expressions, resolve, with_dates

T0 = datetime(2024, 3, 11, 18, tzinfo=UTC)  # a Monday

#: One conversation per language: (speaker, turn); the first turn of each is the evidence a later
#: question looks for, the others are distractors said after it.
CONVERSATIONS = {
    "de": [
        ("Lena", "Ich habe letzte Woche das Buch „Momo“ von Michael Ende gelesen."),
        ("Jonas", "Wie schön! Wir waren am Wochenende in den Bergen wandern."),
        ("Lena", "Mein Bruder spielt seit drei Jahren Cello im Orchester."),
        ("Jonas", "Danke schön!"),
    ],
    "fr": [
        ("Claire", "Ma sœur a acheté un cheval à Lyon l'année dernière."),
        ("Hugo", "Génial ! Moi, j'ai commencé un cours de poterie le 3 mars."),
        ("Claire", "J'ai adopté deux chatons la semaine dernière, ils s'appellent Tic et Tac."),
        ("Hugo", "Merci beaucoup !"),
    ],
    "es": [
        ("Lucía", "Ayer compré una bicicleta roja para ir al trabajo."),
        ("Mateo", "¡Qué bien! Mi hermana Carmen se mudó a Sevilla el mes pasado."),
        ("Lucía", "Hace tres días fuimos al concierto de Rosalía con Pablo."),
        ("Mateo", "¡Muchas gracias!"),
    ],
    "zh": [
        ("小雨", "我上周在图书馆读了一本小说，叫《百年孤独》。"),
        ("小明", "太好了！我们周末去公园放风筝了。"),
        ("小雨", "我妹妹在上海学钢琴，已经三年了。"),
        ("小明", "你好！"),
    ],
    "ja": [
        ("さくら", "先週、友達の田中さんと京都の美術館に行きました。"),
        ("けん", "いいですね！私は昨日、新しいカメラを買いました。"),
        ("さくら", "妹は毎週ピアノを習っています。"),
        ("けん", "ありがとう！"),
    ],
}


@pytest.mark.parametrize("code", list(CONVERSATIONS))
def test_each_conversation_is_detected_in_its_language(code):
    statements = [t for _, t in CONVERSATIONS[code][:3]]
    assert {detect(t).code for t in statements} == {code}


def test_english_stays_the_default_for_latin_text():
    assert detect("We went hiking in the Alps last week with Anna.").code == "en"
    assert detect("Pottery class!").code == "en"  # no vote for another language
    assert detect("The man with the hat was there.").code == "en"  # "man", "hat", "was" are German too
    assert detect("Hola").code == "es" and detect("Danke!").code == "de"  # one or two words: one vote is enough


def _language_check() -> list[dict]:
    path = Path(__file__).parent / "data" / "language_check.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("code", ["en", "de", "fr", "es", "zh", "ja"])
def test_short_messages_are_detected_in_their_language(code):
    """Short messages (tests/data/language_check.jsonl, written before their letters were read) are
    read in their language: a Spanish sentence of three or four words has too few function words to
    vote, so its other words vote by their letters."""
    rows = [r for r in _language_check() if r["lang"] == code]
    right = [r["text"] for r in rows if detect(r["text"]).code == code]
    assert len(right) >= 0.9 * len(rows), sorted({r["text"] for r in rows} - set(right))


def test_the_letters_of_short_spanish_sentences_read_them_as_spanish():
    for text in (
        "Toco la guitarra.",
        "Mi abuela cumple noventa.",
        "Correr me mantiene cuerda.",
        "Me duele la espalda.",
    ):
        assert detect(text).code == "es", text
    # English with no function word of another language is not read by its letters
    for text in ("haha legend", "savage", "Henrietta!", "criminal mastermind", "perfect arrangement"):
        assert detect(text).code == "en", text


def test_text_in_a_script_without_tables_and_odd_input_never_fail():
    assert tokenize("Привет, как дела?") == ["привет", "как", "дела"]  # whole words, no stemmer
    assert tokenize("안녕하세요") == ["안", "안녕", "녕", "녕하", "하", "하세", "세", "세요", "요"]  # no tables
    for odd in ("", "   ", "\ud800", "😀😀", "?!", "ー", "Ich 我 I"):
        assert isinstance(tokenize(odd), list)


def test_chinese_and_japanese_are_indexed_as_characters_and_pairs():
    terms = tokenize("我在图书馆读了《百年孤独》")
    assert {"图书", "书馆", "百年", "孤独", "图", "馆"} <= set(terms)
    assert "我" not in terms and "了" not in terms  # function characters alone are left out
    ja = tokenize("美術館に行きました")
    assert {"美術", "術館", "美"} <= set(ja) and "に" not in ja  # a single hiragana is left out


def test_german_french_spanish_words_get_their_own_stems():
    assert tokenize("Welche Bücher hast du gelesen?") == ["buch", "hast", "geles"]
    assert tokenize("Ich habe das Buch gelesen.") == ["buch", "geles"]
    assert tokenize("J'ai adopté des chatons.") == ["adopt", "chaton"]  # "j'" and "des" are stopwords
    assert tokenize("Compré las bicicletas rojas para mi hermana.") == ["compr", "biciclet", "roj", "herman"]


class SameVector(Embedder):
    """Every text gets the same vector: the dense signal ties, so only code signals rank (it reads no
    language, so the search weighs them as for a language its embedder does not read)."""

    name = "same-vector-test"
    languages = frozenset()

    def embed(self, texts):
        return [np.ones(8, dtype=np.float32).tolist() / np.sqrt(8) for _ in texts]


class EnglishOnly(Embedder):
    """Reads English only, as it declares; on German it puts the question beside the concert."""

    name = "english-only-test"
    languages = frozenset({"en"})

    def embed(self, texts):
        near = lambda t: "Konzert" in t or t.endswith("?")  # noqa: E731
        return [[0.0, 1.0] if near(t) else [1.0, 0.0] for t in texts]


class ReadsAny(EnglishOnly):
    languages = None


@pytest.mark.parametrize(("embedder", "first"), [(EnglishOnly, 0), (ReadsAny, 1)])
def test_the_dense_signal_counts_less_in_a_language_the_embedder_does_not_read(embedder, first):
    store = MemoryStore(None, embedder())
    said = ["Ich habe mir ein Fahrrad gekauft.", "Ich habe mir gestern ein Konzert angehört."]
    recs = [
        raw_record(user_id="u", session_id="s1", turn=i, text=t, when=T0, tags=["personal"], speaker="Anna")
        for i, t in enumerate(said)
    ]
    store.add(recs)
    retriever, query = Retriever(store), Query("Welches Fahrrad habe ich gekauft?", T0)
    hits = retriever.search("u", query, k=2)
    assert hits[0].record.id == recs[first].id  # the lexical match, unless the embedder reads German
    assert scoring(retriever.prepare("u"), query, ALL_SIGNALS).unread is (first == 0)  # what `caim eval --cv` ranks by


#: A German user's turns, the oldest first: "Kinder" is "kind" only to the German stemmer.
GERMAN_USER = [
    "Meine Schwester Melanie hat drei Kinder.",
    "Melanie hat sich ein neues Fahrrad gekauft.",
    "Wir waren am Wochenende mit Melanie im Kino.",
    "Ich glaube, Melanie und ich fahren im Sommer an die Ostsee.",
]


def _stored(texts, session="s1", start=T0):
    """A store holding ``texts`` as user "u"'s turns of ``session``, an hour apart from ``start``."""
    store = MemoryStore(None, SameVector())
    recs = [
        raw_record(user_id="u", session_id=session, turn=i, text=t, when=start + timedelta(hours=i), tags=["x"])
        for i, t in enumerate(texts)
    ]
    store.add(recs)
    return store, recs


@pytest.mark.parametrize("usual", ["de", "en"])
def test_a_question_whose_words_leave_the_language_open_is_read_in_the_users_language(usual):
    said = GERMAN_USER if usual == "de" else [GERMAN_USER[0]] + ["Melanie and I talked about bikes and films."] * 4
    store, recs = _stored(said)
    retriever = Retriever(store)
    assert retriever.usual_language("u", len(recs)) == usual
    assert detect("Hat Melanie Kinder?").code == "en"  # "hat" is English and German alike
    hits = retriever.search("u", Query("Hat Melanie Kinder?", T0 + timedelta(days=1)), k=5)
    # read as German, "Kinder" meets the oldest turn; read as English, it meets nothing and newer turns lead
    assert (hits[0].record.id == recs[0].id) is (usual == "de")


@pytest.mark.parametrize("usual", ["de", "en"])
def test_a_turn_whose_words_leave_the_language_open_is_indexed_in_the_users_language(usual):
    store, _ = _stored(GERMAN_USER if usual == "de" else ["Melanie and I talked about bikes and films."] * 4)
    short = raw_record(
        user_id="u", session_id="s2", turn=0, text="Melanie hat Kinder.", when=T0 + timedelta(days=1), tags=["x"]
    )
    store.add([short])  # written alone: its words leave the language open, the user's records do not
    [rid] = store.db.rids_of("u", [short.id])
    terms = {t for (t,) in store.db.conn.read("SELECT term FROM postings WHERE user_id = 'u' AND rid = ?", (rid,))}
    assert ("kind" in terms, "kinder" in terms) == ((True, False) if usual == "de" else (False, True))


def _store_with(code):
    store = MemoryStore(None, SameVector())
    turns = CONVERSATIONS[code]
    recs = [
        raw_record(
            user_id=code,
            session_id="s1",
            turn=i,
            text=text,
            # the evidence (turn 0) is the oldest: recency alone never puts it first
            when=T0 + timedelta(hours=i),
            tags=["personal"],
            speaker=who,
            turn_id=f"D1:{i}",
        )
        for i, (who, text) in enumerate(turns)
    ]
    store.add(recs)
    return store, recs


@pytest.mark.parametrize(
    ("code", "question"),
    [
        ("zh", "我在图书馆读的那本小说叫什么名字？"),
        ("ja", "京都ではどの美術館に行きましたか？"),
        ("de", "Was weißt du über Bücher?"),  # "Bücher" is "buch" only to the German stemmer
        ("fr", "Qui a des chevaux ?"),  # "chevaux" is "cheval" only to the French one
        ("es", "¿De qué color son las bicicletas que compró Lucía?"),
    ],
)
def test_a_question_finds_its_evidence_through_the_lexical_index(code, question):
    store, recs = _store_with(code)
    try:
        hits = Retriever(store).search(code, Query(question, T0 + timedelta(days=2)), 3)
        assert hits[0].record.id == recs[0].id
        assert hits[0].scores.get("bm25", 0) > 0
    finally:
        store.close()


# ---- code signals -------------------------------------------------------------------------------------


@pytest.mark.parametrize("message", ["你好！", "谢谢你！", "ありがとう！", "Merci beaucoup !", "¡Hola!", "Danke!"])
def test_a_lone_greeting_or_thanks_is_small_talk_in_any_language(message):
    assert is_small_talk(message)


@pytest.mark.parametrize("code", list(CONVERSATIONS))
def test_statements_are_no_small_talk_and_the_closing_turn_is(code):
    turns = [t for _, t in CONVERSATIONS[code]]
    assert not any(is_small_talk(t) for t in turns[:3])
    assert is_small_talk(turns[3])


def test_openers_are_taken_off_the_statement():
    assert without_opener("Ja, also, ich habe ein Studio eröffnet.") == "ich habe ein Studio eröffnet."
    assert without_opener("Bueno, pues me mudé a Sevilla.") == "me mudé a Sevilla."
    assert without_opener("嗯，我开了一家店。") == "我开了一家店。"
    assert without_opener("Jahre später zog ich um.") == "Jahre später zog ich um."  # "ja" only as a word


def test_names_in_each_language():
    assert names("Mi hermana Carmen se mudó a Sevilla con Pablo.") == ["Carmen", "Sevilla", "Pablo"]
    assert names("¿Dónde vive Ana ahora?") == ["Ana"]  # "¿Dónde" opens the sentence
    assert names("J'ai vu Éric et Zoë à Paris.") == ["Éric", "Zoë", "Paris"]
    # German capitalises every noun: after a determiner or with a noun ending it is no name
    assert names("Ich habe meinen Hund Bello zur Behandlung gebracht.") == ["Bello"]
    assert names("我的狗叫小白，我在读《百年孤独》。") == ["百年孤独", "小白"]
    assert names("先週、友達の田中さんと京都に行きました。") == ["田中"]
    assert names("我和Anna去了北京。") == ["Anna"]


def test_past_actions_told_in_the_first_person():
    told = [
        "Ich habe letzte Woche einen Kuchen gebacken.",
        "Wir waren am Wochenende in den Bergen.",
        "J'ai adopté deux chatons.",
        "Ayer compré una bicicleta.",  # Spanish needs no subject: "compré" is the first person
        "我们上周去了公园。",
        "昨日、映画を見ました。",
    ]
    not_told = [
        "Ich backe gern Kuchen.",
        "Ich habe ein Gedicht.",  # "Gedicht" looks like a participle, but follows an article
        "J'ai un ami à Lyon.",
        "Mi hermana se mudó a Sevilla.",  # her move, not the speaker's
        "我喜欢公园。",
        "映画が好きです。",
    ]
    assert all(tells_past_action(t) for t in told)
    assert not any(tells_past_action(t) for t in not_told)


def test_prior_reads_a_past_action_a_name_and_a_question_in_any_language():
    assert prior("我们2023年领养了一只小狗，叫米索！", 0) == prior("We adopted a puppy called Miso in 2023!", 0)
    assert prior("Wir haben letzte Woche Anna in Berlin besucht.", 5) > prior("Wie geht es dir?", 5)


def test_query_signals_in_each_language():
    assert is_when_question("Wann war Lena in Rom?") and is_when_question("我什么时候去的北京？")
    assert is_when_question("¿Cuándo fuiste a Sevilla?") and is_when_question("Quand es-tu allé à Lyon ?")
    assert not is_when_question("Wo war Lena?") and not is_when_question("我去了哪里？")
    assert is_aggregate_question("¿Cuántos libros ha leído Lucía?") and is_aggregate_question("我读了多少本书？")
    assert not is_aggregate_question("¿Dónde vive Lucía?")
    assert asks_about_past("我以前住在哪里？") and asks_about_past("Wo habe ich früher gewohnt?")
    assert not asks_about_past("我住在哪里？")
    assert named_speakers("Anna去了哪里？", ["Anna", "小雨"]) == ["Anna"]
    assert named_speakers("小雨读了什么书？", ["Anna", "小雨"]) == ["小雨"]


@pytest.mark.parametrize(
    "message",
    [
        "Weißt du noch, was ich dir letzte Woche erzählt habe?",
        "Tu te souviens de ce que je t'ai dit la semaine dernière ?",
        "¿Te acuerdas de lo que te conté el otro día?",
        "你还记得我上周跟你说过的书吗？",
    ],
)
def test_a_reference_to_the_shared_past_needs_memory(message):
    s = memory_signals(message)
    assert s.question and s.past_reference and s.time_reference and s.self_question


def test_a_general_question_needs_no_memory():
    for message in ("Was ist die Hauptstadt von Frankreich?", "法国的首都是哪里？", "¿Cuál es la capital de Francia?"):
        s = memory_signals(message)
        assert s.question and not (s.past_reference or s.time_reference or s.self_question)


def test_time_expressions_and_date_windows():
    now = datetime(2024, 3, 20)
    assert has_time_expression("Wir waren vor drei Tagen im Kino.") and has_time_expression("三天前我们看了电影。")
    assert not has_time_expression("Wir gehen gern ins Kino.") and not has_time_expression("我们喜欢看电影。")
    day = [(datetime(2023, 3, 3), datetime(2023, 3, 3))]
    assert date_windows("Qu'est-ce que j'ai fait le 3 mars 2023 ?", now) == day
    assert date_windows("¿Qué hice el 3 de marzo de 2023?", now) == day
    assert date_windows("Was habe ich am 3. März 2023 gemacht?", now) == day
    assert date_windows("2023年3月3日我做了什么？", now) == day
    may = [(datetime(2023, 5, 1), datetime(2023, 5, 31))]
    assert date_windows("Was habe ich im Mai gemacht?", now) == may  # the latest May before now
    assert date_windows("我五月做了什么？", now) == may
    assert date_windows("Que s'est-il passé en mai 2023 ?", now) == may  # a month of a year, not May alone


# ---- capture and time references -----------------------------------------------------------------------
def test_a_german_first_person_past_turn_with_a_time_states_a_fact():
    turn = "Ich habe letzte Woche das Buch „Momo“ von Michael Ende gelesen."
    assert states_fact(turn) and tells_past_action(turn) and has_time_expression(turn)
    assert find_expressions(turn) == ["letzte Woche"]


@pytest.mark.parametrize("code", list(CONVERSATIONS))
def test_capture_keeps_each_statement_and_drops_the_small_talk(code):
    said = [Exchange(i, text, "", None) for i, (_, text) in enumerate(CONVERSATIONS[code])]
    assert [c.turn for c in captures(said)] == [0, 1, 2]


def test_reactions_to_the_other_side_state_nothing():
    for said in (
        "Es tut mir so leid!",
        "Je suis tellement contente pour toi !",
        "¡Estoy muy orgulloso de ti!",
        "对不起。",
    ):
        assert not states_fact(said)
    assert states_fact("Es tut mir leid, ich habe meinen Job verloren.")  # the reaction aside, a fact is left


def test_a_reply_that_recommends_or_names_something_is_kept():
    assert reply_worth_keeping("Ich empfehle dir „Momo“ von Michael Ende.")
    assert reply_worth_keeping("Je te recommande « Le Petit Prince ».")
    assert reply_worth_keeping("Te recomiendo visitar el Museo del Prado.")
    assert reply_worth_keeping("我推荐你看《三体》。")
    assert reply_worth_keeping("『ノルウェイの森』がおすすめです。")
    for small_talk in ("Gern geschehen!", "De rien !", "好的，没问题！", "そうですね！"):
        assert not reply_worth_keeping(small_talk)


def test_french_dates_give_windows():
    now = datetime(2024, 3, 20, 12, tzinfo=UTC)
    turn = "Je l'ai vue la semaine dernière, et j'ai commencé la poterie le 3 mars."
    assert find_expressions(turn) == ["semaine dernière", "3 mars"]
    week, day = (resolve(e, now) for e in find_expressions(turn))
    assert (week.start.date().isoformat(), week.end.date().isoformat()) == ("2024-03-13", "2024-03-20")
    assert (day.start.date().isoformat(), day.end.date().isoformat()) == ("2024-03-03", "2024-03-03")
    later = resolve("le 3 mars", datetime(2024, 2, 1, tzinfo=UTC))  # before the 3rd of March: last year's
    assert later.start.date().isoformat() == "2023-03-03"


@pytest.mark.parametrize(
    ("phrase", "first", "last"),
    [
        ("vor drei Tagen", "2024-03-17", "2024-03-17"),
        ("letzten Dienstag", "2024-03-19", "2024-03-19"),
        ("am 3. März", "2024-03-03", "2024-03-03"),
        ("hace dos semanas", "2024-03-03", "2024-03-09"),
        ("el mes pasado", "2024-02-01", "2024-02-29"),
        ("上周", "2024-03-13", "2024-03-20"),
        ("三天前", "2024-03-17", "2024-03-17"),
        ("5月2日", "2023-05-02", "2023-05-02"),
        ("fin juin", "2023-06-01", "2023-06-30"),  # reads as English to detection; French tables resolve it
        ("principios de julio", "2023-07-01", "2023-07-31"),
        ("先週", "2024-03-13", "2024-03-20"),
        ("3日前", "2024-03-17", "2024-03-17"),
    ],
)
def test_time_phrases_resolve_in_each_language(phrase, first, last):
    r = resolve(phrase, datetime(2024, 3, 20, 12, tzinfo=UTC))
    assert (r.start.date().isoformat(), r.end.date().isoformat()) == (first, last)


def test_a_remembered_phrase_keeps_the_date_it_meant():
    said = datetime(2023, 5, 8, 13, tzinfo=UTC)
    assert with_dates("我昨天去了支持小组。", said) == "我昨天 [7 May 2023]去了支持小组。"
    assert with_dates("Ayer fui al grupo de apoyo.", said) == "Ayer [7 May 2023] fui al grupo de apoyo."


def test_han_without_kana_is_read_as_japanese_for_a_user_who_writes_japanese():
    store, _ = _stored(["昨日は京都に行きました。", "新しいカメラを買いました。", "了解です。"])
    usual = Retriever(store).usual_language("u")
    assert usual == "ja"
    assert detect("了解").code == "zh" and "了" not in tokenize("了解")  # alone: Chinese, "了" a function word
    with expecting(usual):
        assert detect("了解").code == "ja" and "了" in tokenize("了解")
