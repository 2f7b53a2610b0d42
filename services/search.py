"""The ranked search with its signals, as the graph's search step and ``Memory.search`` both run it.

A query is read once (``read``): the user's search is prepared from the retriever's caches
(``Retriever.prepare``: counts, the language the user's records are usually in, known speakers) and
the text analysed in that language (``caim.memory.search.analysis.analyse``: terms, names, speakers,
time expressions and their ranges, flags, the vector). What code looks for (``looked_for``: the three
ontology tags nearest by meaning, the time ranges - "our first conversation" is the day of the user's
earliest record) and the ranking (``rank``, ``hits``) then use that reading; nothing below reads the
text again, and no language is taken from the context.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, time, timedelta

from caim.core.embeddings import Embedder
from caim.core.settings import Settings
from caim.memory.records import MemoryBrief, as_aware
from caim.memory.search import QueryAnalysis, UserSearch, analyse, search
from caim.memory.search.relevance import RELEVANCE_FLOOR
from caim.memory.search.retrieval import DEFAULT_WEIGHTS, Hit, Query, Retriever, Weights, own_value
from caim.memory.storage.store import MemoryStore
from caim.memory.text import expecting
from caim.memory.text.timeref import TimeRange, TimeSpan, resolve
from caim.ontology import Ontology, TagIndex

_FIRST = re.compile(r"\b(first|earliest) (conversation|chat|talk|session|time we (talked|spoke|met))\b", re.I)
#: Ontology tags nearest by meaning a search looks for.
NEAREST_TAGS = 3


@dataclass(frozen=True)
class SearchScope:
    """Whose memory a search reads, with what, and when.

    Attributes:
        store: The memory store.
        retriever: The ranked retrieval over it (its per-user caches).
        embedder: The query embedder.
        tagger: The tag index (tags nearest by meaning).
        ontology: The ontology the user sees.
        settings: The deployment's settings (source chars, lifetimes, age decay).
        user_id: The user.
        now: When the query is asked (time expressions resolve against it).
    """

    store: MemoryStore
    retriever: Retriever
    embedder: Embedder
    tagger: TagIndex
    ontology: Ontology
    settings: Settings
    user_id: str
    now: datetime


@dataclass(frozen=True)
class Reading:
    """A query read once for one user: the user's prepared search and the query's analysis."""

    user: UserSearch
    analysis: QueryAnalysis


def read(scope: SearchScope, text: str, user: UserSearch | None = None) -> Reading:
    """Read ``text`` once for the scope's user, in the language their records are usually in where its
    words leave it open (an explicit argument of ``analyse``, never the context's); ``user``: the
    user's search already prepared for another query of the same turn (``None``: prepared now)."""
    user = user or scope.retriever.prepare(scope.user_id)
    vector = scope.embedder.embed_query(text)
    analysis = analyse(
        text,
        now=scope.now,
        expected=user.language,
        speakers=user.speakers,
        languages=scope.embedder.languages,
        vector=vector,
    )
    return Reading(user, analysis)


def looked_for(scope: SearchScope, reading: Reading) -> tuple[list[str], list[TimeSpan]]:
    """What code looks for in a query: the ontology tags nearest by meaning and the time ranges of its
    time expressions (with "our first conversation": the day of the user's earliest record)."""
    a = reading.analysis
    tags = (
        [t for t, _ in scope.tagger.nearest(scope.ontology, a.vector, NEAREST_TAGS)[0]] if a.vector is not None else []
    )
    return tags, [*a.spans, *first_conversation(scope, a.text)]


def time_spans(scope: SearchScope, expressions: Sequence[str], language: str) -> list[TimeSpan]:
    """The time ranges of ``expressions`` (a plan's) at the scope's time, read in ``language`` where
    their words leave it open; an expression that resolves to none is left out."""
    with expecting(language):
        return [r.span() for e in dict.fromkeys(expressions) if (r := resolve(e, scope.now)) is not None]


def first_conversation(scope: SearchScope, text: str) -> list[TimeSpan]:
    """The day of the user's earliest record, when ``text`` asks about the first conversation."""
    if not _FIRST.search(text):
        return []
    first = scope.store.first(scope.user_id)
    if first is None:
        return []
    day = as_aware(first.event_time)
    start = datetime.combine(day.date(), time.min, tzinfo=day.tzinfo)
    return [TimeRange("first conversation", start, start + timedelta(days=1, microseconds=-1)).span()]


def expired_rule(scope: SearchScope) -> Callable[[float, set[str]], bool] | None:
    """Per-category lifetimes: a record expires from retrieval when one of its tags lies under a
    category with a lifetime (``lifetimes`` setting, days) that has passed since its event."""
    lifetimes = scope.settings.lifetimes
    if not lifetimes:
        return None
    ontology = scope.ontology
    now = scope.now.timestamp()

    def expired(event_ts: float, tags: set[str]) -> bool:
        for tag in tags:
            path = ontology.path(tag)
            for root, days in lifetimes.items():
                if (tag == root or path == root or path.startswith(root + "/") or f"/{root}/" in f"/{path}/") and (
                    now - event_ts > days * 86400
                ):
                    return True
        return False

    return expired


def hits(
    scope: SearchScope,
    reading: Reading,
    weights: Weights,
    tags: Sequence[str],
    spans: Sequence[TimeSpan],
    k: int,
    *,
    floor: bool = True,
) -> list[Hit]:
    """The engine's ranked hits for a query read once (``floor``: only those at the search's
    relevance floor; else every one the engine ranks)."""
    a = reading.analysis
    query = Query(
        text=a.text,
        now=scope.now,
        tags=list(tags),
        ranges=[(TimeRange.of(s).start.timestamp(), TimeRange.of(s).end.timestamp()) for s in spans],
        past=a.past,
        vector=a.vector,
        expired=expired_rule(scope),
        decay_days=scope.settings.decay_days,
        analysis=a,
        **({} if floor else {"min_relevance": 0.0}),
    )
    return search(reading.user, query, k, weights)


def rank(
    scope: SearchScope,
    reading: Reading,
    weights: Weights,
    tags: Sequence[str],
    spans: Sequence[TimeSpan],
    k: int,
    *,
    floor: bool = True,
) -> list[MemoryBrief]:
    """The ranked hits as briefs (``floor``: only those at the search's relevance floor or above); a
    question asking the user's single-value fact gets the user's own current statement of it first
    (``own_value``), whatever its relevance: "Where do I live?" shares no word with "I moved to
    Valencia"."""
    ranked = hits(scope, reading, weights, tags, spans, k, floor=False)  # the engine takes k, then rates them
    own = own_value(reading.analysis.text, ranked, scope.ontology.single_valued)
    least = RELEVANCE_FLOOR if floor else 0.0
    kept = [h for h in ranked if h is not own and h.relevance >= least]
    return [h.brief(scope.settings.source_chars) for h in ([own] if own is not None else []) + kept]


def ranked_search(scope: SearchScope, text: str, k: int, weights: Weights = DEFAULT_WEIGHTS) -> list[MemoryBrief]:
    """The ranked search alone, no model: the user's best ``k`` records for ``text`` (lexical, dense,
    tags nearest by meaning, time ranges of its time expressions, names), with their scores."""
    reading = read(scope, text)
    tags, spans = looked_for(scope, reading)
    return rank(scope, reading, weights, tags, spans, k)
