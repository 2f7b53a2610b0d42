"""The words that say what a message is about: per ontology term and top-level category, in every
language caim reads (``lexicon.json``: a description, words and phrases per language, and example
messages for each term).

A phrase of a spaced language is matched whole, as Snowball stems of that language ("went for a
run" finds "I went for a run", "joggen gehen" finds "wir gehen joggen" only as written); a phrase of
Chinese or Japanese anywhere in the text. A text is read in its own language and - German, French
or Spanish - in English too (people borrow English words: "Marathon", "le running").
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np
import Stemmer

from caim.memory.text import languages
from caim.memory.text.lang import detect

#: Languages whose phrases are stemmed, by Snowball algorithm; the others are matched as written.
STEMMED = {"en": "english", "de": "german", "fr": "french", "es": "spanish"}
UNSPACED = ("zh", "ja")
#: The key of a top-level category's own words (its terms' keys are the terms).
CATEGORY = "category:"
_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class Entry:
    """A term's (or a category's) recognition data: what a message about it talks about, its words
    per language, and example messages."""

    key: str
    description: str
    words: dict[str, tuple[str, ...]]
    examples: tuple[str, ...] = ()


class Lexicon:
    """The entries of ``lexicon.json`` compiled into one matcher per language.

    >>> lex = Lexicon.shared()
    >>> sorted(lex.found("I ran my first half marathon on Sunday!"))
    ['running']
    >>> sorted(lex.found("我上周末跑了半马。")), sorted(lex.found("Hoy fui a correr una media maratón."))
    (['running'], ['running'])
    """

    def __init__(self, entries: list[Entry]):
        self.entries = entries
        #: The keys in a fixed order: ``vector``'s positions.
        self.keys: tuple[str, ...] = tuple(e.key for e in entries)
        index = {k: i for i, k in enumerate(self.keys)}
        self._phrases: dict[str, dict[str, list[int]]] = {lang: {} for lang in (*STEMMED, *UNSPACED)}
        for e in entries:
            for lang, words in e.words.items():
                if lang not in self._phrases:
                    continue
                for w in words:
                    phrase = w if lang in UNSPACED else _stemmed(w, lang)
                    if phrase:
                        self._phrases[lang].setdefault(phrase, []).append(index[e.key])
        self._patterns = {lang: _pattern(list(p), lang in UNSPACED) for lang, p in self._phrases.items()}

    @staticmethod
    @cache
    def shared() -> Lexicon:
        """The lexicon shipped with caim (``lexicon.json`` beside this module)."""
        raw = json.loads(resources.files("caim.memory.reading").joinpath("lexicon.json").read_text(encoding="utf-8"))
        entries = [
            Entry(k, v["description"], {lang: tuple(v.get(lang, ())) for lang in (*STEMMED, *UNSPACED)},
                  tuple(v.get("examples", ())))
            for k, v in raw["terms"].items()
        ]  # fmt: skip
        entries += [
            Entry(CATEGORY + k, v["description"], {lang: tuple(v.get(lang, ())) for lang in (*STEMMED, *UNSPACED)})
            for k, v in raw["categories"].items()
        ]
        return Lexicon(entries)

    def found(self, text: str) -> set[str]:
        """The keys (terms, ``CATEGORY`` + category) whose words the text holds."""
        return {self.keys[i] for i in self._hits(text)}

    def vector(self, text: str) -> np.ndarray:
        """``found`` as a 0/1 vector over ``keys``."""
        v = np.zeros(len(self.keys), dtype=np.float32)
        v[list(self._hits(text))] = 1.0
        return v

    def _hits(self, text: str) -> set[int]:
        code = detect(text).code
        langs = [code] if code in self._phrases else ["en"]
        if code in {m.LANGUAGE.code for m in languages.spaced_others()}:  # English words in a Latin text too
            langs.append("en")
        out: set[int] = set()
        for lang in langs:
            said = text if lang in UNSPACED else f" {_stemmed(text, lang)} "
            for m in self._patterns[lang].finditer(said):
                out.update(self._phrases[lang][m.group(1)])
        return out


def _stemmed(text: str, lang: str) -> str:
    """The words of ``text``, lower-cased, as ``lang``'s Snowball stems, one space apart."""
    return " ".join(_stemmer(STEMMED[lang])([w.lower() for w in _WORD.findall(text)]))


@cache
def _stemmer(algorithm: str) -> Callable[[list[str]], list[str]]:
    return Stemmer.Stemmer(algorithm).stemWords


def _pattern(phrases: list[str], unspaced: bool) -> re.Pattern[str]:
    """Any of the phrases (the longest first), whole words in a spaced text; each match's phrase is
    group 1. Phrases that share words may overlap: a lookahead finds each start's longest phrase."""
    alternation = "|".join(re.escape(p) for p in sorted(phrases, key=len, reverse=True)) or "(?!)"
    if unspaced:
        return re.compile(f"(?=({alternation}))")
    return re.compile(f"(?<= )(?=({alternation}) )")
