"""What the record database keeps of a record besides its text, and who reads the text for it.

Storage reads no language: the lexical terms, the informativeness prior, the time-expression flag
and the names of a record are computed by an ``Indexer`` the database is given (``RecordDB`` and
``MemoryStore`` take one; ``caim.memory.indexing.TextIndexer``, with the text analysis, is the one
the memory package registers as the default with ``use_by_default``). The database stores what it
returns and searches by it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol

from caim.memory.records import MemoryRecord


class Indexed(NamedTuple):
    """What the indexes hold of one record: its lexical terms (one per occurrence), its prior, whether
    its words hold a time expression, and the names it names."""

    terms: list[str]
    prior: float
    timex: bool
    names: list[str]


class Indexer(Protocol):
    """Reads records' words for the indexes, in a language."""

    def usual_language(self, texts: Sequence[str]) -> str:
        """The language most of ``texts`` are written in (a code such as ``"en"``)."""
        ...

    def index(self, record: MemoryRecord, language: str) -> Indexed:
        """What the indexes hold of ``record``, read in ``language`` where its own words leave it open."""
        ...


_default: list[Indexer] = []


def use_by_default(indexer: Indexer) -> None:
    """Make ``indexer`` the one a database given none uses (the layer that holds the text analysis calls this)."""
    _default[:] = [indexer]


def default_indexer() -> Indexer:
    """The indexer registered with ``use_by_default``."""
    if not _default:
        raise RuntimeError("no indexer registered: import caim.memory (it registers the text indexer)")
    return _default[0]
