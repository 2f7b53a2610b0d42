"""Reproducible memory benchmarks for caim (``caim eval``): GVD and LoCoMo, side by side.

Public API (imported lazily, so ``caim --help`` stays fast):

- ``run_gvd(data_dir, out_dir, settings, models=..., judge_model=..., systems=..., limit=...)``
- ``run_locomo(data_file, out_dir, settings, ...)``
- ``load_gvd`` / ``load_locomo`` -> ``Benchmark``; ``run_benchmark(bench, out_dir, settings, config=EvalConfig(...))``
- ``write_report(out_dir)``: summary, ``report.md`` and ``report.png`` from an output folder.

Modules: ``dataset`` (data model), ``gvd`` and ``locomo`` (loaders, scoring), ``systems`` (CAIM
policies and the full-context baseline), ``judge`` (LLM judge), ``metrics`` (F1, recall, memory
size), ``runner`` (side-by-side, resumable runs), ``report`` (tables and plot), ``cli``.
"""

from __future__ import annotations

from importlib import import_module

_EXPORTS = {
    "run_gvd": "caim.eval.gvd",
    "load_gvd": "caim.eval.gvd",
    "run_locomo": "caim.eval.locomo",
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
