"""How relevant a found record is to what was asked, from 0 to 1, and why in plain words.

A ranking score says which record is better than another for one query; it is no measure a person
can read, and it ranks every record, related or not. ``relevance`` is one: the chance-like union of
two readings of the record against the query, each from 0 to 1 -

- *words*: the share of the query's terms (stems, stopwords removed) the record's text holds;
- *meaning*: its cosine similarity to the query, from ``MEANING_ZERO`` (what unrelated texts reach
  with the bundled embedder) to ``MEANING_FULL`` (a paraphrase), clipped;

``relevance = 1 - (1 - words) * (1 - meaning)``: either reading alone can make a record relevant. A
linked record (``caim.memory.search.engine.with_links``) takes the relevance of the hit that links it.
The search returns only records at or above ``RELEVANCE_FLOOR`` (``Query.min_relevance``), so a
record that shares no word with the query and is unrelated in meaning is not returned at all, and
``k`` is a most, not a quota. The floor is fitted on the LoCoMo development split, leaving one
conversation out: the highest relevance that drops no evidence among the first ten results of the
other conversations (``caim eval retrieval --cv``; ``docs/retrieval.md``).

``explain`` says in plain words what a record's relevance rests on: the query's words it holds, how
close it is in meaning, and the ranking's cues it matched (a date or time range asked about, a name,
a speaker, a topic).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from caim.memory.text import tokenize

#: Cosine similarity that unrelated texts reach with the bundled embedder (0 meaning), and that of a
#: paraphrase (full meaning); between them meaning rises in a straight line.
MEANING_ZERO = 0.1
MEANING_FULL = 0.7
#: The lowest relevance the search returns: fitted on the LoCoMo development split (see the module).
RELEVANCE_FLOOR = 0.13
#: Meaning (0-1) above which a record is called close in meaning, and related in meaning.
CLOSE = 0.6
RELATED = 0.3
#: What each ranking cue a record matched means, in plain words.
CUES = {
    "date": "said on a day asked about",
    "range": "from the time asked about",
    "timex": "gives a time",
    "name": "names who or what was asked about",
    "speaker": "said by the person asked about",
    "tag": "on the topic asked about",
    "linked": "linked to a match",
}


def query_words(text: str) -> dict[str, str]:
    """The query's terms, each with the word it was written as (the first, when several share it).

    >>> query_words("Where do I teach, and which race?")
    {'teach': 'teach', 'race': 'race'}
    """
    out: dict[str, str] = {}
    for word in re.findall(r"[^\W_]+(?:['\u2019][^\W_]+)?", text):
        for term in _terms(word):
            out.setdefault(term, word)
    return out


def meaning(similarity: float) -> float:
    """Cosine similarity read as meaning from 0 to 1 (``MEANING_ZERO`` .. ``MEANING_FULL``).

    >>> meaning(0.05), meaning(0.4), meaning(0.9)
    (0.0, 0.5, 1.0)
    """
    return round(min(max((similarity - MEANING_ZERO) / (MEANING_FULL - MEANING_ZERO), 0.0), 1.0), 3)


def relevance(similarity: float, held: int, asked: int) -> float:
    """A record's relevance from its cosine similarity and how many of the query's ``asked`` terms
    it holds (``held``).

    >>> relevance(0.05, 0, 3), relevance(0.05, 1, 2), relevance(0.4, 1, 2)
    (0.0, 0.5, 0.75)
    """
    words = held / asked if asked else 0.0
    return round(1 - (1 - words) * (1 - meaning(similarity)), 3)


#: Texts whose terms are kept between searches (a record's text is read again at each search it ranks in).
TERMS_KEPT = 8192


@lru_cache(maxsize=TERMS_KEPT)
def _terms(text: str) -> tuple[str, ...]:
    return tuple(tokenize(text))


def rate(asked: Mapping[str, str], records: Sequence[tuple[str, float]]) -> list[tuple[float, list[str]]]:
    """Per record - its text and its cosine similarity to the query - its relevance and the query's
    words it holds (as written in the query; ``asked``: its ``query_words``).

    >>> rate(query_words("Where do I teach?"), [("I teach math", 0.5), ("lunch", 0.0)])
    [(1.0, ['teach']), (0.0, [])]
    """
    out = []
    for record_text, similarity in records:
        held = set(_terms(record_text))
        matched = [word for term, word in asked.items() if term in held]
        out.append((relevance(similarity, len(matched), len(asked)), matched))
    return out


def explain(brief: Mapping[str, Any]) -> str:
    """A found record's relevance and what it rests on, in plain words ("" without a relevance).

    >>> explain({"relevance": 0.75, "matched": ["marathon"], "similarity": 0.35, "scores": {"date": 1.0}})
    'relevance 0.75: holds the words "marathon"; related in meaning; said on a day asked about'
    """
    if "relevance" not in brief:
        return ""
    why = []
    if brief.get("matched"):
        why.append("holds the words " + ", ".join(f'"{w}"' for w in brief["matched"]))
    near = meaning(float(brief.get("similarity", 0.0)))
    if near >= CLOSE:
        why.append("close in meaning")
    elif near >= RELATED:
        why.append("related in meaning")
    scores = brief.get("scores") or {}
    why += [said for cue, said in CUES.items() if scores.get(cue, 0) > 0]
    return f"relevance {float(brief['relevance']):.2f}" + (f": {'; '.join(why)}" if why else "")
