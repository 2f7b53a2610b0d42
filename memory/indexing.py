"""The text indexer: what the record database keeps of a record's words, read with the text analysis.

Storage reads no language (``caim.memory.storage.indexer``); ``TextIndexer`` reads a record's words
for it: the lexical terms of its text (in the language its words are in, the user's usual one where
they leave it open), the informativeness prior and time-expression flag of the thought and the
source turns it does not cover (a thought that misses its turn's point, "Mel", does not hide that
the turn was informative or dated), and the names it names. ``caim.memory`` registers it as the
default of every store.
"""

from __future__ import annotations

from collections.abc import Sequence

from caim.memory.records import MemoryRecord
from caim.memory.storage.indexer import Indexed
from caim.memory.text import detect, expecting, has_time_expression, names, prior, usual
from caim.memory.text.tokens import terms


class TextIndexer:
    """Reads records' words with ``caim.memory.text`` (an ``Indexer``)."""

    def usual_language(self, texts: Sequence[str]) -> str:
        """The language most of ``texts`` are written in (``caim.memory.text.lang.usual``)."""
        return usual(texts)

    def index(self, record: MemoryRecord, language: str) -> Indexed:
        """Terms, prior, time-expression flag and names of ``record``, short words read in ``language``."""
        with expecting(language):
            text = record.lexical_text()
            # its date is written in English whatever the record's language: the words after it tell that
            words = terms(text, detect(text.removeprefix(record.day())))
            speakers = frozenset({record.speaker}) if record.speaker else frozenset()
            found = list(dict.fromkeys([*(e.value for e in record.entities), *names(record.thought, speakers)]))
            said = [record.thought, *record.uncovered()]
            informative = max(prior(t, record.turn, speakers) for t in said)
            return Indexed(words, informative, any(has_time_expression(t) for t in said), found)
