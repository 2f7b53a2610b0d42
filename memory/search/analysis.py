"""One reading of a query: ``QueryAnalysis``, made once per query and passed down.

Everything the search reads of a query's text - its language, terms, names, the known speakers it
names, its time expressions and explicit dates, its flags - is read here, in one place, in the
language given as an explicit argument (``expected``: the language the user's records are usually
in, ``caim.memory.search.retrieval.Retriever.usual_language``) wherever the query's own words leave
its language open (the text functions it calls take that expectation from ``expecting``, which
``analyse`` sets around its one block and nothing else in the search sets). The graph's search and
``Memory.search`` both go through ``caim.services.search``, which makes the analysis; the engine
(``caim.memory.search.engine``) reads the analysis only, never the text again.

>>> from datetime import datetime
>>> a = analyse("When did Caroline go to Paris last week?", now=datetime(2024, 5, 8), speakers=["Caroline"])
>>> a.language, a.speakers, a.names, a.expressions, a.when
('en', ('Caroline',), ('paris',), ('last week',), True)
>>> analyse("上周五我去了哪里？", now=datetime(2024, 5, 8)).spans[0]["start"][:10]
'2024-05-03'
>>> analyse("上周五我去了哪里？", now=datetime(2024, 5, 8), expected="ja").spans
()
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from caim.memory.search.config import question_flags
from caim.memory.search.relevance import query_words
from caim.memory.text import (
    asks_about_past,
    date_windows,
    detect,
    expecting,
    in_first_person,
    is_when_question,
    named_speakers,
    names,
    tokenize,
)
from caim.memory.text.timeref import TimeSpan, find_expressions, resolve


@dataclass(frozen=True)
class QueryAnalysis:
    """What a query's text says, read once (``analyse``).

    Attributes:
        text: The query.
        now: When it is asked (time expressions and explicit dates resolve against it).
        expected: The language expected where the query's words leave its language open.
        language: The language the query is read in (a ``caim.memory.text.detect`` code).
        terms: Its index terms (``tokenize``), in order, with repeats.
        words: Its terms, each with the word it was written as (``relevance.query_words``).
        names: Names it mentions, lower case (known speakers are names too).
        speakers: The known speakers it names.
        dense_text: The text the dense signal embeds: the query as the speakers it names would ask it
            of themselves (``in_first_person``).
        expressions: Its time expressions (``find_expressions``).
        spans: The time ranges those resolve to at ``now`` (an expression that resolves to none is left out).
        windows: Its explicit dates as day ranges (``date_windows``).
        past: It asks about how things were (superseded records take part).
        when: It is a "when" question.
        aggregate: It gathers several turns (neighbour and session terms off).
        unread: It is in a language the embedder does not read.
        vector: The embedding of ``text``, when it was computed (``None``: the search embeds).
    """

    text: str
    now: datetime
    expected: str
    language: str
    terms: tuple[str, ...]
    words: dict[str, str]
    names: tuple[str, ...]
    speakers: tuple[str, ...]
    dense_text: str
    expressions: tuple[str, ...]
    spans: tuple[TimeSpan, ...]
    windows: tuple[tuple[datetime, datetime], ...]
    past: bool
    when: bool
    aggregate: bool
    unread: bool
    vector: np.ndarray | None = field(default=None, compare=False)


def analyse(
    text: str,
    *,
    now: datetime,
    expected: str = "en",
    speakers: Sequence[str] = (),
    languages: frozenset[str] | None = None,
    vector: np.ndarray | None = None,
) -> QueryAnalysis:
    """Read ``text`` once, in the language its words name, else in ``expected``.

    Args:
        text: The query.
        now: When it is asked.
        expected: The language expected where its words leave it open (a ``detect`` code).
        speakers: The known speakers of the user's memory.
        languages: The languages the embedder reads (``None``: any).
        vector: The embedding of ``text``, if already computed.

    Returns:
        The analysis.
    """
    with expecting(expected):
        named = named_speakers(text, list(speakers))
        aggregate, unread = question_flags(text, languages)
        expressions = tuple(dict.fromkeys(find_expressions(text)))
        spans = tuple(r.span() for e in expressions if (r := resolve(e, now)) is not None)
        return QueryAnalysis(
            text=text,
            now=now,
            expected=expected,
            language=detect(text).code,
            terms=tuple(tokenize(text)),
            words=query_words(text),
            names=tuple(x.lower() for x in names(text, frozenset(speakers))),
            speakers=tuple(named),
            dense_text=in_first_person(text, named),
            expressions=expressions,
            spans=spans,
            windows=tuple(date_windows(text, now)),
            past=asks_about_past(text),
            when=is_when_question(text),
            aggregate=aggregate,
            unread=unread,
            vector=vector,
        )
