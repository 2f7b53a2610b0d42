"""A record's entities: what a person's own words name of their life, held by whoever said them.

``said_entities`` reads a person's words with ``caim.memory.text.entities`` and keeps what it finds as
``RecordEntity`` values of a record: the user's words give the user's entities (holder ""), a named
participant's words give that participant's (holder: their name; a relative of theirs, "Sam's
sister"), and the assistant's words give none - what it says is no fact of anyone's life.
``with_entities`` gives a record the entities of its own words (its source turns of its speaker, else
its thought), then the entities it already held (a ``name`` only when no typed entity names it).
"""

from __future__ import annotations

from collections.abc import Iterable

from caim.memory.records import ASSISTANT, MAX_ENTITIES, MAX_ENTITY, USER, MemoryRecord, RecordEntity
from caim.memory.text.entities import RELATIONS, entities


def said_entities(texts: Iterable[str], speaker: str) -> list[RecordEntity]:
    """The entities a person's words name, each once, held as a record keeps them.

    Args:
        texts: The person's words (turns or sentences).
        speaker: Who said them: ``USER``, ``ASSISTANT`` or a participant's name ("" is the user).

    Returns:
        The entities, in the order they are said (none for the assistant's words).

    >>> [e.line() for e in said_entities(["I teach chemistry in Leeds."], "user")]
    ['job: chemistry teacher', 'place: Leeds (work)']
    >>> [e.line() for e in said_entities(["My sister Clara works as a nurse."], "Sam")]
    ['person: Clara (sister, of Sam)', 'job: nurse (of Clara)']
    >>> said_entities(["I live in Leeds."], "assistant")
    []
    """
    if speaker == ASSISTANT:
        return []
    participant = "" if speaker in ("", USER) else speaker
    out: dict[RecordEntity, None] = {}
    for text in texts:
        for e in entities(text):
            value = e.value[:MAX_ENTITY]
            out[RecordEntity(kind=e.kind, value=value, relation=e.relation, holder=_held(e.holder, participant))] = None
    return list(out)[:MAX_ENTITIES]


def _held(holder: str, participant: str) -> str:
    """Whose an entity is, said by ``participant`` ("" for the user): the speaker's own is theirs."""
    if not participant:
        return holder[:MAX_ENTITY]
    if not holder:
        return participant
    return (f"{participant}'s {holder}" if holder in RELATIONS else holder)[:MAX_ENTITY]


def as_names(values: Iterable[str]) -> list[RecordEntity]:
    """Names whose kind code does not tell, as a record keeps them (kind ``name``)."""
    return [RecordEntity(kind="name", value=v[:MAX_ENTITY]) for v in dict.fromkeys(values) if v.strip()]


def own_words(rec: MemoryRecord) -> list[str]:
    """The words of a record's speaker it keeps: its own source turns of that speaker (context turns
    are another's), else its thought."""
    said = [s.text for s in rec.sources if not s.context and s.who == rec.who]
    return said or [rec.thought]


def with_entities(rec: MemoryRecord) -> MemoryRecord:
    """``rec`` with the entities its speaker's own words name (``said_entities``), then those it
    already holds that are not among them (a ``name`` only when no entity found names it).

    >>> from caim.memory.records import utcnow
    >>> rec = MemoryRecord(user_id="u", thought="I teach chemistry in Leeds.", tags=["work"], event_time=utcnow())
    >>> [e.line() for e in with_entities(rec).entities]
    ['job: chemistry teacher', 'place: Leeds (work)']
    """
    typed = said_entities(own_words(rec), rec.who)
    named = {e.value.casefold() for e in typed}
    kept = [e for e in rec.entities if e.kind != "name" or e.value.casefold() not in named]
    found = list(dict.fromkeys([*typed, *kept]))[:MAX_ENTITIES]
    return rec if found == rec.entities else rec.model_copy(update={"entities": found})
