"""The languages a short text may be in (caim.memory.text.lang.plausible), decided once: capture's veto,
polarity's second reading, and the entities and single-value facts read in them, and nothing more."""

from __future__ import annotations

import pytest

import caim.memory.capture as capture
import caim.memory.text.entities as entities_module
import caim.memory.text.polarity as polarity_module
import caim.memory.text.slots as slots_module
from caim.memory.text import languages
from caim.memory.text.entities import entities
from caim.memory.text.lang import detect, expecting, plausible
from caim.memory.text.polarity import polarity
from caim.memory.text.slots import slots


def _codes(text: str) -> list[str]:
    return [x.code for x in plausible(text)]


@pytest.mark.parametrize(
    ("text", "codes"),
    [
        ("Melanie hat Kinder.", ["en", "de"]),  # "hat": English and German alike
        ("I teach chemistry in Leeds.", ["en"]),  # English by four votes to one: nothing else
        ("Salir a correr me despeja la mente", ["fr", "es"]),  # French by the order of a tie
        ("Soy enfermera.", ["es"]),
        ("Mi perro Toby.", ["en", "es"]),  # Spanish has a vote, and English one no fewer
        ("结婚五年了。", ["zh", "ja"]),  # Han alone may be Japanese
        ("東京に住んで十年。", ["ja"]),  # kana: Japanese, nothing else
        ("Привет, как дела?", ["und"]),  # a script without tables
    ],
)
def test_the_languages_a_text_may_be_in_start_with_the_detected_one(text, codes):
    assert _codes(text) == codes
    assert plausible(text)[0] is detect(text)


def test_the_expectation_decides_the_first_and_leaves_the_other_plausible():
    with expecting("de"):
        assert _codes("Melanie hat Kinder.") == ["de", "en"]
    with expecting("ja"):
        assert _codes("结婚五年了。") == ["ja", "zh"]


def test_a_language_removed_is_no_longer_plausible():
    before = languages.registered()
    languages.unregister("de")
    try:
        assert _codes("Melanie hat Kinder.") == ["en"]
    finally:  # the languages again, in their order (ties are broken in it)
        for m in before[1:]:
            languages.unregister(m.LANGUAGE.code)
        for m in before[1:]:
            languages.register(m)
    assert languages.registered() == before
    assert _codes("Melanie hat Kinder.") == ["en", "de"]


def test_capture_reads_a_turn_in_every_language_it_may_be_in(monkeypatch):
    text = "Melanie hat Kinder."  # English's tables find nothing told; German's do
    assert not capture.states_fact(text) and capture.states_fact(text, languages.module("de").LANGUAGE)
    assert capture.worth_keeping(text, 0.8, 0.4)
    monkeypatch.setattr(capture, "plausible", lambda t: (detect(t),))
    assert not capture.worth_keeping(text, 0.8, 0.4)


def test_polarity_reads_a_text_in_the_other_languages_it_may_be_in(monkeypatch):
    text = "Salir a correr me despeja la mente"  # French by a tie; Spanish's cue
    said = polarity(text)
    assert said is not None and said.polarity == "like"
    monkeypatch.setattr(polarity_module, "plausible", lambda t: (detect(t),))
    assert polarity(text) is None


def _consulted(monkeypatch, text: str) -> list[str]:
    """The languages whose entity tables reading ``text`` consults, in order."""
    seen: list[str] = []
    read = entities_module._entities

    def counting(t: str, code: str):
        seen.append(code)
        return read(t, code)

    monkeypatch.setattr(entities_module, "_entities", counting)
    entities_module._read_text.cache_clear()
    entities(text)
    return seen


def test_entities_consult_the_tables_of_the_languages_a_text_may_be_in_and_no_more(monkeypatch):
    assert _consulted(monkeypatch, "I went to the shop yesterday and it was lovely.") == ["en"]
    assert _consulted(monkeypatch, "I teach chemistry in Leeds.") == ["en"]
    assert _consulted(monkeypatch, "Soy enfermera.") == ["es"]
    assert _consulted(monkeypatch, "Mi perro Toby.") == ["en", "es"]  # English finds nothing; Spanish a dog
    assert _consulted(monkeypatch, "Mon chat Miso.") == ["en", "fr"]  # the first that finds something
    assert _consulted(monkeypatch, "Hund Bello.") == ["en", "de", "fr", "es"]  # no votes: each in turn
    assert _consulted(monkeypatch, "東京に住んで十年。") == ["ja"]


def test_entities_follow_the_shared_rule(monkeypatch):
    assert [(e.kind, e.value, e.relation) for e in entities("Mi perro Toby.")] == [("pet", "Toby", "dog")]
    monkeypatch.setattr(entities_module, "plausible", lambda t: (detect(t),))
    entities_module._read_text.cache_clear()
    try:
        assert entities("Mi perro Toby.") == []
    finally:
        entities_module._read_text.cache_clear()


def test_slots_read_the_languages_a_text_may_be_in_and_no_more(monkeypatch):
    seen: list[bool] = []
    read = slots_module._slots

    def counting(text: str, table, unspaced: bool):
        seen.append(unspaced)
        return read(text, table, unspaced)

    monkeypatch.setattr(slots_module, "_slots", counting)
    slots_module._read_text.cache_clear()
    try:
        slots("I went to the shop yesterday and it was lovely.")
        assert len(seen) == 1  # English's table alone
        assert slots("Soy vegana.")["diet"].value == "vegan"
        monkeypatch.setattr(slots_module, "plausible", lambda t: (detect("I am."),))  # English only
        slots_module._read_text.cache_clear()
        assert slots("Soy vegana.") == {}
    finally:
        slots_module._read_text.cache_clear()
