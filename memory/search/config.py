"""The ranking configuration: how much each signal counts, and the named recipes.

``Weights`` is frozen: a recipe is a value, shared freely. A weight of 0 turns its signal off (it
is then not computed and does not appear among a hit's scores). The age decay is not a weight: it
applies when the query sets ``decay_days`` and costs at most ``DECAY_WEIGHT``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from caim.memory.text import detect, is_aggregate_question

#: Most a record loses to age when ``decay_days`` is set (reached asymptotically; half at the half-life).
DECAY_WEIGHT = 2.0
#: The share of the dense weight kept for a question in a language the embedder does not read: its
#: similarities there follow shared word pieces more than meaning. Chosen leave one conversation out
#: on LoCoMo's development conversations with every word replaced by a made-up one
#: (``benchmarks/unread_language.py``, docs/languages.md).
UNREAD_DENSE = 0.25
#: The factor of the bm25 weight there, chosen with ``UNREAD_DENSE``: the lexical index carries it.
UNREAD_BM25 = 4 / 3


@dataclass(frozen=True)
class Weights:
    """How much each signal counts (see ``caim.memory.search``).

    The defaults are fitted: ``caim eval retrieval --cv`` searches them from ``START_WEIGHTS`` on
    the LoCoMo development split (``caim.eval.fit``) and reports the recall the same procedure gives
    on each conversation it did not fit on (``docs/retrieval.md``). ``dense`` is not fitted
    (``caim.eval.fit.FITTED``): it is the unit the others are measured in. The split is English and
    read by an English embedder; for a question in a language the embedder does not read, the
    search keeps ``UNREAD_DENSE`` of the dense weight and raises bm25 by ``UNREAD_BM25``
    (``for_question``).
    """

    bm25: float = 0.75
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
#: Where the fit of the weights starts: a recipe set by hand (similarities, the cues a question
#: names, the prior and the session), which the fit changes one weight at a time. Every value is
#: written out: a start that followed the defaults (fitted on every conversation) would hand each
#: leave-one-out fold what was learnt from the conversation it leaves out.
# fmt: off
START_WEIGHTS = Weights(
    bm25=1.0, dense=1.5, neighbour=0.5, speaker=4.0, name=0.0, timex=1.0, date=1.0, range=3.0, tag=0.0,
    prior=0.75, recency=0.0, session=1.0,
)
# fmt: on
#: Plain retrievers, for comparison: nearest by meaning only.
DENSE_ONLY = Weights(
    bm25=0, dense=1, neighbour=0, speaker=0, name=0, timex=0, date=0, range=0, tag=0, prior=0, recency=0, session=0
)
#: Plain retrievers, for comparison: BM25 only.
LEXICAL_ONLY = replace(DENSE_ONLY, bm25=1, dense=0)


def for_question(weights: Weights, text: str, languages: frozenset[str] | None = None) -> Weights:
    """The weights to rank a question with (``adjusted`` for what the question is).

    Args:
        weights: The recipe asked for.
        text: The question.
        languages: The languages the embedder reads (``Embedder.languages``; ``None``: any).

    Returns:
        ``weights``, or a copy adjusted for an aggregate question or an unread language.

    >>> for_question(DEFAULT_WEIGHTS, "How many books has Mel read?").session
    0.0
    >>> for_question(DEFAULT_WEIGHTS, "Where did Mel go?", frozenset({"en"})) is DEFAULT_WEIGHTS
    True
    >>> german = for_question(DEFAULT_WEIGHTS, "Wohin ist Mel letzte Woche gefahren?", frozenset({"en"}))
    >>> german.dense, german.bm25
    (0.375, 1.0)
    """
    aggregate, unread = question_flags(text, languages)
    return adjusted(weights, aggregate=aggregate, unread=unread)


def question_flags(text: str, languages: frozenset[str] | None = None) -> tuple[bool, bool]:
    """What ``adjusted`` reads of a question: (it gathers several turns, the embedder reading
    ``languages`` does not read it)."""
    return is_aggregate_question(text), not reads(languages, text)


def reads(languages: frozenset[str] | None, text: str) -> bool:
    """Does an embedder reading ``languages`` (``None``: any) read the language ``text`` is in?"""
    return languages is None or detect(text).code in languages


def adjusted(weights: Weights, *, aggregate: bool, unread: bool) -> Weights:
    """``weights`` for an aggregate question or one in a language the embedder does not read.

    Aggregate questions ("what books has X read", "how many") collect mentions scattered over many
    sessions, so the neighbour and session terms, which favour one place in the conversation, are
    off. In a language the embedder does not read, the dense weight keeps ``UNREAD_DENSE`` of itself
    and bm25 counts ``UNREAD_BM25`` times as much.
    """
    if aggregate:
        weights = replace(weights, neighbour=0.0, session=0.0)
    if unread:
        weights = replace(weights, bm25=weights.bm25 * UNREAD_BM25, dense=weights.dense * UNREAD_DENSE)
    return weights
