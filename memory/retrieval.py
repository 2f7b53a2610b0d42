"""Ranked retrieval: one score per record from code signals, no model judgement needed.

For a query (the user's message, optionally with tags and time ranges from the memory
controller) every candidate record gets

    base      = w_bm25 · z(BM25) + w_dense · z(cosine)                   z: over all the user's records
    + w_neighbour · max(relu(base) of the turn before, of the turn after)  (same session)
    + w_speaker   · [record spoken by the one known speaker the query names]
    + w_name      · [record names a person/place/thing the query names]
    + w_timex     · [a "when" question and the record holds a time expression]
    + w_date      · [record dated inside an explicit date of the query]
    + w_range     · [record inside a time range the controller resolved]
    + w_tag       · (share of the query's tags the record carries)
    + w_prior     · informativeness prior of the record (code, at write time)
    + w_recency   · recency (0 oldest … 1 newest; a weak prior)
    + w_session   · z over sessions of each session's best score
    - 2 · (1 - 0.5^(age / decay_days))        only when the deployment sets an age decay

Aggregate questions ("what books has X read", "how many") turn the neighbour and session terms off
(they collect mentions scattered over many sessions). Superseded records (an update closed their
validity) and records whose category has expired are left out unless the query asks about the
past. Each hit carries its scores, so the trace shows why it ranked where it did.

The weights were chosen on the LoCoMo development split (``caim eval retrieval``); see
``docs/retrieval.md`` for the figures a run printed.

Small users are scored exactly over all their records; past ``full_scan`` records the candidates
are the lexical top hits, the nearest vectors from Chroma, records in the query's time ranges or
naming its names, and their neighbours (the cosine's mean and spread then come from a sample).
"""

from __future__ import annotations

import math
import threading
import time as _time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

import numpy as np

from caim.memory.records import MemoryBrief, MemoryRecord, as_aware
from caim.memory.store import MemoryStore
from caim.memory.text import (
    date_windows,
    is_aggregate_question,
    is_when_question,
    named_speakers,
    names,
    tokenize,
)

BM25_K1 = 1.2
BM25_B = 0.3
_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="caim-retrieval")

#: In a memory too large for a full scan, query terms in more than this share of records are not read.
MAX_DF = 0.05
#: Most a record loses to age when ``decay_days`` is set (reached asymptotically; half at the half-life).
DECAY_WEIGHT = 2.0


@dataclass(frozen=True)
class Weights:
    """How much each signal counts (see the module docstring)."""

    bm25: float = 1.0
    dense: float = 1.5
    neighbour: float = 0.5
    speaker: float = 4.0
    name: float = 0.0
    timex: float = 1.0
    date: float = 1.0
    range: float = 3.0
    tag: float = 0.0
    prior: float = 0.75
    recency: float = 0.0
    session: float = 1.0


#: The ranking caim uses.
DEFAULT_WEIGHTS = Weights()
#: Plain retrievers, for comparison.
DENSE_ONLY = Weights(
    bm25=0, dense=1, neighbour=0, speaker=0, name=0, timex=0, date=0, range=0, tag=0, prior=0, recency=0, session=0
)
LEXICAL_ONLY = replace(DENSE_ONLY, bm25=1, dense=0)


@dataclass
class Query:
    """What to look for. ``ranges``: (start, end) epoch seconds the controller resolved;
    ``past``: the question asks about how things were (superseded records take part)."""

    text: str
    now: datetime
    tags: Sequence[str] = ()
    ranges: Sequence[tuple[float, float]] = ()
    past: bool = False
    vector: np.ndarray | None = None
    decay_days: float | None = None
    expired: Callable[[float, set[str]], bool] | None = None


@dataclass
class Hit:
    """A ranked record: its total score, the part each signal contributed, its cosine similarity to
    the query, and the other half of its exchange when that adds context."""

    record: MemoryRecord
    score: float
    scores: dict[str, float] = field(default_factory=dict)
    similarity: float = 0.0
    context: str = ""

    def brief(self, source_chars: int = 0) -> MemoryBrief:
        b = self.record.brief(source_chars)
        b["scores"] = {"total": round(self.score, 3), **{k: round(v, 3) for k, v in self.scores.items() if v}}
        b["similarity"] = round(self.similarity, 3)
        if self.context:
            b["context"] = self.context
        return b


@dataclass
class _Stats:
    n: int
    sample: np.ndarray
    at: float


class Columns:
    """A set of records as arrays for ranking: row ids, sessions and turns (with each row's
    neighbours within the set), speakers, prior, time-expression flag, event time, validity,
    kind and the vector matrix."""

    def __init__(self, raw: dict[str, Any]):
        self.rid: np.ndarray = raw["rid"]
        self.session: list[str] = raw["session"]
        self.turn: np.ndarray = raw["turn"]
        self.speaker: list[str] = raw["speaker"]
        self.prior: np.ndarray = raw["prior"]
        self.timex: np.ndarray = raw["timex"]
        self.ts: np.ndarray = raw["ts"]
        self.current: np.ndarray = raw["current"]
        self.raw: np.ndarray = raw["raw"]
        self.vec: np.ndarray = raw["vec"]
        self.m = len(self.rid)
        at = {(s, int(t)): i for i, (s, t) in enumerate(zip(self.session, self.turn, strict=True)) if s and t >= 0}
        self.prev = np.array(
            [at.get((s, int(t) - 1), -1) if s and t >= 0 else -1 for s, t in zip(self.session, self.turn, strict=True)],
            dtype=np.int64,
        )
        self.next = np.array(
            [at.get((s, int(t) + 1), -1) if s and t >= 0 else -1 for s, t in zip(self.session, self.turn, strict=True)],
            dtype=np.int64,
        )
        keys = [s or f"#{r}" for s, r in zip(self.session, self.rid, strict=True)]
        codes: dict[str, int] = {}
        self.session_code = np.array([codes.setdefault(k, len(codes)) for k in keys], dtype=np.int64)
        self.sessions = len(codes)
        self.day = (self.ts // 86400).astype(np.int64)
        self.index = {int(r): i for i, r in enumerate(self.rid)}
        self.nbytes = self.vec.nbytes + 64 * self.m


def _z(x: np.ndarray, mean: float, std: float) -> np.ndarray:
    return (x - mean) / (std if std > 1e-9 else 1.0)


class Retriever:
    """Ranked retrieval over a ``MemoryStore``.

    ``full_scan``: users with at most this many records are scored over all their records (kept as
    arrays in memory, up to ``cache_mb``, reloaded when another write changes the user's records);
    past that size the candidates come from the indexes (``lexical_k`` / ``dense_k`` each)."""

    def __init__(
        self,
        store: MemoryStore,
        *,
        full_scan: int = 5000,
        lexical_k: int = 300,
        dense_k: int = 100,
        sample: int = 256,
        cache_mb: float = 256.0,
    ):
        self.store = store
        self.full_scan = full_scan
        self.lexical_k = lexical_k
        self.dense_k = dense_k
        self.sample = sample
        self.cache_bytes = int(cache_mb * 1e6)
        self._cache: OrderedDict[str, tuple[int, Columns]] = OrderedDict()
        self._stats: dict[str, _Stats] = {}
        self._speakers: dict[str, tuple[int, list[str]]] = {}
        self._lock = threading.Lock()

    # ---- caches -------------------------------------------------------------------------------------
    def _all(self, user_id: str, version: int) -> Columns:
        with self._lock:
            hit = self._cache.get(user_id)
            if hit is not None and hit[0] == version:
                self._cache.move_to_end(user_id)
                return hit[1]
        cols = Columns(self.store.db.columns(user_id))
        with self._lock:
            self._cache[user_id] = (version, cols)
            while sum(c.nbytes for _, c in self._cache.values()) > self.cache_bytes and len(self._cache) > 1:
                self._cache.popitem(last=False)
        return cols

    def _dense_stats(self, user_id: str, n: int) -> _Stats:
        with self._lock:
            st = self._stats.get(user_id)
        if st is None or abs(st.n - n) > 0.05 * st.n or _time.monotonic() - st.at > 3600:
            st = _Stats(n, self.store.db.sample_vectors(user_id, self.sample), _time.monotonic())
            with self._lock:
                self._stats[user_id] = st
        return st

    def speakers(self, user_id: str, version: int) -> list[str]:
        with self._lock:
            cached = self._speakers.get(user_id)
        if cached is None or cached[0] != version:
            cached = (version, self.store.db.speakers(user_id))
            with self._lock:
                self._speakers[user_id] = cached
        return cached[1]

    def known_names(self, user_id: str, candidates: Sequence[str]) -> list[str]:
        """Those of ``candidates`` (names, e.g. from a question) that this user's memory mentions, as
        a speaker (cached per write version) or as a name in a record (one indexed query)."""
        if not candidates:
            return []
        db = self.store.db
        speakers = {s.casefold() for s in self.speakers(user_id, db.stats(user_id)[2])}
        return [n for n in candidates if n.casefold() in speakers or db.with_names(user_id, [n], 1)]

    # ---- search -------------------------------------------------------------------------------------
    def search(self, user_id: str, query: Query, k: int = 10, weights: Weights = DEFAULT_WEIGHTS) -> list[Hit]:
        db = self.store.db
        n, avgdl, version = db.stats(user_id)
        if n == 0 or k <= 0:
            return []
        w = weights
        if is_aggregate_question(query.text):
            w = replace(w, neighbour=0.0, session=0.0)
        # the query's vector is computed while the lexical part reads the database (both release the GIL)
        pending = None if query.vector is not None else _POOL.submit(self.store.embedder.embed_query, query.text)
        full = n <= self.full_scan
        # lexical: per-user BM25 over every record holding a query term
        bm_rids, bm_vals = self._bm25(user_id, tokenize(query.text), n, avgdl, prune=not full)
        bm_mean = float(bm_vals.sum() / n)
        bm_std = math.sqrt(max(float((bm_vals**2).sum() / n) - bm_mean**2, 0.0))

        qvec = query.vector if pending is None else pending.result()
        speakers = self.speakers(user_id, version)
        named = named_speakers(query.text, speakers)
        query_names = [x.lower() for x in names(query.text, frozenset(speakers))]

        if full:
            c = self._all(user_id, version)
        else:
            top = np.argsort(-bm_vals)[: self.lexical_k]
            cand: set[int] = {int(r) for r in bm_rids[top]}
            cand |= set(db.rids_of(user_id, [i for i, _ in self.store.vectors.nearest(user_id, qvec, self.dense_k)]))
            cand |= set(db.pending_rids(user_id))  # written, not yet in the vector index
            for a, b in query.ranges:
                cand |= set(db.in_range(user_id, a, b, self.lexical_k))
            cand |= set(db.with_names(user_id, query_names, self.lexical_k))
            extra = set(db.neighbours(user_id, db.turns_of(user_id, sorted(cand)))) - cand
            c = Columns(db.columns(user_id, sorted(cand | extra)))
        if c.m == 0:
            return []
        m = c.m
        cos = c.vec @ qvec if c.vec.shape[1] else np.zeros(m)
        if full:
            d_mean, d_std = float(cos.mean()), float(cos.std())
        else:
            st = self._dense_stats(user_id, n)
            sc = st.sample @ qvec if len(st.sample) else cos
            d_mean, d_std = float(sc.mean()), float(sc.std())
        at = np.searchsorted(bm_rids, c.rid)
        hit = (
            (at < len(bm_rids)) & (bm_rids[np.minimum(at, max(len(bm_rids) - 1, 0))] == c.rid)
            if len(bm_rids)
            else (np.zeros(m, dtype=bool))
        )
        lexical = np.where(hit, bm_vals[np.minimum(at, max(len(bm_rids) - 1, 0))] if len(bm_rids) else 0.0, 0.0)
        z_bm = _z(lexical, bm_mean, bm_std)
        z_dn = _z(cos, d_mean, d_std)
        parts: dict[str, np.ndarray] = {}
        if w.bm25:
            parts["bm25"] = w.bm25 * z_bm
        if w.dense:
            parts["dense"] = w.dense * z_dn
        base = np.sum(list(parts.values()), axis=0) if parts else np.zeros(m)
        if w.neighbour:
            pos = np.maximum(base, 0)
            nb = np.maximum(np.where(c.prev >= 0, pos[c.prev], 0), np.where(c.next >= 0, pos[c.next], 0))
            parts["neighbour"] = w.neighbour * nb
        if w.speaker and len(named) == 1:
            parts["speaker"] = w.speaker * np.array([sp == named[0] for sp in c.speaker], dtype=np.float64)
        if w.name and query_names:
            named_rids = db.names_of(user_id, [int(r) for r in c.rid])
            qn = set(query_names)
            parts["name"] = w.name * np.array(
                [bool(named_rids.get(int(r), set()) & qn) for r in c.rid], dtype=np.float64
            )
        if w.timex and is_when_question(query.text):
            parts["timex"] = w.timex * c.timex
        windows = date_windows(query.text, query.now)
        if w.date and windows:
            inside = np.zeros(m, dtype=bool)
            for a, b in windows:
                lo = datetime(a.year, a.month, a.day, tzinfo=UTC).timestamp() // 86400
                hi = datetime(b.year, b.month, b.day, tzinfo=UTC).timestamp() // 86400
                inside |= (c.day >= lo) & (c.day <= hi)
            parts["date"] = w.date * inside
        in_range = np.zeros(m, dtype=bool)
        for a, b in query.ranges:
            in_range |= (c.ts >= a) & (c.ts <= b)
        if w.range and query.ranges and in_range.any():
            parts["range"] = w.range * in_range
        tags_of: dict[int, set[str]] = {}
        if (w.tag and query.tags) or query.expired is not None:
            tags_of = db.tags_of(user_id, [int(r) for r in c.rid])
        if w.tag and query.tags:
            qt = set(query.tags)
            parts["tag"] = w.tag * np.array([len(tags_of.get(int(r), set()) & qt) / len(qt) for r in c.rid])
        if w.prior:
            parts["prior"] = w.prior * c.prior
        if query.decay_days:
            age = np.maximum(query.now.timestamp() - c.ts, 0) / 86400
            parts["decay"] = -DECAY_WEIGHT * (1 - np.power(0.5, age / query.decay_days))
        if w.recency and m > 1:
            span = max(float(c.ts.max() - c.ts.min()), 1.0)
            parts["recency"] = w.recency * (c.ts - c.ts.min()) / span
        score = np.sum(list(parts.values()), axis=0) if parts else np.zeros(m)
        if w.session:
            best = np.full(c.sessions, -np.inf)
            np.maximum.at(best, c.session_code, score)
            parts["session"] = w.session * _z(best, float(best.mean()), float(best.std()))[c.session_code]
            score = score + parts["session"]

        # what may be returned: current records (unless the past is asked about), not expired
        ok = np.ones(m, dtype=bool) if query.past else c.current.copy()
        if query.expired is not None:
            ok &= np.array(
                [not query.expired(float(t), tags_of.get(int(r), set())) for t, r in zip(c.ts, c.rid, strict=True)]
            )
        order = [int(i) for i in np.argsort(-score, kind="stable") if ok[i]][:k]
        partner = {i: self._partner(c, i) for i in order}
        wanted = [int(c.rid[i]) for i in order] + [int(c.rid[j]) for j in partner.values() if j >= 0]
        records = db.by_rid(user_id, wanted)
        hits = []
        for i in order:
            rec = records.get(int(c.rid[i]))
            if rec is None:
                continue
            hit = Hit(rec, float(score[i]), {name: float(v[i]) for name, v in parts.items()}, float(cos[i]))
            other = records.get(int(c.rid[partner[i]])) if partner[i] >= 0 else None
            if other is not None:
                who = f"{other.speaker}: " if other.speaker else ""
                hit.context = f"{who}{other.thought}"
            hits.append(hit)
        return self._with_links(user_id, hits, query)

    def _with_links(self, user_id: str, hits: list[Hit], query: Query, most: int = 3) -> list[Hit]:
        """Each hit followed by the records linked to it (the same person, pet, place or thing) that
        did not rank: they become candidates beside it, so information split over sessions is
        answered together."""
        have = {h.record.id for h in hits}
        wanted = list(dict.fromkeys(i for h in hits for i in h.record.links if i not in have))[:most]
        linked = {r.id: r for r in self.store.get_many(user_id, wanted) if r.current or query.past}
        out: list[Hit] = []
        for h in hits:
            out.append(h)
            for i in h.record.links:
                if i in linked:
                    out.append(Hit(linked.pop(i), h.score, {"linked": 1.0}))
        return out

    def _bm25(self, user_id: str, terms: list[str], n: int, avgdl: float, prune: bool) -> tuple[np.ndarray, np.ndarray]:
        """BM25 (Lucene idf) of every record of the user that holds a query term: (sorted row ids,
        scores). ``prune``: in a large memory, terms in more than ``MAX_DF`` of the records are
        left out (they weigh little and would cost reading a large share of the postings)."""
        db = self.store.db
        terms = list(dict.fromkeys(terms))
        if prune and terms:
            df = db.document_frequency(user_id, terms)
            terms = [t for t in terms if 0 < df.get(t, 0) <= max(MAX_DF * n, 1000)]
        rows = db.postings(user_id, terms)
        if not rows:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        term_of = {t: i for i, t in enumerate(dict.fromkeys(r[0] for r in rows))}
        t_idx = np.fromiter((term_of[r[0]] for r in rows), dtype=np.int64, count=len(rows))
        rid = np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows))
        tf = np.fromiter((r[2] for r in rows), dtype=np.float64, count=len(rows))
        dl = np.fromiter((r[3] for r in rows), dtype=np.float64, count=len(rows))
        df_arr = np.bincount(t_idx, minlength=len(term_of)).astype(np.float64)
        idf = np.log(1 + (n - df_arr + 0.5) / (df_arr + 0.5))
        norm = BM25_K1 * (1 - BM25_B + BM25_B * dl / max(avgdl, 1e-9))
        part = idf[t_idx] * tf * (BM25_K1 + 1) / (tf + norm)
        rids, inverse = np.unique(rid, return_inverse=True)
        return rids, np.bincount(inverse, weights=part, minlength=len(rids))

    @staticmethod
    def _partner(c: Columns, i: int) -> int:
        """The other half of an exchange, or -1: the neighbouring turn when another speaker said it
        (the turn before first: a question this record answers)."""
        for j in (int(c.prev[i]), int(c.next[i])):
            if j >= 0 and c.speaker[j] != c.speaker[i]:
                return j
        return -1


def epoch(dt: datetime) -> float:
    return as_aware(dt).timestamp()
