"""The examples in module docstrings run, so they stay true."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("core", "memory", "ontology", "prompts", "graph", "agent", "eval")
WITH_EXAMPLES = sorted(
    "caim." + ".".join(path.relative_to(ROOT).with_suffix("").parts)
    for layer in LAYERS
    for path in (ROOT / layer).rglob("*.py")
    if ">>> " in path.read_text(encoding="utf-8") and path.name != "__init__.py"
)


def test_examples_are_collected():
    # the modules below document themselves with examples; losing them fails here
    for name in ("caim.core.embeddings", "caim.memory.text", "caim.memory.timeref", "caim.prompts.common"):
        assert name in WITH_EXAMPLES


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_docstring_examples(name: str):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
