"""mypy checks what tests read from a trace against the step payloads the nodes record.

A test reads a step through ``caim.core.trace.steps(trace, node, kind)`` with a payload type of
``caim.graph.steps`` (or ``caim.core.trace.CodeRoleStep``); mypy then checks each key it reads. The
project's mypy settings resolve ``caim.*`` in the installed layout they keep in ``.typecheck/``
(tests/test_packaging.py keeps it in step with ``package-dir``); this runs mypy over every test that
imports a payload type, the package itself followed silently (only the tests' own findings count).
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import asdict, fields
from pathlib import Path
from typing import get_args

import pytest

from caim.core.trace import step, steps
from caim.graph.steps import MessageSignals, RouteSignals, StepData, message_signals
from caim.memory.text import MemorySignals, memory_signals

ROOT = Path(__file__).resolve().parents[1]
#: A test reading trace steps imports a payload type from one of these modules.
READS_STEPS = re.compile(r"^from caim\.(graph\.steps|core\.trace) import .*Step", re.M)


def _mypy(cache: Path, cwd: Path, *files: str) -> subprocess.CompletedProcess[str]:
    """mypy with the project's settings (``caim`` resolved in its ``.typecheck`` layout) over ``files``."""
    options = ["--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(cache / "mypy-cache")]
    return subprocess.run(
        [sys.executable, "-m", "mypy", *options, "--follow-imports", "silent", *files],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_tests_reading_trace_steps_read_keys_their_payload_declares(pytestconfig):
    pytest.importorskip("mypy")
    readers = sorted(p for p in (ROOT / "tests").glob("test_*.py") if READS_STEPS.search(p.read_text("utf-8")))
    assert len(readers) >= 5, readers  # the tests of the graph, post-thinking, speculation, roles
    run = _mypy(pytestconfig.cache.mkdir("typed-traces"), ROOT, *(str(p.relative_to(ROOT)) for p in readers))
    assert run.returncode == 0, run.stdout + run.stderr


def test_a_key_no_payload_declares_is_a_mypy_error(pytestconfig, tmp_path):
    """The check has teeth: a misspelt key read from a typed step fails it."""
    pytest.importorskip("mypy")
    wrong = tmp_path / "reads_a_misspelt_key.py"
    wrong.write_text(
        "from caim.core.trace import steps\n"
        "from caim.graph.steps import RouteStep\n\n\n"
        "def read(trace: list[dict]) -> bool:\n"
        '    return steps(trace, "retrieve", RouteStep)[0]["signals"]["past_referense"]\n',
        encoding="utf-8",
    )
    run = _mypy(pytestconfig.cache.mkdir("typed-traces"), tmp_path, str(wrong))
    assert run.returncode == 1 and 'has no key "past_referense"' in run.stdout, run.stdout + run.stderr


def test_no_payload_of_one_kind_reads_as_another():
    """``steps(trace, node, kind)`` tells the kinds apart by their keys alone."""
    kinds = get_args(StepData)
    for a in kinds:
        fewest = dict.fromkeys(a.__required_keys__)
        most = dict.fromkeys(a.__required_keys__ | a.__optional_keys__)
        assert steps([step("n", fewest), step("n", most)], "n", a) == [fewest, most]
        for b in kinds:
            if b is not a:
                assert steps([step("n", fewest), step("n", most)], "n", b) == [], (a, b)


def test_the_controllers_signals_are_the_message_signals_and_the_first_turn():
    assert list(MessageSignals.__annotations__) == [f.name for f in fields(MemorySignals)] + ["first_turn"]
    assert set(MessageSignals.__annotations__) <= set(RouteSignals.__annotations__)
    signals = memory_signals("Do you remember my dog?")
    assert message_signals(signals, first_turn=True) == {**asdict(signals), "first_turn": True}
