"""The search: pick candidates, gather the query's evidence, weigh, filter, and return hits.

``search`` reads one user's memory (``UserSearch``: made by ``caim.memory.search.retrieval.Retriever.prepare``
from its caches) through one interface, ``SearchStore``, that ``caim.memory.storage.store.MemoryStore``
implements; it reads the query through its ``QueryAnalysis`` only (``caim.memory.search.analysis``),
made once per query. A user with at most
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

from collections.abc import Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol, cast

import numpy as np

import caim.memory.search.ranking as ranking
import caim.memory.search.relevance as relevance
import caim.memory.search.signals as signals
from caim.core.embeddings import Embedder
from caim.memory.records import MemoryRecord
from caim.memory.search.analysis import QueryAnalysis, analyse
from caim.memory.search.columns import Columns, Flags, Floats, merged
from caim.memory.search.config import DEFAULT_WEIGHTS, Weights, adjusted
from caim.memory.search.lexical import LexicalIndex, LexicalScores
from caim.memory.search.query import Hit, Query

_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="caim-retrieval")
#: Most linked records added after the hits.
MOST_LINKED = 3


class SearchStore(Protocol):
    """The one interface the search reads storage through (``caim.memory.storage.store.MemoryStore`` implements
    it): records by number, their columns, the lexical postings, the vector index, and the indexes of
    times, names and sessions."""

    embedder: Embedder

    def search_stats(self, user_id: str) -> tuple[int, float, int]:
        """Record count, mean lexical length, write version."""
        ...

    def columns(self, user_id: str, rids: Sequence[int] | None = None) -> dict[str, Any]:
        """Raw ranking columns of the records numbered ``rids`` (``None``: all)."""
        ...

    def by_rid(self, user_id: str, rids: Sequence[int]) -> dict[int, MemoryRecord]:
        """Records by number."""
        ...

    def get_many(self, user_id: str, ids: Sequence[str]) -> list[MemoryRecord]:
        """Records by id."""
        ...

    def postings(self, user_id: str, term: str, newest: int | None = None) -> list[tuple[int, int, int]]:
        """A term's lexical postings."""
        ...

    def document_frequency(self, user_id: str, terms: Iterable[str]) -> dict[str, int]:
        """How many records hold each term."""
        ...

    def in_range(self, user_id: str, start: float, end: float, limit: int) -> list[int]:
        """Numbers of records dated in a range."""
        ...

    def with_names(self, user_id: str, found: Sequence[str], limit: int) -> list[int]:
        """Numbers of records naming one of ``found``."""
        ...

    def neighbours_of(self, user_id: str, rids: Sequence[int]) -> list[int]:
        """Numbers of the turns next to records."""
        ...

    def nearest_rids(self, user_id: str, vector: np.ndarray, k: int) -> list[int]:
        """Numbers of the indexed records nearest to a vector."""
        ...

    def pending_vectors(self, user_id: str, newest: int) -> tuple[list[int], np.ndarray]:
        """Numbers and vectors of the latest records not yet in the vector index."""
        ...

    def names_of(self, user_id: str, rids: Sequence[int]) -> dict[int, set[str]]:
        """Names per record."""
        ...

    def tags_of(self, user_id: str, rids: Sequence[int]) -> dict[int, set[str]]:
        """Tags per record."""
        ...


@dataclass(frozen=True)
class UserSearch:
    """One user's search: where it reads, what is known of the user before it reads (counts, the
    language their records are usually in, their known speakers, and - from the caller's caches -
    all their records as columns for a full scan, or a sample of their vectors for a large memory),
    and the candidate limits (``caim.memory.search.retrieval.Retriever.prepare`` makes it).

    Attributes:
        store: Where to read.
        lexical: The lexical index over ``store``.
        user_id: Whose memory.
        n: Their record count.
        avgdl: Their records' mean lexical length.
        version: Their write version.
        language: The language their records are usually in (the query's expected language).
        speakers: Their known speakers.
        columns: All their records as columns when they are scored over all (``n <= full_scan``), else ``None``.
        sample: A sample of their vectors when they are not (the cosine's mean and spread), else ``None``.
        lexical_k: Lexical candidates of a large memory.
        dense_k: Nearest-vector candidates of a large memory.
        full_scan: How many of the latest unindexed records are compared by exact cosine.
    """

    store: SearchStore
    lexical: LexicalIndex
    user_id: str
    n: int
    avgdl: float
    version: int
    language: str
    speakers: tuple[str, ...]
    columns: Columns | None
    sample: np.ndarray | None
    lexical_k: int
    dense_k: int
    full_scan: int

    def analysis(self, query: Query) -> QueryAnalysis:
        """The query's analysis: the one it brought, else one made now (in the user's usual language)."""
        if query.analysis is not None:
            return query.analysis
        return analyse(
            query.text,
            now=query.now,
            expected=self.language,
            speakers=self.speakers,
            languages=self.store.embedder.languages,
            vector=query.vector,
        )


def search(user: UserSearch, query: Query, k: int = 10, weights: Weights = DEFAULT_WEIGHTS) -> list[Hit]:
    """The ``k`` best records of the user for the query that are relevant enough, each followed by its
    linked records.

    Args:
        user: The user's search (where to read, what is known).
        query: What to look for.
        k: Most ranked hits.
        weights: The ranking recipe (aggregate questions turn neighbour and session off).

    Returns:
        Hits, best first, linked records after the hit that links them.
    """
    a = user.analysis(query)
    s = scoring(user, query, weights, a) if k > 0 else None
    if s is None:
        return []
    score, parts = ranking.weigh(s.columns, s.weights, s.evidence)
    order = ranking.top(score, s.allowed, k)
    hit_list = hits(user.store, user.user_id, s.columns, order, score, parts, s.cos)
    return relevant(with_links(user.store, user.user_id, hit_list, query), query, a)


def relevant(found: list[Hit], query: Query, analysis: QueryAnalysis) -> list[Hit]:
    """The hits whose relevance reaches ``query.min_relevance``, each rated against the query's words
    (``caim.memory.search.relevance``); a linked record stands or falls with the hit that links it.

    Args:
        found: Hits, each linked record after the hit that links it (``with_links``).
        query: The query.
        analysis: Its analysis (its words).

    Returns:
        The relevant hits, in their order.
    """
    ranked = [h for h in found if "linked" not in h.scores]
    rated = iter(relevance.rate(analysis.words, [(h.record.lexical_text(), h.similarity) for h in ranked]))
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


def scoring(
    user: UserSearch, query: Query, weights: Weights = DEFAULT_WEIGHTS, analysis: QueryAnalysis | None = None
) -> Scoring | None:
    """The candidates and evidence of a query (``None`` when the user has no candidate records).

    The query is read once (``analysis``, else ``UserSearch.analysis``): in the language its words
    name, and where they leave it open ("Wo wohnt Caroline?") in the language the user's records
    usually are in. Signals whose weight is 0 read nothing, so their evidence is absent: to rank the
    same ``Scoring`` under other weights (``caim eval retrieval --cv`` fits them), pass weights with
    every signal on.
    """
    if user.n == 0:
        return None
    a = analysis or user.analysis(query)
    w = adjusted(weights, aggregate=a.aggregate, unread=a.unread)
    pending = _embedding(user, query, a)
    full = user.columns is not None
    lex = user.lexical.scores(user.user_id, list(a.terms), user.n, user.avgdl, prune=not full)
    # a large memory's candidates from the query's words, ranges and names are read while it embeds, too
    cues = None if full else cue_candidates(user, query, lex, list(a.names))
    # no pending embedding: the query brought its vector
    qvec = cast(np.ndarray, query.vector) if pending is None else pending.result()
    c = cast(Columns, user.columns) if cues is None else candidates(user, qvec, cues)
    if c.m == 0:
        return None
    cos = signals.cosine(c.vec, qvec)
    reference = cos if full else _sample_cosine(cast(np.ndarray, user.sample), qvec, cos)
    ev = evidence(user.store, user.user_id, c, query, a, w, lex, cos, reference)
    return Scoring(c, ev, ranking.allowed(c, query, ev.tags_of), cos, w, a.aggregate, a.unread)


def _embedding(user: UserSearch, query: Query, analysis: QueryAnalysis) -> Future[np.ndarray] | None:
    """The query's vector, computed while the lexical part reads the database (both release the GIL):
    of the text as the speakers it names would ask it (``QueryAnalysis.dense_text``); ``None`` when the
    query brought the vector of that text (its own vector, when it names no known speaker)."""
    text = analysis.dense_text
    if query.vector is not None and text == query.text:
        return None
    return _POOL.submit(user.store.embedder.embed_query, text)


def records_of(store: SearchStore, user_id: str, s: Scoring) -> list[MemoryRecord | None]:
    """The record of each of the scoring's candidate rows, in row order (``None`` where it is gone)."""
    found = store.by_rid(user_id, [int(r) for r in s.columns.rid])
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
        columns: The raw columns of ``rids`` (``SearchStore.columns``).
    """

    found: set[int]
    rids: set[int]
    columns: dict[str, Any]


def cue_candidates(user: UserSearch, query: Query, lex: LexicalScores, query_names: list[str]) -> Cues:
    """The records a large memory's query finds by its words, time ranges and names, with the turns
    next to them (read while the query's vector is computed).

    Args:
        user: The user's search.
        query: The query (its time ranges).
        lex: Its lexical scores.
        query_names: Names it mentions (lower case).

    Returns:
        Their row ids and columns.
    """
    store, uid = user.store, user.user_id
    found = {int(r) for r in lex.top(user.lexical_k)}
    for a, b in query.ranges:
        found |= set(store.in_range(uid, a, b, user.lexical_k))
    found |= set(store.with_names(uid, query_names, user.lexical_k))
    rids = found | set(store.neighbours_of(uid, list(found)))
    return Cues(found, rids, store.columns(uid, sorted(rids)))


def candidates(user: UserSearch, qvec: np.ndarray, cues: Cues) -> Columns:
    """The records worth scoring in a large memory: ``cues``, the nearest by vector (indexed and not
    yet indexed), and the turns next to all of them.

    Args:
        user: The user's search.
        qvec: The query's vector.
        cues: The candidates found without it.

    Returns:
        Their columns.
    """
    store, uid = user.store, user.user_id
    near = set(store.nearest_rids(uid, qvec, user.dense_k))
    near |= set(pending_nearest(store, uid, qvec, user.dense_k, user.full_scan))
    near -= cues.found  # a nearest record that is only a cue's neighbour still brings its own neighbours
    extra = (near | set(store.neighbours_of(uid, list(near)))) - cues.rids
    return Columns(merged(cues.columns, store.columns(uid, sorted(extra))))


def pending_nearest(store: SearchStore, user_id: str, qvec: np.ndarray, k: int, newest: int) -> list[int]:
    """Row ids of the ``k`` records nearest to ``qvec`` by exact cosine among the user's ``newest``
    latest records that the vector index does not hold yet (written, not yet indexed).

    Args:
        store: Where to read.
        user_id: Whose records.
        qvec: The query's vector.
        k: How many.
        newest: How many of the latest unindexed records are compared (older ones wait for the index).

    Returns:
        Row ids, nearest first.
    """
    rids, vecs = store.pending_vectors(user_id, newest)
    if not rids:
        return []
    order = np.argsort(-(vecs @ qvec), kind="stable")[:k]
    return [rids[int(i)] for i in order]


def evidence(
    store: SearchStore,
    user_id: str,
    c: Columns,
    query: Query,
    analysis: QueryAnalysis,
    w: Weights,
    lex: LexicalScores,
    cos: Floats,
    reference: Floats,
) -> ranking.Evidence:
    """What the query brings to the signals over the candidates ``c``.

    Args:
        store: Where to read (names and tags per record are read only when needed).
        user_id: Whose memory.
        c: The candidates.
        query: The query (its tags, ranges, age decay).
        analysis: Its analysis (the speakers and names it names, its explicit dates, a "when" question).
        w: The weights (a signal at 0 reads nothing).
        lex: Its lexical scores over the user's records.
        cos: Cosine similarity per candidate.
        reference: Cosine similarities the dense z-score's mean and spread come from.

    Returns:
        The evidence.
    """
    rids = c.rid.tolist()
    named = analysis.speakers
    return ranking.Evidence(
        lexical=signals.zscore(lex.at(c.rid), lex.mean, lex.std),
        dense=signals.zscore(cos, float(reference.mean()), float(reference.std())),
        speaker=named[0] if len(named) == 1 else None,
        names=frozenset(analysis.names),
        names_of=store.names_of(user_id, rids) if w.name and analysis.names else {},
        when=analysis.when,
        windows=list(analysis.windows),
        ranges=query.ranges,
        tags=query.tags,
        tags_of=store.tags_of(user_id, rids) if (w.tag and query.tags) or query.expired is not None else {},
        decay_days=query.decay_days,
        now=query.now.timestamp(),
    )


def hits(
    store: SearchStore, user_id: str, c: Columns, order: list[int], score: Floats, parts: ranking.Parts, cos: Floats
) -> list[Hit]:
    """The ranked rows as hits: the record, its score and parts, and the turn it answered.

    Args:
        store: Where to read.
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
    records = store.by_rid(user_id, wanted)
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


def with_links(store: SearchStore, user_id: str, hits: list[Hit], query: Query, most: int = MOST_LINKED) -> list[Hit]:
    """Each hit followed by the records linked to it (the same person, pet, place or thing) that did not rank.

    They become candidates beside it, so information split over sessions is answered together.

    Args:
        store: Where to read.
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
