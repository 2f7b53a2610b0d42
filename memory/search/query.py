"""What a search is asked (``Query``) and what it answers (``Hit``).

A ``Query`` is plain data: the text, the time it is asked at, what the memory controller resolved
(tags, time ranges, whether the past is asked about), and the text's one reading (``QueryAnalysis``).
A ``Hit`` carries its total score and the part each signal contributed, so a trace shows why it
ranked where it did.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from caim.memory.records import MemoryBrief, MemoryRecord
from caim.memory.search.analysis import QueryAnalysis
from caim.memory.search.relevance import RELEVANCE_FLOOR


@dataclass
class Query:
    """What to look for.

    Attributes:
        text: The user's message.
        now: When it is asked (date windows and age decay are relative to it).
        tags: Ontology tags the controller chose (the tag signal).
        ranges: (start, end) epoch seconds the controller resolved (the range signal).
        past: The question asks about how things were: superseded records take part.
        vector: The text's embedding, if already computed (else the search embeds the text). The
            dense signal embeds the text without the known speakers it names: for such a text the
            search embeds that and leaves ``vector`` unused.
        decay_days: Half-life of the age decay; ``None``: no decay.
        expired: ``(event time, tags) -> bool``: a record whose category has expired is left out.
        min_relevance: The least relevance a returned record has (``caim.memory.search.relevance``).
        analysis: The one reading of ``text`` (``caim.memory.search.analysis``), made by the caller
            once per query (``None``: the search makes it, in the user's usual language).
    """

    text: str
    now: datetime
    tags: Sequence[str] = ()
    ranges: Sequence[tuple[float, float]] = ()
    past: bool = False
    vector: np.ndarray | None = None
    decay_days: float | None = None
    expired: Callable[[float, set[str]], bool] | None = None
    min_relevance: float = RELEVANCE_FLOOR
    analysis: QueryAnalysis | None = None


@dataclass
class Hit:
    """A ranked record: its total score, the part each signal contributed, its cosine similarity to
    the query, the turn before it when another speaker said it (what it answered), its relevance
    (0 to 1) and the query's words it holds."""

    record: MemoryRecord
    score: float
    scores: dict[str, float] = field(default_factory=dict)
    similarity: float = 0.0
    context: str = ""
    relevance: float = 0.0
    matched: list[str] = field(default_factory=list)

    def brief(self, source_chars: int = 0) -> MemoryBrief:
        """The record's brief with the rounded scores (non-zero parts only), similarity, context,
        relevance and the query's words it holds.

        Args:
            source_chars: How much of the source turn to include (see ``MemoryRecord.brief``).

        Returns:
            The brief a prompt or trace shows.
        """
        b = self.record.brief(source_chars)
        b["scores"] = {"total": round(self.score, 3), **{k: round(v, 3) for k, v in self.scores.items() if v}}
        b["similarity"] = round(self.similarity, 3)
        b["relevance"] = round(self.relevance, 3)
        b["matched"] = list(self.matched)
        if self.context:
            b["context"] = self.context
        return b
