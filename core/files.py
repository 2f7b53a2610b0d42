"""Files in the data dir: private to their owner, and a damaged SQLite file reported in one line.

Everything caim writes holds what users said, so each folder it creates is mode 0700 and each file
0600, whatever the umask. A folder or file that already exists keeps its mode (a person may have
chosen it). SQLite gives a database's ``-wal`` and ``-shm`` files the mode of the database file, so
a database created by ``open_sqlite`` stays private with its companions.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

from caim.core.errors import StorageError

__all__ = ["CHECKPOINTS_FILE", "open_checkpoints", "open_sqlite", "private_dir", "private_file", "write_private"]

#: The open sessions' checkpoints (LangGraph's SqliteSaver) in the data dir.
CHECKPOINTS_FILE = "checkpoints.sqlite"
CHECKPOINTS_FIX = "move it away (the open sessions are lost) and start again"


def private_dir(path: Path) -> Path:
    """Create ``path`` (and missing parents) with mode 0700; an existing folder is left as it is."""
    path = Path(path)
    if path.is_dir():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        path.mkdir(mode=0o700)
    except FileExistsError:  # another process created it just now
        return path
    os.chmod(path, 0o700)  # mkdir's mode is reduced by the umask; 0700 is what is meant
    return path


def private_file(path: Path) -> Path:
    """Create ``path`` empty with mode 0600 if it does not exist; an existing file is left as it is."""
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
    return path


def write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` (UTF-8), creating or truncating it; a new file is mode 0600."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def open_sqlite(path: Path, *, fix: str, **connect: Any) -> sqlite3.Connection:
    """A connection to the SQLite file ``path`` (``connect``: arguments of ``sqlite3.connect``),
    created 0600 in a 0700 folder if missing, after a check that it is a sound database.

    A damaged file raises ``StorageError("<name> in <folder> is damaged (...): <fix>")`` and is left
    as it is; a file that cannot be created or opened (permissions, a lock) says so in one line."""
    path = Path(path)
    where = f"{path.name} in {path.parent}"
    try:
        private_dir(path.parent)
        private_file(path)
        conn = sqlite3.connect(str(path), **connect)
    except OSError as exc:
        raise StorageError(f"{where} cannot be created ({exc.strerror})") from None
    except sqlite3.Error as exc:
        raise StorageError(f"{where} cannot be opened ({_one_line(exc)})") from None
    try:
        found = conn.execute("PRAGMA quick_check(1)").fetchone()
        problem = None if found and found[0] == "ok" else str(found[0] if found else "no answer to a check")
    except sqlite3.OperationalError as exc:  # locked, unreadable: not damage
        conn.close()
        raise StorageError(f"{where} cannot be opened ({_one_line(exc)})") from None
    except sqlite3.DatabaseError as exc:  # not a database, malformed
        problem = _one_line(exc)
    if problem is not None:
        conn.close()
        raise StorageError(f"{where} is damaged ({' '.join(problem.split())}): {fix}")
    return conn


def open_checkpoints(data_dir: Path) -> sqlite3.Connection:
    """The open sessions' checkpoint database in ``data_dir`` (for ``SqliteSaver``; usable from any
    thread), private to its owner; one-line ``StorageError`` when it is damaged."""
    return open_sqlite(Path(data_dir) / CHECKPOINTS_FILE, fix=CHECKPOINTS_FIX, check_same_thread=False)
