"""Which files of a data dir hold a text: the check that something forgotten left no copy on disk.

Chroma's HNSW segment files (``data_level0.bin``, ``length.bin``, ``link_lists.bin``, ``header.bin``
in a segment folder under ``chroma/``) hold vectors, lengths and graph links, never a record's text;
they are written from buffers of the whole index capacity that hnswlib allocates without clearing,
so their unused part carries whatever bytes the process's heap held there before (any text the process
once read). A word found there is stale memory, not something stored, so they are not read; every
other file (SQLite's databases and logs, Chroma's ``chroma.sqlite3``, caim's own files) is.

>>> import tempfile
>>> from pathlib import Path
>>> root = Path(tempfile.mkdtemp())
>>> (root / "chroma" / "seg").mkdir(parents=True)
>>> _ = (root / "chroma" / "seg" / "data_level0.bin").write_bytes(b"stale leukemia")
>>> _ = (root / "memory.sqlite").write_bytes(b"... leukemia ...")
>>> [p.name for p in files_holding(root, "leukemia")]
['memory.sqlite']
"""

from __future__ import annotations

from pathlib import Path

#: Chroma's HNSW segment files: vectors, lengths and links written from uncleared buffers, no text.
HNSW_FILES = frozenset({"data_level0.bin", "length.bin", "link_lists.bin", "header.bin"})


def _hnsw_file(path: Path, root: Path) -> bool:
    return path.name in HNSW_FILES and "chroma" in path.relative_to(root).parts


def files_holding(root: Path, text: str | bytes) -> list[Path]:
    """The files under ``root`` whose bytes hold ``text`` (UTF-8), Chroma's HNSW segment files left out."""
    needle = text.encode() if isinstance(text, str) else text
    return sorted(p for p in root.rglob("*") if p.is_file() and not _hnsw_file(p, root) and needle in p.read_bytes())
