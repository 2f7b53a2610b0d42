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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

import numpy as np

from caim.memory.db import Features
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
DENSE_ONLY = Weights(bm25=0, dense=1, neighbour=0, speaker=0, name=0, timex=0, date=0, range=0, tag=0, prior=0,
                     recency=0, session=0)
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
    expired: Callable[[Features, set[str]], bool] | None = None


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
    mean: np.ndarray
    sample: np.ndarray
    at: float


def _z(x: np.ndarray, mean: float, std: float) -> np.ndarray:
    return (x - mean) / (std if std > 1e-9 else 1.0)


class Retriever:
    """Ranked retrieval over a ``MemoryStore``.

    ``full_scan``: users with at most this many records are scored over all their records;
    ``lexical_k`` / ``dense_k``: candidates taken from each index past that size."""

    def __init__(self, store: MemoryStore, *, full_scan: int = 5000, lexical_k: int = 300, dense_k: int = 100,
                 sample: int = 256):
        self.store = store
        self.full_scan = full_scan
        self.lexical_k = lexical_k
        self.dense_k = dense_k
        self.sample = sample
        self._stats: dict[str, _Stats] = {}
        self._speakers: dict[str, tuple[int, list[str]]] = {}
        self._lock = threading.Lock()

    # ---- statistics caches -------------------------------------------------------------------------
    def _dense_stats(self, user_id: str, n: int) -> _Stats:
        with self._lock:
            st = self._stats.get(user_id)
        if st is None or abs(st.n - n) > max(0.05 * st.n, 0) or _time.monotonic() - st.at > 3600:
            sample = self.store.db.sample_vectors(user_id, self.sample)
            mean = sample.mean(axis=0) if len(sample) else np.zeros(1, dtype=np.float32)
            st = _Stats(n, mean, sample, _time.monotonic())
            with self._lock:
                self._stats[user_id] = st
        return st

    def speakers(self, user_id: str) -> list[str]:
        n = self.store.count(user_id)
        with self._lock:
            cached = self._speakers.get(user_id)
        if cached is None or cached[0] != n:
            cached = (n, self.store.db.speakers(user_id))
            with self._lock:
                self._speakers[user_id] = cached
        return cached[1]

    # ---- search -------------------------------------------------------------------------------------
    def search(self, user_id: str, query: Query, k: int = 10, weights: Weights = DEFAULT_WEIGHTS) -> list[Hit]:
        db = self.store.db
        n, avgdl = db.stats(user_id)
        if n == 0 or k <= 0:
            return []
        w = weights
        if is_aggregate_question(query.text):
            w = replace(w, neighbour=0.0, session=0.0)
        qvec = query.vector if query.vector is not None else self.store.embed([query.text])[0]

        # lexical: exact per-user BM25 over every record holding a query term
        bm25 = self._bm25(user_id, tokenize(query.text), n, avgdl)
        bm_vals = np.fromiter(bm25.values(), dtype=np.float64, count=len(bm25))
        bm_mean = float(bm_vals.sum() / n)
        bm_std = math.sqrt(max(float((bm_vals**2).sum() / n) - bm_mean**2, 0.0))

        speakers = self.speakers(user_id)
        named = named_speakers(query.text, speakers)
        query_names = [x.lower() for x in names(query.text, frozenset(speakers))]

        full = n <= self.full_scan
        if full:
            feats = db.features(user_id)
        else:
            cand: set[int] = set(sorted(bm25, key=bm25.__getitem__, reverse=True)[: self.lexical_k])
            near = self.store.vectors.nearest(user_id, qvec, self.dense_k)
            near_feats = db.features(user_id, ids=[i for i, _ in near])
            cand |= {f.rid for f in near_feats}
            cand |= set(db.pending_rids(user_id))  # written, not yet in the vector index
            for a, b in query.ranges:
                cand |= set(db.in_range(user_id, a, b, self.lexical_k))
            cand |= set(db.with_names(user_id, query_names, self.lexical_k))
            base_feats = db.features(user_id, rids=sorted(cand))
            extra = set(db.neighbours(user_id, {(f.session_id, f.turn) for f in base_feats if f.turn is not None})) - cand
            feats = base_feats + db.features(user_id, rids=sorted(extra))
        if not feats:
            return []

        m = len(feats)
        rids = np.array([f.rid for f in feats])
        index = {int(r): i for i, r in enumerate(rids)}
        vecs = np.vstack([f.vec if f.vec is not None else np.zeros_like(qvec) for f in feats])
        cos = vecs @ qvec
        if full:
            d_mean, d_std = float(cos.mean()), float(cos.std())
        else:
            st = self._dense_stats(user_id, n)
            sc = st.sample @ qvec if len(st.sample) else cos
            d_mean, d_std = float(sc.mean()), float(sc.std())
        z_bm = _z(np.array([bm25.get(int(r), 0.0) for r in rids]), bm_mean, bm_std)
        z_dn = _z(cos, d_mean, d_std)
        base = w.bm25 * z_bm + w.dense * z_dn
        parts: dict[str, np.ndarray] = {}
        if w.bm25:
            parts["bm25"] = w.bm25 * z_bm
        if w.dense:
            parts["dense"] = w.dense * z_dn

        # neighbours: the turn before and after in the same session
        where = {(f.session_id, f.turn): i for i, f in enumerate(feats) if f.turn is not None and f.session_id}
        prev = np.array([where.get((f.session_id, (f.turn or 0) - 1), -1) if f.turn is not None else -1 for f in feats])
        nxt = np.array([where.get((f.session_id, (f.turn or 0) + 1), -1) if f.turn is not None else -1 for f in feats])
        if w.neighbour:
            pos = np.maximum(base, 0)
            nb = np.maximum(np.where(prev >= 0, pos[prev], 0), np.where(nxt >= 0, pos[nxt], 0))
            parts["neighbour"] = w.neighbour * nb

        if w.speaker and len(named) == 1:
            parts["speaker"] = w.speaker * np.array([f.speaker == named[0] for f in feats], dtype=np.float64)
        if w.name and query_names:
            named_rids = db.names_of(user_id, [int(r) for r in rids])
            qn = set(query_names)
            parts["name"] = w.name * np.array([bool(named_rids.get(int(r), set()) & qn) for r in rids], dtype=np.float64)
        if w.timex and is_when_question(query.text):
            parts["timex"] = w.timex * np.array([f.timex for f in feats], dtype=np.float64)
        ts = np.array([f.event_ts for f in feats])
        windows = date_windows(query.text, query.now)
        if w.date and windows:
            day = np.array([datetime.fromtimestamp(t, tz=UTC).replace(tzinfo=None) for t in ts])
            inside = np.zeros(m, dtype=bool)
            for a, b in windows:
                inside |= np.array([a.date() <= d.date() <= b.date() for d in day])
            parts["date"] = w.date * inside
        in_range = np.zeros(m, dtype=bool)
        for a, b in query.ranges:
            in_range |= (ts >= a) & (ts <= b)
        if w.range and query.ranges and in_range.any():
            parts["range"] = w.range * in_range
        tags_of: dict[int, set[str]] = {}
        if w.tag and query.tags or query.expired is not None:
            tags_of = db.tags_of(user_id, [int(r) for r in rids])
        if w.tag and query.tags:
            qt = set(query.tags)
            parts["tag"] = w.tag * np.array([len(tags_of.get(int(r), set()) & qt) / len(qt) for r in rids])
        if w.prior:
            parts["prior"] = w.prior * np.array([f.prior for f in feats])
        if query.decay_days:
            age = np.maximum(query.now.timestamp() - ts, 0) / 86400
            parts["decay"] = -DECAY_WEIGHT * (1 - np.power(0.5, age / query.decay_days))
        if w.recency and m > 1:
            span = max(ts.max() - ts.min(), 1.0)
            parts["recency"] = w.recency * (ts - ts.min()) / span

        score = np.sum(list(parts.values()), axis=0) if parts else np.zeros(m)
        if w.session:
            sessions: dict[str, float] = {}
            for f, s in zip(feats, score, strict=True):
                key = f.session_id or f"#{f.rid}"
                sessions[key] = max(sessions.get(key, -np.inf), float(s))
            best = np.array(list(sessions.values()))
            zs = _z(best, float(best.mean()), float(best.std()))
            by_session = dict(zip(sessions, zs, strict=True))
            parts["session"] = w.session * np.array([by_session[f.session_id or f"#{f.rid}"] for f in feats])
            score = score + parts["session"]

        # what may be returned: current records (unless the past is asked about), not expired
        ok = np.ones(m, dtype=bool)
        if not query.past:
            ok &= np.array([f.valid_until_ts is None for f in feats])
        if query.expired is not None:
            ok &= np.array([not query.expired(f, tags_of.get(f.rid, set())) for f in feats])
        order = [i for i in np.argsort(-score, kind="stable") if ok[i]][:k]
        partner = {i: self._partner(feats, i, int(prev[i]), int(nxt[i])) for i in order}
        wanted = [int(rids[i]) for i in order] + [int(rids[j]) for j in partner.values() if j >= 0]
        records = db.by_rid(user_id, wanted)
        hits = []
        for i in order:
            rec = records.get(int(rids[i]))
            if rec is None:
                continue
            hit = Hit(rec, float(score[i]), {name: float(v[i]) for name, v in parts.items()}, float(cos[i]))
            other = records.get(int(rids[partner[i]])) if partner[i] >= 0 else None
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

    def _bm25(self, user_id: str, terms: list[str], n: int, avgdl: float) -> dict[int, float]:
        """BM25 (Lucene idf) of every record of the user that holds a query term."""
        rows = self.store.db.postings(user_id, terms)
        df: dict[str, int] = {}
        for term, *_ in rows:
            df[term] = df.get(term, 0) + 1
        scores: dict[int, float] = {}
        for term, rid, tf, dl in rows:
            idf = math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5))
            norm = BM25_K1 * (1 - BM25_B + BM25_B * dl / max(avgdl, 1e-9))
            scores[rid] = scores.get(rid, 0.0) + idf * tf * (BM25_K1 + 1) / (tf + norm)
        return scores

    @staticmethod
    def _partner(feats: list[Features], i: int, prev: int, nxt: int) -> int:
        """The other half of an exchange, or -1: the turn before when another speaker said it (a
        question this record answers), or the turn after when this record is itself a question."""
        me = feats[i]
        if prev >= 0 and feats[prev].speaker != me.speaker:
            return prev
        if nxt >= 0 and feats[nxt].speaker != me.speaker and me.kind == "raw":
            return nxt
        return -1


def epoch(dt: datetime) -> float:
    return as_aware(dt).timestamp()
