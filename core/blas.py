"""numpy's BLAS held to one thread while work on small matrices runs.

Post-thinking multiplies small matrices (the reader's network, a session's vectors against its
records'): there numpy's BLAS threads only contend with each other and with the process's other
work, and on a busy machine they spend many times the arithmetic's CPU waiting (figures in
``docs/scale.md``). ``one_blas_thread`` holds the BLAS libraries numpy loaded to one thread for the
block; the limit is process-wide, so nested and concurrent blocks share one hold, and the libraries'
thread counts come back when the last block ends. Because the limit is process-wide, whatever else
multiplies matrices in the process meanwhile (a search served beside post-thinking) also runs at one
BLAS thread until the last block ends.

>>> from caim.core.blas import blas_threads, one_blas_thread
>>> with one_blas_thread():
...     blas_threads()
1
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

_LOCK = threading.Lock()
_held = 0
_limiter: Any = None


@cache
def _controller() -> Any:
    """threadpoolctl's view of the BLAS libraries loaded (numpy's), found once."""
    import numpy  # noqa: F401  (numpy's BLAS is loaded before it is looked for)
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController().select(user_api="blas")


def blas_threads() -> int:
    """The most threads a loaded BLAS library uses now (1 when none is loaded)."""
    return max((lib.num_threads for lib in _controller().lib_controllers), default=1)


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Run the block with numpy's BLAS at one thread (see the module's docstring)."""
    global _held, _limiter
    with _LOCK:
        if _held == 0:
            _limiter = _controller().limit(limits=1)
        _held += 1
    try:
        yield
    finally:
        with _LOCK:
            _held -= 1
            if _held == 0 and _limiter is not None:
                _limiter.restore_original_limits()
                _limiter = None
