"""caim's code path in languages other than English: detection, the lexical index, and the code
signals, over small conversations in German, French, Spanish, Chinese and Japanese written for
these tests."""

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from caim.core.embeddings import Embedder
from caim.memory.capture import raw_record
from caim.memory.retrieval import Query, Retriever
from caim.memory.store import MemoryStore
from caim.memory.text import tokenize
from caim.memory.text.lang import detect

T0 = datetime(2024, 3, 11, 18, tzinfo=UTC)  # a Monday

#: One conversation per language: (speaker, turn); the first turn of each is the evidence a later
#: question looks for, the others are distractors said after it.
CONVERSATIONS = {
    "de": [
        ("Lena", "Ich habe letzte Woche das Buch „Momo“ von Michael Ende gelesen."),
        ("Jonas", "Wie schön! Wir waren am Wochenende in den Bergen wandern."),
        ("Lena", "Mein Bruder spielt seit drei Jahren Cello im Orchester."),
        ("Jonas", "Danke, bis bald!"),
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
        ("Mateo", "¡Hola! ¿Qué tal?"),
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
    """Every text gets the same vector: the dense signal ties, so only code signals rank."""

    name = "same-vector-test"

    def embed(self, texts):
        return [np.ones(8, dtype=np.float32).tolist() / np.sqrt(8) for _ in texts]


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
