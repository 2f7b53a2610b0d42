"""Long-term memory records, the Chroma store, short-term memory helpers and time resolution."""

from caim.memory.records import MemoryRecord, SourceTurn

__all__ = ["MemoryRecord", "SourceTurn"]
