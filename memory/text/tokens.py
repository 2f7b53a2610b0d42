"""Words and tokens: the lexical (BM25) index's terms, number words, and text safe to store.

- ``tokenize``: lowercase words, stopwords of the text's language removed (English: ``STOPWORDS``,
  possessive 's dropped), Snowball stems of that language (PyStemmer); characters and pairs of
  characters for a script written without spaces (Chinese, Japanese). The index and its queries
  use the same function, so a term matches only itself.
- ``NUMBER_WORDS``: number words and the digits they stand for ("three" -> "3").
- ``storable``: any string as valid UTF-8 (lone surrogates replaced), never an error.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import cache, lru_cache

import Stemmer

from caim.memory.text import languages
from caim.memory.text.lang import ENGLISH, UNSPACED_RUN, Language, detect, script_language
from caim.memory.text.lang_en import STOPWORDS

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")

#: Number words and the digits they stand for ("three" -> "3").
NUMBER_WORDS = {
    w: str(i)
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty",
        ]
    )
} | {"thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "hundred": "100", "dozen": "12"}


@lru_cache(maxsize=1)
def _stem():
    return Stemmer.Stemmer("english").stemWord


@cache
def _stemmer(algorithm: str) -> Callable[[str], str]:
    return Stemmer.Stemmer(algorithm).stemWord


_WORD_ANY = re.compile(r"[^\W_]+")


def storable(text: str) -> str:
    """The text as valid UTF-8.

    A lone surrogate (broken input from a client) becomes U+FFFD replacement characters, so the turn
    can be stored and sent to a model instead of failing.

    Args:
        text: Any string.

    Returns:
        ``text`` itself when it encodes as UTF-8, else a copy with each lone surrogate replaced.

    >>> storable("ok \\ud800!") == "ok \\ufffd\\ufffd\\ufffd!", storable("ok!")
    (True, 'ok!')
    """
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", errors="surrogatepass").decode("utf-8", errors="replace")


def tokenize(text: str) -> list[str]:
    """Index terms of a text (stems, stopwords removed), in order, with repeats.

    The text's language (``caim.memory.text.lang.detect``) decides how its words are read: English
    (the default for Latin script) as it always was; German, French or Spanish with their stopwords
    and Snowball stems, words split at anything not a letter or digit ("j'ai" is "j" and "ai");
    another spaced script as lowercase words, whole. A run of a script written without spaces, in
    any text, gives each of its characters that is no stopword and each pair of neighbours; Latin
    words among Chinese or Japanese are read as English.

    Args:
        text: Any text.

    Returns:
        The terms; for English the stems of its words that are not stopwords, a possessive 's
        dropped ("Anna's" -> "anna"), another contraction joined to its word ("we've" -> "weve").

    >>> tokenize("I adopted two puppies last Sunday!")
    ['adopt', 'two', 'puppi', 'last', 'sunday']
    >>> tokenize("Wir haben zwei Welpen adoptiert."), tokenize("我在图书馆")
    (['zwei', 'welp', 'adoptiert'], ['我在', '在图', '图', '图书', '书', '书馆', '馆'])
    """
    if len(text) > TOKENIZED_CHARS:
        return terms(text, detect(text))
    return list(_terms_of(text, detect(text)))


#: How many texts ``tokenize`` keeps the terms of (a record's source turns are read again by every search
#: that rates the record, and by capture, grounding and the slots), and the longest text it keeps.
TOKENIZED = 8192
TOKENIZED_CHARS = 2000


@lru_cache(maxsize=TOKENIZED)
def _terms_of(text: str, language: Language) -> tuple[str, ...]:
    """``terms`` of a text, kept (a language is its own key: one registered anew is another)."""
    return tuple(terms(text, language))


@languages.on_change
def _forget() -> None:
    """Drop the terms read with the languages registered before."""
    _terms_of.cache_clear()


def terms(text: str, language: Language) -> list[str]:
    """The index terms of a text read as ``language`` (``tokenize`` with the language given).

    >>> terms("Danke", detect("Danke")), terms("Danke", ENGLISH)
    (['dank'], ['dank'])
    """
    if language is not ENGLISH:
        text = unicodedata.normalize("NFKC", text)
    if text.isascii() or not UNSPACED_RUN.search(text):
        return _words(text, language)
    spaced = ENGLISH if language.unspaced else language
    out: list[str] = []
    at = 0
    for run in UNSPACED_RUN.finditer(text):
        out += _words(text[at : run.start()], spaced)
        out += _pairs(run.group())
        at = run.end()
    return out + _words(text[at:], spaced)


def _words(text: str, language: Language) -> list[str]:
    """The index terms of text in a spaced script, read as ``language``."""
    if language is ENGLISH:
        return _english(text)
    stem = _stemmer(language.stemmer) if language.stemmer else None
    words = [w for w in _WORD_ANY.findall(text.lower()) if w not in language.stopwords]
    return [stem(w) for w in words] if stem else words


def _pairs(run: str) -> list[str]:
    """Each character of a run (written without spaces) that is no stopword, and each pair of
    neighbours, in order; the stopwords are those of the run's own script (``script_language``)."""
    stop = script_language(run).stopwords
    out = []
    for i, c in enumerate(run):
        if i:
            out.append(run[i - 1 : i + 1])
        if c not in stop:
            out.append(c)
    return out


def _english(text: str) -> list[str]:
    stem = _stem()
    out = []
    for w in _WORD.findall(text.lower().replace("\u2019", "'")):
        if w in STOPWORDS:
            continue
        if "'" in w:
            base, suffix = w.split("'", 1)
            w = base if suffix == "s" else base + suffix
            if w in STOPWORDS:
                continue
        out.append(stem(w))
    return out
