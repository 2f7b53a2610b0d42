"""The reader (caim.memory.reading): what a careful reader takes from a message - worth remembering,
its top-level categories, a lasting like or dislike - in every language caim reads, and how capture,
tags and polarity use it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from caim.memory.reading import Lexicon, Model, Reader
from caim.memory.text.lang import sentences
from caim.ontology import Ontology
from caim.ontology.tagger import tags_of


@pytest.fixture(scope="module")
def reader() -> Reader:
    return Reader.shared()


def test_the_shipped_weights_were_fitted_on_the_shipped_lexicon_and_the_default_ontology(reader):
    assert reader.model.keys == Lexicon.shared().keys
    assert reader.model.categories == tuple(Ontology.default().tree)
    # the fit chooses the floor and the second category's threshold each on its own grid: either may be the higher
    assert 0 < reader.model.store_at < 1 and 0 <= reader.model.category_floor < 1 and 0 < reader.model.category_at < 1


STORED = {
    "en": "I teach chemistry at a secondary school in Leeds.",
    "de": "Ich habe letzte Woche einen Hund aus dem Tierheim adoptiert, er heißt Bruno.",
    "fr": "J'ai commencé un nouveau travail chez Airbus à Toulouse le mois dernier.",
    "es": "Mi hermana se casa en junio en Sevilla y yo soy la dama de honor.",
    "zh": "我上个月搬到杭州了，在网易做产品经理。",
    "ja": "先月から大阪の病院で看護師として働いています。",
}
SMALL_TALK = {
    "en": "haha thanks, you too!",
    "de": "Danke, dir auch einen schönen Abend!",
    "fr": "Merci beaucoup, bonne soirée à toi aussi !",
    "es": "¡Jajaja gracias, igualmente!",
    "zh": "哈哈哈谢谢，你也是！",
    "ja": "ありがとう、またね！",
}


@pytest.mark.parametrize("lang", sorted(STORED))
def test_a_fact_is_worth_remembering_and_small_talk_is_not_in_every_language(reader, lang):
    fact, talk = reader.read([STORED[lang], SMALL_TALK[lang]])
    assert reader.model.worth(fact), (lang, fact.stores)
    assert not reader.model.worth(talk), (lang, talk.stores)


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("I've been training for the York half marathon, 16 km this Sunday.", {"sports", "health"}),
        ("We adopted a kitten last week, she sleeps on my keyboard all day.", {"pets"}),
        ("My mortgage payments went up again and I'm trying to save more.", {"finance"}),
        ("我最近在学吉他，每周上两次课。", {"music"}),
        ("Ich backe jeden Sonntag Brot, am liebsten Sauerteig.", {"food"}),
    ],
)
def test_a_message_gets_the_categories_a_reader_would_name_and_no_other(reader, text, named):
    """(A half marathon is sports and health alike: the careful readers' own labels name both.)"""
    (r,) = reader.read([text])
    chosen = reader.model.chosen(r)
    assert chosen and set(chosen) <= named, sorted(r.categories.items(), key=lambda kv: -kv[1])[:3]


def test_a_record_is_tagged_by_its_categories_then_the_terms_its_words_name(reader):
    (r,) = reader.read(["I ran my first half marathon on Sunday!"])
    assert "running" in r.found
    assert tags_of(Ontology.default(), ["sports", "health"], r.found) == ["sports", "running"]


def test_unsure_categories_give_no_tag_rather_than_a_wrong_one():
    model = Model(
        mu=np.zeros(1), sd=np.ones(1), w1=np.zeros((1, 1)), b1=np.zeros(1), w2=np.zeros((1, 4)), b2=np.zeros(4),
        categories=("a", "b"), keys=(), category_floor=0.5, category_at=0.7,
    )  # fmt: skip
    from caim.memory.reading import Reading

    assert model.chosen(Reading(0.9, {"a": 0.45, "b": 0.2}, 0, 0)) == []
    assert model.chosen(Reading(0.9, {"a": 0.8, "b": 0.75}, 0, 0)) == ["a", "b"]
    assert model.chosen(Reading(0.9, {"a": 0.8, "b": 0.6}, 0, 0)) == ["a"]


def test_a_message_of_several_sentences_gets_the_categories_of_its_whole_and_of_its_likeliest_sentence():
    """Categories: the mean of the whole message's score and its sentences' highest; worth remembering
    and polarity stay the whole message's; a message of one sentence keeps its own."""
    model = Model(
        mu=np.zeros(1), sd=np.ones(1), w1=np.zeros((1, 1)), b1=np.zeros(1), w2=np.zeros((1, 5)), b2=np.zeros(5),
        categories=("a", "b"), keys=(), sentences=True,
    )  # fmt: skip
    whole = np.array([[0.9, 0.8, 0.1, 0.0, 0.0], [0.7, 0.6, 0.2, 0.0, 0.0]])
    parts = np.array([[0.1, 0.9, 0.0, 0.5, 0.5], [0.2, 0.3, 0.7, 0.5, 0.5]])
    out = model.by_sentence(whole, parts, np.array([0, 0]))
    assert np.allclose(out[0], [0.9, 0.85, 0.4, 0.0, 0.0]) and np.allclose(out[1], whole[1])
    model.sentences = False
    assert np.allclose(model.by_sentence(whole, parts, np.array([0, 0])), whole)


def test_a_reader_whose_weights_say_so_reads_a_message_of_several_sentences_by_sentence(reader):
    by_sentence = Reader(Model(**{**reader.model.__dict__, "sentences": True}))
    text = "I ran my first half marathon on Sunday. My sister is getting married in Seville next month."
    (r,) = by_sentence.read([text])
    whole = reader.model.outputs(reader.features([text]))
    parts = reader.model.predict(reader.features(sentences(text)))
    n = len(reader.model.categories)
    expected = (whole[0, 1 : n + 1] + parts[:, 1 : n + 1].max(0)) / 2
    assert not np.allclose(whole[0, 1 : n + 1], expected, atol=1e-3)  # the sentences do change this message's reading
    assert np.allclose([r.categories[c] for c in reader.model.categories], expected, atol=1e-5)
    assert r.stores == pytest.approx(float(whole[0, 0]), abs=1e-6)


def test_weights_fitted_on_another_lexicon_are_refused_in_one_line(reader):
    other = Model(**{**reader.model.__dict__, "keys": reader.model.keys[:-1]})
    with pytest.raises(Exception, match="caim eval reading --fit") as err:
        Reader(other)
    assert "\n" not in str(err.value)


def test_a_saved_model_loads_as_it_was(tmp_path, reader):
    path = tmp_path / "weights.npz"
    reader.model.save(path)
    again = Model.load(path)
    assert again.keys == reader.model.keys and again.store_at == reader.model.store_at
    assert again.sentences == reader.model.sentences
    x = reader.features(["I moved to Porto last year."])
    assert np.allclose(again.predict(x), reader.model.predict(x), atol=1e-3)


def test_remember_keeps_facts_drops_small_talk_and_tags_by_category(settings):
    """With every judged role on code (as with the bundled models): the reader captures and tags."""
    from caim.agent.memory import Memory

    memory = Memory(settings.model_copy(update={"use_model_for": []}))
    session = [
        ("user", "Hey! How are you doing?"),
        ("user", "I've been training for the York half marathon, 16 km this Sunday."),
        ("user", "Thanks so much, you're the best!"),
        ("user", "我最近在学吉他，每周上两次课。"),
        ("user", "Where does my sister live?"),  # asks only: tells nothing to remember
    ]
    memory.remember(session, user_id="ana", background=False)
    records = {r.thought: r for r in memory.list(user_id="ana")}
    assert set(records) == {session[1][1], session[3][1]}
    ontology = memory.services.ontology.current
    tops = {t: {ontology.path(x).split("/")[0] for x in r.tags} for t, r in records.items()}
    assert tops[session[1][1]] and tops[session[1][1]] <= {"sports", "health"}  # the labels name both
    assert "music" in tops[session[3][1]]
    assert all(len(r.tags) <= 3 for r in records.values())
    memory.close()


NEWS = "We just adopted a rescue dog, his name is Bruno."
REACTION = "Aww, a dog! What breed is he?"


def test_a_turn_is_read_after_what_was_said_before_it(reader):
    """A reaction to the other person's news tells nothing of one's own; read alone, it cannot be told
    from news. With no turn before, a message is read alone."""
    assert reader.model.context, "the shipped reader reads the turn before"
    (after,), (alone,), (nothing,) = (
        reader.read([REACTION], [NEWS]),
        reader.read([REACTION]),
        reader.read([REACTION], [""]),
    )
    assert not reader.model.worth(after), after.stores
    assert after.stores < alone.stores - 0.2, (after.stores, alone.stores)
    assert nothing == alone
    assert after.categories == pytest.approx(alone.categories, abs=1e-4)  # what it is about: the message alone
    (fact,) = reader.read(["I teach chemistry in Leeds."], ["I started a new job in Harrogate."])
    assert reader.model.worth(fact), fact.stores  # a fact of one's own after a friend's is no echo


def test_remember_reads_each_turn_after_the_one_before_it(settings):
    """Post-thinking gives the reader what was said before each turn: the user's reaction to a
    friend's news is not kept as the user's."""
    from caim.agent.memory import Memory

    memory = Memory(settings.model_copy(update={"use_model_for": []}))
    memory.remember(
        [{"role": "user", "name": "Sam", "content": NEWS}, {"role": "user", "content": REACTION}],
        user_id="ana",
        background=False,
    )
    kept = {(r.who, r.thought) for r in memory.list(user_id="ana")}
    assert ("Sam", NEWS) in kept
    assert not any(thought == REACTION for _, thought in kept), kept
    memory.close()


@pytest.mark.parametrize(
    ("text", "polarity"),
    [
        ("Painting really helps me relax after a long day at work.", "like"),
        ("Hiking is my escape, I'm out in the hills every weekend.", "like"),
        ("Honestly I'm so bored with my job at the bank these days.", "dislike"),
    ],
)
def test_a_lasting_attitude_is_a_like_or_dislike(memory, text, polarity):
    memory.remember([("user", text)], user_id="ana", background=False)
    (rec,) = memory.list(user_id="ana")
    assert rec.polarity == polarity


def test_the_labels_agree_with_the_reference_reader_outside_calibration():
    """The labels the reader is fitted on and measured against read turns as the reference reader
    of ../shared/data/labels does, on the turns its labeller was not shown."""
    from caim.eval.labels import reference_agreement

    shared = Path(__file__).resolve().parents[2] / "shared" / "data"
    got = reference_agreement(shared)
    assert got["turns"] == 271
    assert got["stores"] >= 0.9 and got["categories F1"] >= 0.8 and got["alike"] / got["likes and dislikes"] >= 0.8


def test_a_memory_whose_category_is_unsure_is_kept_without_a_tag_unless_bounds_are_set(settings, monkeypatch):
    """No tag rather than a wrong one: the record is stored untagged; where the deployment bounds
    categories, a record whose category cannot be shown allowed is not stored."""
    from caim.agent.memory import Memory

    monkeypatch.setattr(Reader.shared().model, "category_floor", 1.01)  # never sure of a category
    said = [("user", "I've been training for the York half marathon, 16 km this Sunday.")]
    with Memory(settings.model_copy(update={"use_model_for": []})) as memory:
        memory.remember(said, user_id="ana", background=False)
        (rec,) = memory.list(user_id="ana")
    assert rec.tags == [] and "York" in rec.thought
    bounded = settings.model_copy(update={"use_model_for": [], "deny_categories": ["finance"]})
    with Memory(bounded) as memory:
        memory.remember(said, user_id="bo", background=False)
        assert memory.list(user_id="bo") == []


def test_the_fit_reads_left_out_turns_by_sentence_as_the_reader_does(monkeypatch):
    """``caim eval reading`` mixes in the sentences of exactly the turns it reads, whichever rows they are."""
    from caim.eval.reading import Parts

    model = Model(
        mu=np.zeros(1), sd=np.ones(1), w1=np.zeros((1, 1)), b1=np.zeros(1), w2=np.zeros((1, 5)), b2=np.zeros(5),
        categories=("a", "b"), keys=(), sentences=True,
    )  # fmt: skip
    monkeypatch.setattr(model, "predict", lambda x: np.asarray(x, np.float32))  # a part's features are its reading
    parts = Parts(np.array([1, 1, 3]), np.array([[0, 0.9, 0, 0, 0], [0, 0, 0.7, 0, 0], [0, 0, 0.5, 0, 0]]))
    probs = np.array([[0.9, 0.5, 0.1, 0, 0], [0.9, 0.2, 0.2, 0, 0]])  # the turns at rows 1 and 2
    out = parts.read(model, probs, np.array([1, 2]))
    assert np.allclose(out[0], [0.9, 0.7, 0.4, 0, 0]) and np.allclose(out[1], probs[1])
    assert np.allclose(parts.read(model, probs[:1], np.array([0])), probs[:1])  # row 0 has no sentences
