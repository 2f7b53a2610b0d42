"""The user's profile: an abstract tier above the concrete memories, linked to them.

- **Background per aspect**: an aspect is a top category of the ontology, with sports, entertainment,
  music, books, travel and nature folded into ``leisure`` (``aspect_of``). Each aspect holds a short
  paragraph rewritten after every session from the paragraph before and the session's new memories
  (recursively), and kept only when grounded (``grounded_text``: no name, number or date its
  memories do not hold); otherwise - or without a model - the code's paragraph lists the aspect's
  newest memories (``listed``). Each rewrite keeps the previous text in ``history``.
- **Preference principles**: the user's preference memories (those with a polarity) clustered by
  meaning (``clusters``: k-means with k chosen by the silhouette, one cluster when no split is
  clearly better), each cluster a requirement type with what the user likes and dislikes in it,
  linked to its members; the code's summary is the cluster's most central memories.
- ``Profile.lines`` is what an answer is shown: the backgrounds of the aspects of the kept memories
  and the principles they belong to, or (``everything``, for "what do you know about me?") all of it,
  within a character budget.

The profile is stored as one JSON document per user beside the records (``MemoryStore.profile``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import datetime
from functools import lru_cache
from typing import Annotated, Literal

import numpy as np
from pydantic import BaseModel, Field

from caim.memory.records import MemoryRecord, utcnow
from caim.memory.text import unsupported
from caim.memory.text.lang import Language, detect
from caim.memory.text.polarity import polarity as find_polarity

#: Top categories folded into one aspect; every other top category is an aspect of its own.
FOLDED = {c: "leisure" for c in ("sports", "entertainment", "music", "books", "travel", "nature")}
#: Longest background paragraph and principle summary kept (characters).
MAX_TEXT = 700
#: Newest memories the code's background lists, and memories an aspect's rewrite is grounded in.
LISTED = 4
MEMBERS = 40
#: Earlier versions of a background kept in its history.
HISTORY_KEPT = 10
#: Preference memories a principle clustering reads (the newest), and most principles.
PREFERENCES = 300
MAX_PRINCIPLES = 8
#: Least mean silhouette for a split into several principles to beat one.
MIN_SILHOUETTE = 0.1
#: Cosine similarity above which two clusters' centres are one kind of thing (no split).
SAME_KIND = 0.9
#: Things listed per side of a principle, and central members in its code summary.
THINGS = 6
CENTRAL = 3

#: Characters of profile text an answer is shown beside its memories.
ANSWER_CHARS = 1500

Source = Literal["model", "code"]

#: Questions about the user as a whole, or their likes and dislikes, per language: answered from the profile.
_ABOUT_USER = re.compile(
    "|".join(
        [
            r"\bwhat (?:do|did) you (?:know|remember) about me\b",
            r"\btell me (?:about|what you know about) (?:me|myself)\b",
            r"\bwhat (?:do|don't|do not) i (?:like|love|enjoy|dislike|hate)\b",
            r"\bwhat (?:are|is) my (?:likes|dislikes|preferences|tastes)\b",
            r"\bdescribe me\b",
            r"\bwas wei(?:ß|ss)t du (?:alles )?über mich\b",
            r"\bwas mag ich\b",
            r"\b(?:que sais-tu|qu'est-ce que tu sais) (?:de|sur) moi\b",
            r"\bqu'est-ce que j'aime\b",
            r"\bqué sabes (?:de|sobre) mí\b",
            r"\bqué (?:me gusta|no me gusta)\b",
            r"你(?:都)?知道(?:我什么|关于我)",
            r"我(?:不)?喜欢什么",
            r"私について(?:何を)?知",
            r"私の好きな(?:もの|こと)",
        ]
    ),
    re.IGNORECASE,
)


#: Most aspects a profile holds (an import's profile is bounded like any other input).
MAX_ASPECTS = 64
#: Longest aspect name, session id and thing a profile keeps (characters).
MAX_NAME = 64
MAX_ID = 200
MAX_THING = 80
Thing = Annotated[str, Field(max_length=MAX_THING)]


class Version(BaseModel):
    """An earlier text of a background, with when and from which session it was written."""

    text: str = Field(max_length=MAX_TEXT)
    at: datetime
    session_id: str = Field(default="", max_length=MAX_ID)
    source: Source = "code"


class Background(BaseModel):
    """One aspect's paragraph, the memories it is grounded in (``members``) and its earlier versions."""

    aspect: str = Field(max_length=MAX_NAME)
    text: str = Field(max_length=MAX_TEXT)
    members: list[Annotated[str, Field(max_length=MAX_ID)]] = Field(default_factory=list, max_length=MEMBERS)
    source: Source = "code"
    updated_at: datetime = Field(default_factory=utcnow)
    session_id: str = Field(default="", max_length=MAX_ID)
    history: list[Version] = Field(default_factory=list, max_length=HISTORY_KEPT)

    def rewritten(self, text: str, members: Sequence[str], source: Source, session_id: str) -> Background:
        """The next version: ``text`` now, this one's text kept in the history (when it changed)."""
        history = self.history
        if text != self.text and self.text:
            old = Version(text=self.text, at=self.updated_at, session_id=self.session_id, source=self.source)
            history = [*history, old][-HISTORY_KEPT:]
        return Background(
            aspect=self.aspect,
            text=text,
            members=list(members)[:MEMBERS],
            source=source,
            session_id=session_id,
            history=history,
        )


class Principle(BaseModel):
    """A requirement type and what the user likes and dislikes for it, linked to its member memories."""

    requirement: str = Field(max_length=80)
    likes: list[Thing] = Field(default_factory=list, max_length=THINGS)
    dislikes: list[Thing] = Field(default_factory=list, max_length=THINGS)
    summary: str = Field(default="", max_length=MAX_TEXT)
    members: list[Annotated[str, Field(max_length=MAX_ID)]] = Field(default_factory=list, max_length=PREFERENCES)
    source: Source = "code"


class Profile(BaseModel):
    """A user's profile: a background per aspect and the preference principles."""

    user_id: str
    backgrounds: dict[Annotated[str, Field(max_length=MAX_NAME)], Background] = Field(
        default_factory=dict, max_length=MAX_ASPECTS
    )
    principles: list[Principle] = Field(default_factory=list, max_length=MAX_PRINCIPLES)
    updated_at: datetime = Field(default_factory=utcnow)

    @property
    def empty(self) -> bool:
        """Nothing known yet."""
        return not self.backgrounds and not self.principles

    def lines(
        self, aspects: Iterable[str] = (), record_ids: Iterable[str] = (), *, everything: bool = False, limit: int
    ) -> list[str]:
        """Text lines for an answer, within ``limit`` characters: the backgrounds of ``aspects`` and
        the principles holding one of ``record_ids`` (``everything``: every background and principle)."""
        wanted, ids = set(aspects), set(record_ids)
        out: list[str] = []
        used = 0
        shown = [b for a, b in sorted(self.backgrounds.items()) if everything or a in wanted]
        rules = [p for p in self.principles if everything or ids & set(p.members)]
        for line in [f"{b.aspect}: {b.text}" for b in shown] + [principle_line(p) for p in rules]:
            if used + len(line) > limit:
                break
            out.append(line)
            used += len(line)
        return out


def principle_line(p: Principle) -> str:
    """A principle in one line: ``cuisine - likes: ...; dislikes: ...``."""
    sides = [
        f"likes: {', '.join(p.likes)}" if p.likes else "",
        f"dislikes: {', '.join(p.dislikes)}" if p.dislikes else "",
    ]
    said = "; ".join(s for s in sides if s) or p.summary
    return f"{p.requirement} - {said}"


def about_user(text: str) -> bool:
    """Does a message ask about the user as a whole, or what they like or dislike (the profile answers)?

    >>> about_user("What do you know about me?"), about_user("Was weißt du über mich?"), about_user("What do I need?")
    (True, True, False)
    """
    return bool(_ABOUT_USER.search(text))


def profile_key(user_id: str) -> str:
    """The key-value entry of the record database holding a user's profile."""
    return f"profile:{user_id}"


def parse_profile(raw: str | None, user_id: str) -> Profile:
    """The stored profile text of ``user_id`` (an empty profile for none, or for one that cannot be read)."""
    if raw:
        try:
            return Profile.model_validate_json(raw).model_copy(update={"user_id": user_id})
        except ValueError:
            pass
    return Profile(user_id=user_id)


# ---- aspects and backgrounds ---------------------------------------------------------------------------
def aspect_of(top_category: str) -> str:
    """The aspect a top category belongs to (``leisure`` for the folded ones, else itself).

    >>> aspect_of("music"), aspect_of("work")
    ('leisure', 'work')
    """
    return FOLDED.get(top_category, top_category)


def categories_of(aspect: str, top_categories: Iterable[str]) -> list[str]:
    """The top categories whose memories an aspect holds."""
    return [c for c in top_categories if aspect_of(c) == aspect]


def listed(memories: Sequence[MemoryRecord]) -> str:
    """The code's background: the newest ``LISTED`` memories, newest first, as one paragraph."""
    newest = sorted(memories, key=lambda r: r.event_time, reverse=True)[:LISTED]
    text = " ".join(f"{r.thought.rstrip('. ')}." for r in newest)
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def support(memories: Sequence[MemoryRecord]) -> str:
    """What a profile text may draw on: the memories' thoughts and their own source turns."""
    return "\n".join(f"{r.thought}\n{' '.join(s.text for s in r.sources if not s.context)}" for r in memories)


def holds(text: str, memories: Sequence[MemoryRecord]) -> bool:
    """Whether ``memories`` hold every name, number and date of ``text``."""
    return not unsupported(text, support(memories))


def grounded_text(text: str, memories: Sequence[MemoryRecord], earlier: str = "") -> bool:
    """Whether a model's profile text may be kept: not empty, within ``MAX_TEXT``, and asserting no
    name, number or date that the memories (or the grounded ``earlier`` text) do not hold.

    >>> rec = MemoryRecord(user_id="u", thought="Works as a nurse in Porto.", tags=["work"], event_time=utcnow())
    >>> grounded_text("A nurse in Porto.", [rec]), grounded_text("A nurse in Lisbon since 2019.", [rec])
    (True, False)
    """
    text = text.strip()
    return bool(text) and len(text) <= MAX_TEXT and not unsupported(text, f"{support(memories)}\n{earlier}")


# ---- principles ---------------------------------------------------------------------------------------
def _kmeans(x: np.ndarray, k: int, rounds: int = 20) -> np.ndarray:
    """Labels of ``x`` (unit rows) in ``k`` clusters; farthest-point seeding, so the result is deterministic."""
    centers = [0]
    for _ in range(1, k):
        sims = np.max(x @ x[centers].T, axis=1)
        centers.append(int(np.argmin(sims)))
    c = x[centers]
    labels = np.zeros(len(x), dtype=np.int64)
    for _ in range(rounds):
        new = np.argmax(x @ c.T, axis=1)
        if np.array_equal(new, labels) and _ > 0:
            break
        labels = new
        for j in range(k):
            if np.any(labels == j):
                m = x[labels == j].mean(axis=0)
                c[j] = m / (np.linalg.norm(m) or 1.0)
    return labels


def _silhouette(x: np.ndarray, labels: np.ndarray) -> float:
    """Mean silhouette of a labelling under cosine distance (-1 when a cluster is a single point)."""
    kinds, own = np.unique(labels, return_inverse=True)
    member = own[:, None] == np.arange(len(kinds))[None, :]  # point x cluster
    sizes = member.sum(axis=0)
    if sizes.min() < 2:
        return -1.0
    rows = np.arange(len(x))
    summed = (1.0 - x @ x.T) @ member  # each point's cosine distances summed per cluster
    a = summed[rows, own] / (sizes[own] - 1)
    others = summed / sizes
    others[rows, own] = np.inf
    b = others.min(axis=1)
    return float(np.mean((b - a) / np.maximum(np.maximum(a, b), 1e-9)))


def _distinct(x: np.ndarray, labels: np.ndarray) -> bool:
    """Whether every two clusters' centres are less alike than ``SAME_KIND``."""
    c = np.stack([x[labels == j].mean(axis=0) for j in sorted(set(labels.tolist()))])
    c /= np.linalg.norm(c, axis=1, keepdims=True)
    sims = c @ c.T
    np.fill_diagonal(sims, -1.0)
    return float(sims.max()) < SAME_KIND


def clusters(vectors: np.ndarray) -> np.ndarray:
    """Cluster labels for preference vectors, k chosen by the data: the k (2 to ``MAX_PRINCIPLES``)
    with the best mean silhouette whose clusters are distinct kinds (``SAME_KIND``), or one cluster
    when none reaches ``MIN_SILHOUETTE``.

    >>> v = np.array([[1, 0], [0.99, 0.14], [0, 1], [0.14, 0.99]], dtype=float)
    >>> clusters(v / np.linalg.norm(v, axis=1, keepdims=True)).tolist()
    [0, 0, 1, 1]
    """
    n = len(vectors)
    best, labels = MIN_SILHOUETTE, np.zeros(n, dtype=np.int64)
    for k in range(2, min(MAX_PRINCIPLES, n // 2) + 1):
        got = _kmeans(vectors, k)
        if len(set(got.tolist())) < k:
            continue
        score = _silhouette(vectors, got)
        if score > best and _distinct(vectors, got):
            best, labels = score, got
    return labels


def _thing(rec: MemoryRecord) -> str:
    return _thing_of(rec.thought, detect(rec.thought))


@lru_cache(maxsize=4096)
def _thing_of(thought: str, language: Language) -> str:
    """What a preference's thought likes or dislikes (its polarity's thing), else the thought, kept per
    text and the language it reads as: every refresh of the principles reads the same preferences."""
    found = find_polarity(thought)
    return (found.thing if found is not None and found.thing else thought)[:MAX_THING]


def principle(members: Sequence[MemoryRecord], vectors: np.ndarray, requirement: str) -> Principle:
    """The code's principle of a cluster: what its likes and dislikes are about, and its most
    central memories as the summary."""
    center = vectors.mean(axis=0)
    order = np.argsort(-(vectors @ center))
    central = [members[i].thought.rstrip(". ") for i in order[:CENTRAL]]
    summary = "; ".join(central)
    return Principle(
        requirement=requirement[:MAX_THING],
        likes=list(dict.fromkeys(_thing(r) for r in members if r.polarity == "like"))[:THINGS],
        dislikes=list(dict.fromkeys(_thing(r) for r in members if r.polarity == "dislike"))[:THINGS],
        summary=summary if len(summary) <= MAX_TEXT else summary[: MAX_TEXT - 1] + "…",
        members=[r.id for r in members],
    )


def requirement_of(members: Sequence[MemoryRecord]) -> str:
    """A cluster's requirement type in code: the tag most of its members carry."""
    counts = Counter(t for r in members for t in dict.fromkeys(r.tags))
    return counts.most_common(1)[0][0] if counts else "preferences"
