"""The lexical index, behind one interface: BM25 over the record database's postings.

The postings (term, record, tf, document length) and the per-term document frequencies are stored
by ``RecordDB`` (tables ``postings`` and ``term_df``, written in the same transaction as the
record); this module is the only reader that scores them. ``LexicalIndex.scores`` gives BM25 (Lucene
idf, ``BM25_K1`` / ``BM25_B``) of every record of a user that holds a query term, with the
statistics computed per user, so scores are exact for each user's own collection.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, cast

import numpy as np

from caim.memory.search.columns import Floats, Ints

BM25_K1 = 1.2
BM25_B = 0.3
#: In a memory too large for a full scan, query terms in more than this share of records are not read.
MAX_DF = 0.05
#: ... unless they are in fewer records than this.
MIN_PRUNED_DF = 1000


class Postings(Protocol):
    """Where the postings are stored (``RecordDB``)."""

    def postings(self, user_id: str, terms: Iterable[str]) -> list[tuple[str, int, int, int]]:
        """``(term, row id, tf, document length)`` of every posting of ``terms`` in the user's records."""

    def document_frequency(self, user_id: str, terms: Iterable[str]) -> dict[str, int]:
        """In how many of the user's records each of ``terms`` occurs (terms in none left out)."""


def bm25(rows: Sequence[tuple[str, int, int, int]], n: int, avgdl: float) -> tuple[Ints, Floats]:
    """BM25 of each record in the postings rows, summed over their terms.

    Args:
        rows: ``(term, row id, tf, document length)``, all postings of the query's terms.
        n: Records in the collection.
        avgdl: Their average document length.

    Returns:
        ``(row ids ascending, scores)``.

    >>> rids, s = bm25([("cat", 1, 1, 3), ("cat", 2, 2, 3), ("dog", 2, 1, 3)], n=4, avgdl=3.0)
    >>> rids.tolist(), [round(float(x), 3) for x in s]
    ([1, 2], [0.693, 2.157])
    """
    if not rows:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    term_of = {t: i for i, t in enumerate(dict.fromkeys(r[0] for r in rows))}
    t_idx = np.fromiter((term_of[r[0]] for r in rows), dtype=np.int64, count=len(rows))
    rid = np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows))
    tf = np.fromiter((r[2] for r in rows), dtype=np.float64, count=len(rows))
    dl = np.fromiter((r[3] for r in rows), dtype=np.float64, count=len(rows))
    df = np.bincount(t_idx, minlength=len(term_of)).astype(np.float64)
    idf = np.log(1 + (n - df + 0.5) / (df + 0.5))
    norm = BM25_K1 * (1 - BM25_B + BM25_B * dl / max(avgdl, 1e-9))
    part = idf[t_idx] * tf * (BM25_K1 + 1) / (tf + norm)
    rids, inverse = np.unique(rid, return_inverse=True)
    # with weights, bincount sums them as float64 (numpy's stubs say integers)
    return rids, cast(Floats, np.bincount(inverse, weights=part, minlength=len(rids)))


@dataclass(frozen=True)
class LexicalScores:
    """BM25 of the records that hold a query term, in a collection of ``n`` records (the others score 0).

    Attributes:
        rids: Row ids, ascending.
        values: Their scores.
        n: Records in the whole collection (the mean and spread count the zeros).
    """

    rids: Ints
    values: Floats
    n: int

    @property
    def mean(self) -> float:
        """Mean score over all ``n`` records."""
        return float(self.values.sum() / self.n)

    @property
    def std(self) -> float:
        """Standard deviation of the score over all ``n`` records."""
        mean = self.mean
        return math.sqrt(max(float((self.values**2).sum() / self.n) - mean**2, 0.0))

    def top(self, k: int) -> Ints:
        """Row ids of the ``k`` best scores."""
        return self.rids[np.argsort(-self.values)[:k]]

    def at(self, rids: Ints) -> Floats:
        """The scores of the given row ids (0 for those without a query term).

        >>> LexicalScores(np.array([2, 5]), np.array([1.0, 3.0]), 10).at(np.array([1, 2, 5, 9])).tolist()
        [0.0, 1.0, 3.0, 0.0]
        """
        if not len(self.rids):
            return np.zeros(len(rids))
        last = len(self.rids) - 1
        at = np.searchsorted(self.rids, rids)
        held = (at < len(self.rids)) & (self.rids[np.minimum(at, last)] == rids)
        return np.where(held, self.values[np.minimum(at, last)], 0.0)


class LexicalIndex:
    """BM25 scoring over stored postings."""

    def __init__(self, postings: Postings):
        self.postings = postings

    def scores(self, user_id: str, terms: Sequence[str], n: int, avgdl: float, *, prune: bool) -> LexicalScores:
        """BM25 of every record of the user that holds one of the terms.

        Args:
            user_id: Whose records.
            terms: Query terms (``caim.memory.text.tokenize``); repeats count once.
            n: The user's records.
            avgdl: Their average document length.
            prune: In a large memory, leave out terms in more than ``MAX_DF`` of the records (they
                weigh little and would cost reading a large share of the postings).

        Returns:
            The scores.
        """
        wanted = list(dict.fromkeys(terms))
        if prune and wanted:
            df = self.postings.document_frequency(user_id, wanted)
            wanted = [t for t in wanted if 0 < df.get(t, 0) <= max(MAX_DF * n, MIN_PRUNED_DF)]
        rids, values = bm25(self.postings.postings(user_id, wanted), n, avgdl)
        return LexicalScores(rids, values, n)
