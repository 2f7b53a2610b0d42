"""Reproducible memory benchmarks for caim (``caim eval``): GVD and LoCoMo, side by side.

Public API (imported lazily, so ``caim --help`` stays fast):

- ``load_gvd(folder, ...)`` / ``load_locomo(file, ...)`` -> ``Benchmark``
- ``run_benchmark(bench, out_dir, settings, config=EvalConfig(systems=[...], limit=...), models=..., judge_model=...)``
- ``write_report(out_dir)``: summary, ``report.md`` and ``report.png`` from an output folder.

Modules: ``dataset`` (data model), ``gvd`` and ``locomo`` (loaders, scoring), ``systems`` (CAIM
policies and the full-context baseline), ``judge`` (LLM judge), ``metrics`` (F1, recall, memory
size), ``runner`` (side-by-side, resumable runs), ``report`` (tables and plot), ``cli``.
"""

from __future__ import annotations

from importlib import import_module

_EXPORTS = {
    "load_gvd": "caim.eval.gvd",
    "load_locomo": "caim.eval.locomo",
    "run_benchmark": "caim.eval.runner",
    "EvalConfig": "caim.eval.runner",
    "DEFAULT_SYSTEMS": "caim.eval.runner",
    "write_report": "caim.eval.report",
    "Judge": "caim.eval.judge",
    "Benchmark": "caim.eval.dataset",
    "Conversation": "caim.eval.dataset",
    "Question": "caim.eval.dataset",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'caim.eval' has no attribute {name!r}")
