"""Fitting the ranking weights to evidence, and checking the fit leave-one-conversation-out.

A question's ``Scoring`` (its candidates and evidence with every signal on) is computed once; ranking
it under other weights is a handful of array operations, so the weights can be searched directly
for the recall they give. ``fit`` is a coordinate search from a starting recipe: one weight at a
time is scaled by each of ``STEPS`` (or, at 0, set to one of ``FROM_ZERO``) and the best change is
kept while it raises the objective by more than ``MIN_GAIN``. The dense weight stays fixed: it is
the unit the others are measured in (the scores' scale). The development split is English and read
by an English embedder, so the balance of the two similarities fitted here is the one for a language
the embedder reads; in one it does not, the search cuts the dense weight and raises bm25 instead
(``caim.memory.search.config.UNREAD_DENSE``, ``UNREAD_BM25``). ``cross_validate`` fits on all
conversations but one, scores the one left out, and pools: the recall the fitting procedure gives on
a conversation it never saw.

The objective is the mean of recall@5, @10 and @20 (the area under the recall curve at the ranks
the answer sees), less brittle than one rank's count.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields, replace

import numpy as np

import caim.memory.search.ranking as ranking
from caim.memory.search.config import Weights, adjusted
from caim.memory.search.engine import Scoring

#: Every signal read, so that one ``Scoring`` can be ranked under any weights.
ALL_SIGNALS = Weights(
    bm25=1, dense=1, neighbour=1, speaker=1, name=1, timex=1, date=1, range=1, tag=1, prior=1, recency=1, session=1
)
#: The weights the search varies (dense is the unit the others are measured in).
FITTED = tuple(f.name for f in fields(Weights) if f.name != "dense")
#: Factors a non-zero weight is tried at.
STEPS = (0.0, 0.5, 0.75, 1.25, 1.5, 2.0)
#: Values a zero weight is tried at.
FROM_ZERO = (0.25, 0.5, 1.0, 2.0)
#: Smallest rise of the objective that changes a weight (a tenth of a point of recall: smaller
#: gains are the noise of a few questions and do not carry over to unseen conversations).
MIN_GAIN = 1e-3
KS = (5, 10, 20)


@dataclass(frozen=True)
class Case:
    """One question ready to rank: its conversation, category, scoring, rows' turns and evidence.

    Attributes:
        conversation: Which conversation it belongs to (the unit left out).
        category: Its question category.
        scoring: Its candidates and evidence, every signal on (``ALL_SIGNALS``).
        turns: Per candidate row, the turn ids its record holds.
        evidence: The turn ids that answer it.
        aggregate: An aggregate question (neighbour and session terms off, as the search does).
        question: Its text.
        unread: In a language the embedder does not read (dense cut, bm25 raised, as the search does).
    """

    conversation: str
    category: int
    scoring: Scoring
    turns: Sequence[frozenset[str]]
    evidence: frozenset[str]
    aggregate: bool
    question: str = ""
    unread: bool = False

    @staticmethod
    def of(
        conversation: str,
        category: int,
        text: str,
        scoring: Scoring,
        turns: Sequence[frozenset[str]],
        evidence: Iterable[str],
    ) -> Case:
        """A case for question ``text``, its flags as the search read them (``Scoring.aggregate``,
        ``Scoring.unread``)."""
        return Case(
            conversation, category, scoring, turns, frozenset(evidence), scoring.aggregate, text, scoring.unread
        )


def recalls(case: Case, w: Weights) -> tuple[float, ...]:
    """The case's recall at each of ``KS`` when ranked with ``w``."""
    w = adjusted(w, aggregate=case.aggregate, unread=case.unread)
    s = case.scoring
    score, _ = ranking.weigh(s.columns, w, s.evidence)
    found: set[str] = set()
    held = [0]
    for row in ranking.top(score, s.allowed, max(KS)):
        found |= case.turns[row]
        held.append(len(found & case.evidence))
    return tuple(held[min(k, len(held) - 1)] / len(case.evidence) for k in KS)


def table(cases: Sequence[Case], w: Weights) -> np.ndarray:
    """Recall at each of ``KS`` per case (one row per case)."""
    return np.array([recalls(c, w) for c in cases]) if cases else np.zeros((0, len(KS)))


def objective(cases: Sequence[Case], w: Weights) -> float:
    """Mean over the cases of the mean recall at ``KS``."""
    return float(table(cases, w).mean()) if cases else 0.0


def _tries(value: float) -> list[float]:
    vals = {round(value * s, 4) for s in STEPS} if value else set(FROM_ZERO)
    return sorted(vals - {value})


def fit(cases: Sequence[Case], start: Weights, *, rounds: int = 4) -> Weights:
    """The weights a coordinate search from ``start`` finds best for ``cases``.

    Args:
        cases: The questions to fit on.
        start: Where the search starts.
        rounds: Most passes over ``FITTED``.

    Returns:
        The best weights found (``start`` when no change gains ``MIN_GAIN``).
    """
    best, best_score = start, objective(cases, start)
    for _ in range(rounds):
        changed = False
        for name in FITTED:
            for value in _tries(getattr(best, name)):
                w = replace(best, **{name: value})
                score = objective(cases, w)
                if score > best_score + MIN_GAIN:
                    best, best_score, changed = w, score, True
        if not changed:
            break
    return best


@dataclass(frozen=True)
class Fold:
    """One conversation left out: the weights fitted without it and its cases."""

    left_out: str
    weights: Weights
    cases: Sequence[Case]


def cross_validate(
    cases: Sequence[Case], start: Weights, *, progress: Callable[[int, int], None] | None = None
) -> list[Fold]:
    """Leave one conversation out: for each, the weights fitted on the others.

    Args:
        cases: Every question, each tagged with its conversation.
        start: Where every fit starts.
        progress: Called with (folds done, folds).

    Returns:
        One fold per conversation, in order of first appearance.
    """
    convs = list(dict.fromkeys(c.conversation for c in cases))
    folds = []
    for i, conv in enumerate(convs):
        train = [c for c in cases if c.conversation != conv]
        held = [c for c in cases if c.conversation == conv]
        folds.append(Fold(conv, fit(train, start), held))
        if progress:
            progress(i + 1, len(convs))
    return folds


def pooled(folds: Sequence[Fold]) -> list[tuple[Case, tuple[float, ...]]]:
    """Every held-out case with its recalls under the weights fitted without its conversation."""
    return [(c, recalls(c, f.weights)) for f in folds for c in f.cases]
