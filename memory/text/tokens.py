"""Words and tokens: the lexical (BM25) index's terms, number words, and text safe to store.

- ``tokenize``: lowercase words, possessive 's dropped, English stopwords (``STOPWORDS``) removed,
  Snowball stems (PyStemmer); the index and its queries use the same function, so a term matches
  only itself.
- ``NUMBER_WORDS``: number words and the digits they stand for ("three" -> "3").
- ``storable``: any string as valid UTF-8 (lone surrogates replaced), never an error.
"""

from __future__ import annotations

import re
from functools import lru_cache

import Stemmer

STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "aren't",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "didn't",
        "do",
        "does",
        "doesn't",
        "doing",
        "don't",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "isn't",
        "it",
        "it's",
        "its",
        "itself",
        "just",
        "let",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "wasn't",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "s",
        "t",
        "don",
        "ll",
        "m",
        "re",
        "ve",
        "d",
    ]
)

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

    Args:
        text: Any text.

    Returns:
        The stems of its words that are not stopwords; a possessive 's is dropped ("Anna's" ->
        "anna"), another contraction joined to its word ("we've" -> "weve").

    >>> tokenize("I adopted two puppies last Sunday!")
    ['adopt', 'two', 'puppi', 'last', 'sunday']
    """
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
