"""caim's public API (``caim.agent``): the names of the top-level ``caim`` package, imported on
first use so that the CLI starts without loading LangGraph, Chroma or a model."""

from __future__ import annotations

from typing import Any

import caim as _caim

__all__ = list(_caim.__all__)


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'caim.agent' has no attribute {name!r}")
    return getattr(_caim, name)
