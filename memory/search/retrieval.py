"""Ranked retrieval's stateful entry point: ``Retriever``, over a ``MemoryStore``.

The ranking itself (signals, weights, candidates, the weighted sum, the filter) is the package
``caim.memory.search``, whose docstring states the formula; ``Retriever`` holds what is worth
keeping between searches: each user's records as columns (per write version, within a memory
budget), a sample of each user's vectors, and the known speakers. The names other modules import
from here (``Query``, ``Hit``, ``Weights`` and the recipes, ``Columns``) are the package's.

``own_value`` works after the ranking: a question asking the user's own single-value fact
("Where do I live now?") gets the user's current statement of it first.
"""

from __future__ import annotations

import threading
import time as _time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from caim.memory.maintenance import record_slots
from caim.memory.records import as_aware
from caim.memory.search import (
    DECAY_WEIGHT,
    DEFAULT_WEIGHTS,
    DENSE_ONLY,
    LEXICAL_ONLY,
    Columns,
    Hit,
    LexicalIndex,
    Query,
    UserSearch,
    Weights,
    search,
)
from caim.memory.search.lexical import BM25_B, BM25_K1, MAX_DF
from caim.memory.storage.cache import PerUserCache
from caim.memory.storage.store import MemoryStore
from caim.memory.text.slots import asked

__all__ = [
    "BM25_B",
    "BM25_K1",
    "DECAY_WEIGHT",
    "DEFAULT_WEIGHTS",
    "DENSE_ONLY",
    "LEXICAL_ONLY",
    "MAX_DF",
    "Columns",
    "Hit",
    "Query",
    "Retriever",
    "Weights",
    "epoch",
    "own_value",
]

#: A user's vector sample is drawn again when their record count moved by more than this share …
SAMPLE_DRIFT = 0.05
#: … or when it is older than this (seconds).
SAMPLE_TTL = 3600
#: Users whose known speakers are kept (the ones searched last).
SPEAKER_USERS = 4096
#: Users whose vector sample is kept (the ones searched last; each holds up to ``sample`` vectors).
SAMPLE_USERS = 64


@dataclass
class _Sample:
    n: int
    language: str
    at: float
    vectors: np.ndarray | None = None  # drawn at the first ``dense_sample`` (a large memory's search)


class Retriever:
    """Ranked retrieval over a ``MemoryStore`` (see ``caim.memory.search``).

    ``full_scan``: users with at most this many records are scored over all their records (kept as
    arrays in memory, up to ``cache_mb``, reloaded when another write changes the user's records);
    past that size the candidates come from the indexes (``lexical_k`` / ``dense_k`` each), and the
    cosine's mean and spread from ``sample`` of the user's vectors."""

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
        self.lexical = LexicalIndex(store)
        self.full_scan = full_scan
        self.lexical_k = lexical_k
        self.dense_k = dense_k
        self.sample = sample
        self.cache_bytes = int(cache_mb * 1e6)
        self._columns = PerUserCache[Columns](self.cache_bytes, size=lambda c: c.nbytes)
        self._samples: OrderedDict[str, _Sample] = OrderedDict()
        self._speakers = PerUserCache[list[str]](SPEAKER_USERS)
        self._lock = threading.Lock()

    def search(self, user_id: str, query: Query, k: int = 10, weights: Weights = DEFAULT_WEIGHTS) -> list[Hit]:
        """The ``k`` best records of the user for the query, each followed by its linked records.

        Args:
            user_id: Whose memory.
            query: What to look for.
            k: How many ranked hits.
            weights: The ranking recipe.

        Returns:
            Hits, best first (``caim.memory.search.search``).
        """
        return search(self.prepare(user_id), query, k, weights)

    def prepare(self, user_id: str) -> UserSearch:
        """The user's search, from what is kept between searches: their counts, usual language and
        known speakers, and all their records as columns (at most ``full_scan`` records) or a sample
        of their vectors (more). The engine reads nothing else of this retriever.

        Args:
            user_id: Whose memory.

        Returns:
            What ``caim.memory.search.search`` reads for the user.
        """
        n, avgdl, version = self.store.search_stats(user_id)
        full = n <= self.full_scan
        return UserSearch(
            store=self.store,
            lexical=self.lexical,
            user_id=user_id,
            n=n,
            avgdl=avgdl,
            version=version,
            language=self.usual_language(user_id, n),
            speakers=tuple(self.speakers(user_id, version)) if n else (),
            columns=self.columns(user_id, version) if n and full else None,
            sample=self.dense_sample(user_id, n) if n and not full else None,
            lexical_k=self.lexical_k,
            dense_k=self.dense_k,
            full_scan=self.full_scan,
        )

    # ---- caches -------------------------------------------------------------------------------------
    def columns(self, user_id: str, version: int) -> Columns:
        """All the user's records as columns, cached while the user's write version is ``version``.

        Args:
            user_id: Whose records.
            version: The user's write version (``RecordDB.stats``).

        Returns:
            The columns (shared: do not modify).
        """
        return self._columns.get(user_id, version, lambda: Columns(self.store.columns(user_id)))

    def dense_sample(self, user_id: str, n: int) -> np.ndarray:
        """A sample of the user's vectors (``_sample``).

        Args:
            user_id: Whose vectors.
            n: The user's record count now.

        Returns:
            Up to ``sample`` vectors, one per row.
        """
        st = self._sample(user_id, n)
        if st.vectors is None:
            st.vectors = self.store.sample_vectors(user_id, self.sample)
        return st.vectors

    def usual_language(self, user_id: str, n: int | None = None) -> str:
        """The language the user's records are usually in (``caim.memory.text.lang.usual`` of a sample
        of their texts, ``_sample``): the search reads a question whose words leave its language
        open in this one (``expecting``).

        Args:
            user_id: Whose records.
            n: The user's record count now (``None``: the sample kept for the user while it is younger
                than ``SAMPLE_TTL``, whatever the count; else the count is read).

        Returns:
            A language code (``detect``'s).
        """
        if n is None:
            with self._lock:
                st = self._samples.get(user_id)
            if st is not None and _time.monotonic() - st.at <= SAMPLE_TTL:
                return st.language
            n = self.store.search_stats(user_id)[0]
        return self._sample(user_id, n).language

    def _sample(self, user_id: str, n: int) -> _Sample:
        """The user's sample (usual language, then vectors when asked for), drawn again when their count
        drifts or the sample ages; the samples of the ``SAMPLE_USERS`` users searched last are kept."""
        with self._lock:
            st = self._samples.get(user_id)
        if st is None or abs(st.n - n) > SAMPLE_DRIFT * st.n or _time.monotonic() - st.at > SAMPLE_TTL:
            st = _Sample(n, self.store.usual_language(user_id, self.sample), _time.monotonic())
        with self._lock:
            self._samples[user_id] = st
            self._samples.move_to_end(user_id)
            while len(self._samples) > SAMPLE_USERS:
                self._samples.popitem(last=False)
        return st

    def speakers(self, user_id: str, version: int) -> list[str]:
        """The user's known speakers, cached while the user's write version is ``version``.

        Args:
            user_id: Whose memory.
            version: The user's write version.

        Returns:
            Speaker names.
        """
        return self._speakers.get(user_id, version, lambda: self.store.speakers(user_id))

    def known_names(self, user_id: str, candidates: Sequence[str]) -> list[str]:
        """Those of ``candidates`` (names, e.g. from a question) that this user's memory mentions, as
        a speaker (cached per write version) or as a name in a record (one indexed query)."""
        if not candidates:
            return []
        store = self.store
        speakers = {s.casefold() for s in self.speakers(user_id, store.search_stats(user_id)[2])}
        return [n for n in candidates if n.casefold() in speakers or store.with_names(user_id, [n], 1)]


def epoch(dt: datetime) -> float:
    """Epoch seconds of a datetime (a naive one is taken as UTC, like ``as_aware``)."""
    return as_aware(dt).timestamp()


def own_value(question: str, hits: Sequence[Hit], single: Callable[[str], bool]) -> Hit | None:
    """The best-ranked of ``hits`` that is the user's current statement of the single-value attribute
    ``question`` asks (``caim.memory.text.slots.asked``; one that ``single`` marks single-valued),
    or ``None``. The search puts it first.

    A past fact ("I used to live in Toronto") or another person's ("my wife works for Umbrella")
    states no value of the user's (``record_slots``), so it never goes first for the ranking alone.
    """
    attribute = asked(question)
    if attribute is None or not single(attribute):
        return None
    for hit in hits:
        rec = hit.record
        if rec.current and rec.speaker in ("", "user") and attribute in record_slots(rec):
            return hit
    return None
