"""Memory that changes, in code: grounding checks, and how a maintenance decision changes records.

Post-thinking asks a model how each new memory relates to stored ones; this module is the code
half. ``grounded`` checks that a model's sentence is supported by the turn it came from (shared
content words or embedding similarity), so a confused model cannot store a thought its source does
not support. The ``apply_*`` functions change records and write their history; an update never
deletes: the old record's validity ends where the new one begins.

- same: the records are merged (``caim.memory.merge.merge_group``);
- update: ``old.valid_until`` = the new event time, ``old.superseded_by`` = new id, ``new.supersedes``
  gains the old id;
- extends: the new detail is appended to the old record (thought, sources, tags); the new one is
  folded into it;
- contradicts: both stay current, linked to each other;
- link: records naming the same person, pet, place or thing are linked.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from caim.memory.records import HistoryEntry, MemoryRecord, as_aware, utcnow
from caim.memory.text import tokenize, unsupported

_ROLE_WORDS = frozenset(tokenize("user assistant person someone"))
#: Words of small talk: they carry no fact, so a sentence of them alone is not supported by a turn
#: that happens to use them too ("Wow, looks awesome!" against "Wow, you had a blast").
_SMALL_TALK = frozenset(tokenize("wow awesome great glad thanks thank cool amazing nice hey hi hello yeah yay totally"))
#: A speaker's label at the start of a line or a claim ("Caroline: ...").
_LABEL = re.compile(r"(?:^|\n)\s*([A-Z][\w.'-]{1,30}):")
#: Fewest distinct content words a grounded claim holds ("Mel" is no memory; "Loves pizza" is).
MIN_CONTENT_WORDS = 2


def content_overlap(claim: str, source: str) -> float:
    """Share of the claim's content words (stems, stopwords and role words left out) found in the source."""
    words = [w for w in tokenize(claim) if w not in _ROLE_WORDS]
    if not words:
        return 0.0
    have = set(tokenize(source))
    return sum(1 for w in words if w in have) / len(words)


def claim_words(claim: str, source: str) -> list[str]:
    """The words of a claim that can support it: content words, less role words, small talk and the
    names of the source's speakers (a claim that only names who spoke states nothing).

    >>> claim_words("Caroline: Wow, looks awesome!", "Caroline: Wow, Mel! You had a blast.")
    ['look']
    """
    labels = set(tokenize(" ".join(_LABEL.findall(source))))
    claim = _LABEL.sub("\n", claim, count=1)
    return [w for w in tokenize(claim) if w not in _ROLE_WORDS and w not in _SMALL_TALK and w not in labels]


def grounded(claim: str, source: str, similarity: float, *, min_overlap: float, min_similarity: float) -> bool:
    """Is the claim supported by the source text? It must hold at least ``MIN_CONTENT_WORDS`` words
    of its own (``claim_words``) and either share enough of them with the source or, sharing at
    least one, be close to it in meaning (a paraphrase). Similarity alone is not enough: small talk
    embeds close to small talk.

    >>> grounded("Mel", "Caroline: Thanks, Mel! My friends are my rocks.", 0.9, min_overlap=0.34, min_similarity=0.5)
    False
    >>> grounded("Has known her friends for 4 years", "I've known these friends for 4 years.", 0.6,
    ...          min_overlap=0.34, min_similarity=0.5)
    True
    """
    words = claim_words(claim, source)
    if len(set(words)) < MIN_CONTENT_WORDS:
        return False
    have = set(tokenize(source))
    overlap = sum(1 for w in words if w in have) / len(words)
    return overlap >= min_overlap or (overlap > 0 and similarity >= min_similarity)


def keeps(rewrite: str, original: str, min_share: float) -> bool:
    """Does a rewrite of someone's words keep what they said? It keeps every name, number and date
    of the original (``unsupported`` finds none missing, however the date is written; speakers'
    labels aside) and at least ``min_share`` of its content words (``claim_words``). A verbatim
    capture is only replaced by a sentence that passes: a small model's rewrite that drops the fact
    keeps the words instead.

    >>> said = "Hi, my name is Emily. My favourite food is pizza and I play the piano every evening."
    >>> keeps("Emily, my name is Emily, I love playing the piano every evening.", said, 0.75)
    False
    >>> keeps("Emily's favourite food is pizza; she plays the piano every evening.", said, 0.75)
    True
    >>> keeps("Went to the LGBTQ support group on May 7.", "I went to the LGBTQ support group on 7 May!", 0.75)
    True
    """
    labels = {n.lower() for n in _LABEL.findall(original)}
    if set(unsupported(_LABEL.sub("\n", original), rewrite)) - labels:
        return False
    words = set(claim_words(original, original))
    return not words or len(words & set(tokenize(rewrite))) / len(words) >= min_share


def _note(rec: MemoryRecord, change: str, session_id: str, others: Sequence[str], note: str = "") -> MemoryRecord:
    entry = HistoryEntry(change=change, session_id=session_id, others=list(others), note=note)
    return rec.model_copy(update={"history": [*rec.history, entry], "updated_at": utcnow()})


def apply_update(old: MemoryRecord, new: MemoryRecord, session_id: str) -> tuple[MemoryRecord, MemoryRecord]:
    """``new`` supersedes ``old``: the old record stays, valid until the new event time."""
    until = max(as_aware(new.event_time), as_aware(old.valid_from or old.event_time))
    closed = _note(old, "superseded", session_id, [new.id], f"superseded by: {new.thought[:120]}")
    closed = closed.model_copy(update={"valid_until": until, "superseded_by": new.id})
    newer = _note(new, "updated", session_id, [old.id], f"supersedes: {old.thought[:120]}")
    newer = newer.model_copy(
        update={
            "supersedes": list(dict.fromkeys([*new.supersedes, old.id])),
            "valid_from": new.valid_from or new.event_time,
        }
    )
    return closed, newer


def apply_extend(old: MemoryRecord, new: MemoryRecord, session_id: str) -> MemoryRecord:
    """Append the new detail to the old record; the new record is folded into it."""
    thought = (
        old.thought if new.thought.lower() in old.thought.lower() else f"{old.thought.rstrip('. ')}; {new.thought}"
    )
    seen = {(s.role, s.text) for s in old.sources}
    sources = [*old.sources, *(s for s in new.sources if (s.role, s.text) not in seen)]
    tags = list(dict.fromkeys([*old.tags, *new.tags]))[:3]
    entities = list(dict.fromkeys([*old.entities, *new.entities]))
    out = _note(old, "extended", session_id, [new.id], new.thought[:200])
    return out.model_copy(update={"thought": thought[:1000], "sources": sources, "tags": tags, "entities": entities})


def apply_contradiction(a: MemoryRecord, b: MemoryRecord, session_id: str) -> tuple[MemoryRecord, MemoryRecord]:
    """Both may hold: both stay current, linked, with the disagreement in their history."""
    a2 = _note(a, "contradicted", session_id, [b.id], b.thought[:120])
    b2 = _note(b, "contradicted", session_id, [a.id], a.thought[:120])
    return (
        a2.model_copy(update={"links": list(dict.fromkeys([*a.links, b.id]))}),
        b2.model_copy(update={"links": list(dict.fromkeys([*b.links, a.id]))}),
    )


def link(a: MemoryRecord, b: MemoryRecord, session_id: str, name: str) -> tuple[MemoryRecord, MemoryRecord]:
    """Link two records about the same entity (retrieving one brings the other)."""
    if b.id in a.links:
        return a, b
    a2 = _note(a, "linked", session_id, [b.id], name)
    b2 = _note(b, "linked", session_id, [a.id], name)
    return (a2.model_copy(update={"links": [*a.links, b.id]}), b2.model_copy(update={"links": [*b.links, a.id]}))
