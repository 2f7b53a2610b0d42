"""The search: pick candidates, gather the query's evidence, weigh, filter, and return hits.

``search`` reads through a ``Source`` (``caim.memory.search.retrieval.Retriever`` is one): the store, the
lexical index, and the caches of a user's columns, vector sample and speakers. A user with at most
``full_scan`` records is scored over all of them; past that the candidates come from indexes only,
each read a bounded number of rows whatever the memory's size: the lexical top ``lexical_k`` (from
a bounded read of the postings, ``LexicalIndex.scores``), the ``dense_k`` nearest vectors, the
``dense_k`` nearest by exact cosine among the latest ``full_scan`` records not yet in the vector
index, up to ``lexical_k`` records in each of the query's time ranges or naming one of its names,
and the turns next to all of these (the cosine's mean and spread then come from a sample of the
user's vectors). The candidates that need no query vector (words, ranges, names) and the turns
around them are read while the query is embedded. The dense signal compares meaning only: records
are embedded without their date (``MemoryRecord.embedded_text``) and the query as the known
speakers it names would ask it of themselves (``in_first_person``). Every hit is followed by up to
three linked records that did not rank themselves. Only the hits relevant enough are returned
(``Query.min_relevance``, ``caim.memory.search.relevance``): ``k`` is a most, not a quota.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol, cast

import numpy as np

import caim.memory.search.ranking as ranking
import caim.memory.search.relevance as relevance
import caim.memory.search.signals as signals
from caim.memory.records import MemoryRecord
from caim.memory.search.columns import Columns, Flags, Floats, merged
from caim.memory.search.config import DEFAULT_WEIGHTS, Weights, adjusted, question_flags
from caim.memory.search.lexical import LexicalIndex, LexicalScores
from caim.memory.search.query import Hit, Query
from caim.memory.storage.db import RecordDB
from caim.memory.storage.store import MemoryStore
from caim.memory.text import (
    date_windows,
    expecting,
    in_first_person,
    is_when_question,
    named_speakers,
    names,
    tokenize,
)

_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="caim-retrieval")
#: Most linked records added after the hits.
MOST_LINKED = 3


class Source(Protocol):
    """What a search reads: the store, the lexical index, the candidate limits and the per-user caches."""

    store: MemoryStore
    lexical: LexicalIndex
    full_scan: int
    lexical_k: int
    dense_k: int

    def columns(self, user_id: str, version: int) -> Columns:
        """All the user's records as columns."""
        ...

    def dense_sample(self, user_id: str, n: int) -> np.ndarray:
        """A sample of the user's vectors (for the cosine's mean and spread)."""
        ...

    def speakers(self, user_id: str, version: int) -> list[str]:
        """The user's known speakers."""
        ...

    def usual_language(self, user_id: str, n: int) -> str:
        """The language the user's records are usually in (a ``detect`` code)."""
        ...


def search(source: Source, user_id: str, query: Query, k: int = 10, weights: Weights = DEFAULT_WEIGHTS) -> list[Hit]:
    """The ``k`` best records of the user for the query that are relevant enough, each followed by its
    linked records.

    Args:
        source: Where to read.
        user_id: Whose memory.
        query: What to look for.
        k: Most ranked hits.
        weights: The ranking recipe (aggregate questions turn neighbour and session off).

    Returns:
        Hits, best first, linked records after the hit that links them.
    """
    s = scoring(source, user_id, query, weights) if k > 0 else None
    if s is None:
        return []
    score, parts = ranking.weigh(s.columns, s.weights, s.evidence)
    order = ranking.top(score, s.allowed, k)
    hit_list = hits(source.store.db, user_id, s.columns, order, score, parts, s.cos)
    return relevant(with_links(source.store, user_id, hit_list, query), query)


def relevant(found: list[Hit], query: Query) -> list[Hit]:
    """The hits whose relevance reaches ``query.min_relevance``, each rated
    (``caim.memory.search.relevance``); a linked record stands or falls with the hit that links it.

    Args:
        found: Hits, each linked record after the hit that links it (``with_links``).
        query: The query.

    Returns:
        The relevant hits, in their order.
    """
    ranked = [h for h in found if "linked" not in h.scores]
    rated = iter(relevance.rate(query.text, [(h.record.lexical_text(), h.similarity) for h in ranked]))
    out: list[Hit] = []
    linking = 0.0
    for h in found:
        if "linked" in h.scores:  # after its linking hit: rated as that hit
            h.relevance, h.matched = linking, []
        else:
            h.relevance, h.matched = next(rated)
            linking = h.relevance
        if h.relevance >= query.min_relevance:
            out.append(h)
    return out


@dataclass(frozen=True)
class Scoring:
    """Everything a ranking of one query needs, whatever the weights: its candidates and evidence.

    Attributes:
        columns: The candidates.
        evidence: What the query brings to the signals over them.
        allowed: Which candidates may be returned.
        cos: Cosine similarity per candidate.
        weights: The weights asked for, as ``adjusted`` for this query (by the two flags below).
        aggregate: The query gathers several turns (``is_aggregate_question``).
        unread: The query is in a language the store's embedder does not read (``reads``).
    """

    columns: Columns
    evidence: ranking.Evidence
    allowed: Flags
    cos: Floats
    weights: Weights
    aggregate: bool = False
    unread: bool = False


def scoring(source: Source, user_id: str, query: Query, weights: Weights = DEFAULT_WEIGHTS) -> Scoring | None:
    """The candidates and evidence of a query (``None`` when the user has no candidate records).

    The query is read in the language its words name, and where they leave it open ("Wo wohnt
    Caroline?") in the language the user's records usually are in (``expecting``).
    Signals whose weight is 0 read nothing, so their evidence is absent: to rank the same
    ``Scoring`` under other weights (``caim eval retrieval --cv`` fits them), pass weights with
    every signal on.
    """
    n, avgdl, version = source.store.db.stats(user_id)
    if n == 0:
        return None
    with expecting(source.usual_language(user_id, n)):
        return _scoring(source, user_id, query, weights, (n, avgdl, version))


def _scoring(
    source: Source, user_id: str, query: Query, weights: Weights, stats: tuple[int, float, int]
) -> Scoring | None:
    db, (n, avgdl, version) = source.store.db, stats
    aggregate, unread = question_flags(query.text, source.store.embedder.languages)
    w = adjusted(weights, aggregate=aggregate, unread=unread)
    speakers = source.speakers(user_id, version)
    named = named_speakers(query.text, speakers)
    pending = _embedding(source, query, named)
    full = n <= source.full_scan
    lex = source.lexical.scores(user_id, tokenize(query.text), n, avgdl, prune=not full)
    query_names = [x.lower() for x in names(query.text, frozenset(speakers))]
    # a large memory's candidates from the query's words, ranges and names are read while it embeds, too
    cues = None if full else cue_candidates(source, user_id, query, lex, query_names)
    # no pending embedding: the query brought its vector
    qvec = cast(np.ndarray, query.vector) if pending is None else pending.result()
    c = source.columns(user_id, version) if cues is None else candidates(source, user_id, qvec, cues)
    if c.m == 0:
        return None
    cos = signals.cosine(c.vec, qvec)
    reference = cos if full else _sample_cosine(source.dense_sample(user_id, n), qvec, cos)
    ev = evidence(db, user_id, c, query, w, lex, cos, reference, named, query_names)
    return Scoring(c, ev, ranking.allowed(c, query, ev.tags_of), cos, w, aggregate, unread)


def _embedding(source: Source, query: Query, named: list[str]) -> Future[np.ndarray] | None:
    """The query's vector, computed while the lexical part reads the database (both release the GIL):
    of the text as the speakers it names would ask it (``in_first_person``); ``None`` when the query
    brought the vector of that text (its own vector, when it names no known speaker)."""
    text = in_first_person(query.text, named)
    if query.vector is not None and text == query.text:
        return None
    return _POOL.submit(source.store.embedder.embed_query, text)


def records_of(source: Source, user_id: str, s: Scoring) -> list[MemoryRecord | None]:
    """The record of each of the scoring's candidate rows, in row order (``None`` where it is gone)."""
    found = source.store.db.by_rid(user_id, [int(r) for r in s.columns.rid])
    return [found.get(int(r)) for r in s.columns.rid]


def _sample_cosine(sample: np.ndarray, qvec: np.ndarray, fallback: Floats) -> Floats:
    return sample @ qvec if len(sample) else fallback


@dataclass(frozen=True)
class Cues:
    """A large memory's candidates that need no query vector, and the turns around them.

    Attributes:
        found: Row ids of the lexical top, the records in the query's time ranges and those naming
            its names.
        rids: ``found`` and the turns before and after them.
        columns: The raw columns of ``rids`` (``RecordDB.columns``).
    """

    found: set[int]
    rids: set[int]
    columns: dict[str, Any]


def cue_candidates(source: Source, user_id: str, query: Query, lex: LexicalScores, query_names: list[str]) -> Cues:
    """The records a large memory's query finds by its words, time ranges and names, with the turns
    next to them (read while the query's vector is computed).

    Args:
        source: Where to read.
        user_id: Whose memory.
        query: The query (its time ranges).
        lex: Its lexical scores.
        query_names: Names it mentions (lower case).

    Returns:
        Their row ids and columns.
    """
    db = source.store.db
    found = {int(r) for r in lex.top(source.lexical_k)}
    for a, b in query.ranges:
        found |= set(db.in_range(user_id, a, b, source.lexical_k))
    found |= set(db.with_names(user_id, query_names, source.lexical_k))
    rids = found | set(db.neighbours_of(user_id, list(found)))
    return Cues(found, rids, db.columns(user_id, sorted(rids)))


def candidates(source: Source, user_id: str, qvec: np.ndarray, cues: Cues) -> Columns:
    """The records worth scoring in a large memory: ``cues``, the nearest by vector (indexed and not
    yet indexed), and the turns next to all of them.

    Args:
        source: Where to read.
        user_id: Whose memory.
        qvec: The query's vector.
        cues: The candidates found without it.

    Returns:
        Their columns.
    """
    db = source.store.db
    near = set(db.rids_of(user_id, [i for i, _ in source.store.vectors.nearest(user_id, qvec, source.dense_k)]))
    near |= set(pending_nearest(db, user_id, qvec, source.dense_k, source.full_scan))
    near -= cues.found  # a nearest record that is only a cue's neighbour still brings its own neighbours
    extra = (near | set(db.neighbours_of(user_id, list(near)))) - cues.rids
    return Columns(merged(cues.columns, db.columns(user_id, sorted(extra))))


def pending_nearest(db: RecordDB, user_id: str, qvec: np.ndarray, k: int, newest: int) -> list[int]:
    """Row ids of the ``k`` records nearest to ``qvec`` by exact cosine among the user's ``newest``
    latest records that the vector index does not hold yet (written, not yet indexed).

    Args:
        db: The record database.
        user_id: Whose records.
        qvec: The query's vector.
        k: How many.
        newest: How many of the latest unindexed records are compared (older ones wait for the index).

    Returns:
        Row ids, nearest first.
    """
    rids, vecs = db.pending_vectors_of(user_id, newest)
    if not rids:
        return []
    order = np.argsort(-(vecs @ qvec), kind="stable")[:k]
    return [rids[int(i)] for i in order]


def evidence(
    db: RecordDB,
    user_id: str,
    c: Columns,
    query: Query,
    w: Weights,
    lex: LexicalScores,
    cos: Floats,
    reference: Floats,
    named: list[str],
    query_names: list[str],
) -> ranking.Evidence:
    """What the query brings to the signals over the candidates ``c``.

    Args:
        db: The record database (names and tags per record are read only when needed).
        user_id: Whose memory.
        c: The candidates.
        query: The query.
        w: The weights (a signal at 0 reads nothing).
        lex: Its lexical scores over the user's records.
        cos: Cosine similarity per candidate.
        reference: Cosine similarities the dense z-score's mean and spread come from.
        named: Known speakers the query names.
        query_names: Names it mentions (lower case).

    Returns:
        The evidence.
    """
    rids = c.rid.tolist()
    return ranking.Evidence(
        lexical=signals.zscore(lex.at(c.rid), lex.mean, lex.std),
        dense=signals.zscore(cos, float(reference.mean()), float(reference.std())),
        speaker=named[0] if len(named) == 1 else None,
        names=frozenset(query_names),
        names_of=db.names_of(user_id, rids) if w.name and query_names else {},
        when=is_when_question(query.text),
        windows=date_windows(query.text, query.now),
        ranges=query.ranges,
        tags=query.tags,
        tags_of=db.tags_of(user_id, rids) if (w.tag and query.tags) or query.expired is not None else {},
        decay_days=query.decay_days,
        now=query.now.timestamp(),
    )


def hits(
    db: RecordDB, user_id: str, c: Columns, order: list[int], score: Floats, parts: ranking.Parts, cos: Floats
) -> list[Hit]:
    """The ranked rows as hits: the record, its score and parts, and the turn it answered.

    Args:
        db: The record database.
        user_id: Whose memory.
        c: The candidates.
        order: Rows to return, best first.
        score: Score per row.
        parts: Weighted part per signal per row.
        cos: Cosine similarity per row.

    Returns:
        One hit per row whose record still exists.
    """
    partner = {i: c.answered(i) for i in order}
    wanted = [int(c.rid[i]) for i in order] + [int(c.rid[j]) for j in partner.values() if j >= 0]
    records = db.by_rid(user_id, wanted)
    out: list[Hit] = []
    for i in order:
        rec = records.get(int(c.rid[i]))
        if rec is None:
            continue
        hit = Hit(rec, float(score[i]), {name: float(v[i]) for name, v in parts.items()}, float(cos[i]))
        other = records.get(int(c.rid[partner[i]])) if partner[i] >= 0 else None
        if other is not None:
            who = f"{other.speaker}: " if other.speaker else ""
            hit.context = f"{who}{other.thought}"
        out.append(hit)
    return out


def with_links(store: MemoryStore, user_id: str, hits: list[Hit], query: Query, most: int = MOST_LINKED) -> list[Hit]:
    """Each hit followed by the records linked to it (the same person, pet, place or thing) that did not rank.

    They become candidates beside it, so information split over sessions is answered together.

    Args:
        store: The store.
        user_id: Whose memory.
        hits: The ranked hits.
        query: The query (superseded links only when it asks about the past).
        most: Most linked records added in all.

    Returns:
        The hits with the linked ones after their first linking hit (score: that hit's).
    """
    have = {h.record.id for h in hits}
    wanted = list(dict.fromkeys(i for h in hits for i in h.record.links if i not in have))[:most]
    linked = {r.id: r for r in store.get_many(user_id, wanted) if r.current or query.past}
    out: list[Hit] = []
    for h in hits:
        out.append(h)
        for i in h.record.links:
            if i in linked:
                out.append(Hit(linked.pop(i), h.score, {"linked": 1.0}))
    return out
