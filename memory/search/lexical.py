"""The lexical index, behind one interface: BM25 over the record database's postings.

The postings (term, record, tf, document length) and the per-term document frequencies are stored
by ``RecordDB`` (tables ``postings`` and ``term_df``, written in the same transaction as the
record); this module is the only reader that scores them. ``LexicalIndex.scores`` gives BM25 (Lucene
idf, ``BM25_K1`` / ``BM25_B``) of every record of a user that holds a query term, with the
statistics computed per user, so scores are exact for each user's own collection.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, cast

import numpy as np

from caim.memory.search.columns import Floats, Ints

BM25_K1 = 1.2
BM25_B = 0.3
#: In a memory too large for a full scan, query terms in more than this share of records are not read ...
MAX_DF = 0.05
#: ... unless they are in fewer records than this.
MIN_PRUNED_DF = 1000
#: There, a query reads at most this many postings: its rarest terms' in full, then the most recently
#: written of the next term's up to this budget (terms after it are not read), so what a search reads
#: stays bounded however large the memory grows.
MAX_POSTINGS = 5000

#: The postings of one term: ``(row id, tf, document length)`` per record holding it.
TermPostings = Sequence[tuple[int, int, int]]


class Postings(Protocol):
    """Where the postings are stored (``RecordDB``)."""

    def postings(self, user_id: str, term: str, newest: int | None = None) -> list[tuple[int, int, int]]:
        """``(row id, tf, document length)`` of the user's records holding ``term`` (with ``newest``:
        of that many most recently written of them)."""

    def document_frequency(self, user_id: str, terms: Iterable[str]) -> dict[str, int]:
        """In how many of the user's records each of ``terms`` occurs (terms in none left out)."""


def bm25(
    postings: Mapping[str, TermPostings],
    n: int,
    avgdl: float,
    df: Mapping[str, int] | None = None,
    *,
    k1: float = BM25_K1,
    b: float = BM25_B,
) -> tuple[Ints, Floats]:
    """BM25 of each record in the postings, summed over their terms.

    Args:
        postings: Per query term, its postings: all of them, or some when ``df`` gives the term's
            document frequency.
        n: Records in the collection.
        avgdl: Their average document length.
        df: Records holding each term (default: its postings given, all of them).
        k1: Term-frequency saturation (``BM25_K1``).
        b: Document-length normalisation (``BM25_B``).

    Returns:
        ``(row ids ascending, scores)``.

    >>> rids, s = bm25({"cat": [(1, 1, 3), (2, 2, 3)], "dog": [(2, 1, 3)]}, n=4, avgdl=3.0)
    >>> rids.tolist(), [round(float(x), 3) for x in s]
    ([1, 2], [0.693, 2.157])
    >>> bm25({"cat": [(2, 2, 3)], "dog": [(2, 1, 3)]}, n=4, avgdl=3.0, df={"cat": 2, "dog": 1})[1].round(3).tolist()
    [2.157]
    """
    # terms in sorted order: each record's parts are summed in the same order whatever the query's
    lists = {t: np.asarray(postings[t], dtype=np.float64).reshape(-1, 3) for t in sorted(postings) if postings[t]}
    if not lists:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    dfs = np.array([len(a) if df is None else df[t] for t, a in lists.items()], dtype=np.float64)
    idf = np.log(1 + (n - dfs + 0.5) / (dfs + 0.5))
    stacked = np.concatenate(list(lists.values()))
    t_idx = np.repeat(np.arange(len(lists)), [len(a) for a in lists.values()])
    tf, dl = stacked[:, 1], stacked[:, 2]
    norm = k1 * (1 - b + b * dl / max(avgdl, 1e-9))
    part = idf[t_idx] * tf * (k1 + 1) / (tf + norm)
    rids, inverse = np.unique(stacked[:, 0].astype(np.int64), return_inverse=True)
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
                weigh little and would cost reading a large share of the postings) and read at most
                ``MAX_POSTINGS`` postings (``bounded``).

        Returns:
            The scores.
        """
        wanted = list(dict.fromkeys(terms))
        if not prune or not wanted:
            return LexicalScores(*bm25({t: self.postings.postings(user_id, t) for t in wanted}, n, avgdl), n)
        df = self.postings.document_frequency(user_id, wanted)
        kept = [t for t in wanted if 0 < df.get(t, 0) <= max(MAX_DF * n, MIN_PRUNED_DF)]
        return LexicalScores(*bm25(self.bounded(user_id, kept, df), n, avgdl, df), n)

    def bounded(self, user_id: str, terms: Sequence[str], df: Mapping[str, int]) -> dict[str, TermPostings]:
        """At most ``MAX_POSTINGS`` postings of ``terms``: the rarest terms' in full while they fit,
        then the most recently written of the next term's up to the budget.

        Args:
            user_id: Whose records.
            terms: Query terms, each in at least one record.
            df: Records holding each term.

        Returns:
            The postings read, per term.
        """
        out: dict[str, TermPostings] = {}
        left = MAX_POSTINGS
        for t in sorted(terms, key=lambda t: (df[t], t)):
            if left <= 0:
                break
            out[t] = self.postings.postings(user_id, t, None if df[t] <= left else left)
            left -= len(out[t])
        return out
