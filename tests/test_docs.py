"""The examples in module docstrings and the README's Python snippets run, so they stay true."""

from __future__ import annotations

import doctest
import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("core", "memory", "ontology", "prompts", "graph", "agent", "eval", "testing")
WITH_EXAMPLES = sorted(
    "caim." + ".".join(path.relative_to(ROOT).with_suffix("").parts)
    for layer in LAYERS
    for path in (ROOT / layer).rglob("*.py")
    if ">>> " in path.read_text(encoding="utf-8") and path.name != "__init__.py"
)


def test_examples_are_collected():
    # the modules below document themselves with examples; losing them fails here
    for name in ("caim.core.embeddings", "caim.memory.text.signals", "caim.memory.text.timeref", "caim.prompts.common"):
        assert name in WITH_EXAMPLES


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_docstring_examples(name: str):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


README = ROOT / "README.md"
#: Answers for the scripted provider the README's snippets run with (no network, no model).
README_SCRIPT = {"default": "OK", "respond": "Noted - Miso is a lovely name."}


def readme_snippets() -> list[str]:
    """Every ```python block of the README."""
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_the_readme_has_python_snippets():
    assert len(readme_snippets()) >= 1


@pytest.mark.parametrize("index", range(len(readme_snippets())))
def test_readme_snippet_runs(index: int, tmp_path: Path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps(README_SCRIPT), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CAIM_", "OPENAI_"))}
    env.update(CAIM_PROVIDER="scripted", CAIM_SCRIPT=str(script), CAIM_DATA_DIR=str(tmp_path / "data"))
    run = subprocess.run(
        [sys.executable, "-c", readme_snippets()[index]],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
