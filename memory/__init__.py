"""Long-term memory: records, storage, search, text analysis, and what is done with them.

Importing the package registers the text indexer as every store's default (``caim.memory.indexing``):
storage reads no language itself.
"""

from caim.memory.indexing import TextIndexer
from caim.memory.records import MemoryRecord, SourceTurn
from caim.memory.storage.indexer import use_by_default

use_by_default(TextIndexer())

__all__ = ["MemoryRecord", "SourceTurn"]
