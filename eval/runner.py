"""Runs a benchmark side by side over several systems, resumably, and writes the report.

For every conversation and every system a fresh system is built (its own in-memory agent), the
history is replayed into it, its memory is snapshotted, and the probing questions are asked one by
one; each answer is scored (code metrics, then the LLM judge) and appended to ``results.jsonl`` at
once. Files in the output folder:

- ``run.json``       configuration, models, judge (model, prompt version and hash), the selection
                     of questions; one entry per invocation under ``runs``.
- ``results.jsonl``  one line per (system, user, question): answer, route, retrieved records with
                     sources, LLM calls/tokens/latency, code metrics, judge verdicts.
- ``memory.jsonl``   one line per (system, user) replay: cost of building the memory and the
                     stored records (the last line of a pair counts).
- ``results.json``, ``report.md``, ``report.png``: the summary over the current selection.

Resuming: a (system, user, question) already in ``results.jsonl`` is skipped. A pair with any
question left is rebuilt from scratch (replay again) - probing never changes memory, so the
questions answered before and after the restart see the same kind of memory. Lines cut short by a
kill are ignored. ``--limit`` counts questions per conversation (the first N of each).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

from langchain_core.language_models import BaseChatModel
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from caim.core.errors import ConfigError
from caim.core.models import Models
from caim.core.settings import Settings
from caim.core.trace import usage
from caim.eval.catalog import make_system, system_names
from caim.eval.dataset import Benchmark, Conversation, Question
from caim.eval.faithfulness import faithfulness
from caim.eval.files import MEMORY_FILE, RESULTS_FILE, RUN_FILE, JsonlLog
from caim.eval.judge import DEFAULT_HISTORY_TOKENS, DEFAULT_MEMORY_TOKENS, Judge
from caim.eval.metrics import memory_size
from caim.eval.report import write_report
from caim.eval.systems import DEFAULT_CONTEXT_TOKENS, REPLAY_MODES, Answer, System

DEFAULT_SYSTEMS = ("none", "full-context", "dense", "caim", "caim-cascade", "always", "no-filter", "single-call")


#: Token budgets when the model is a hosted one (the window of the full-context baseline, and
#: what the judge is shown); for the local provider they follow ``local_ctx`` instead.
REMOTE_CONTEXT_TOKENS = DEFAULT_CONTEXT_TOKENS
REMOTE_JUDGE_HISTORY_TOKENS = DEFAULT_HISTORY_TOKENS
REMOTE_JUDGE_MEMORY_TOKENS = DEFAULT_MEMORY_TOKENS


def local_budget(local_ctx: int) -> int:
    """Estimated tokens a local model's window leaves for material: room for instructions and the
    answer, and a margin because ``estimate_tokens`` (characters / 4) can undercount."""
    return max(256, int((local_ctx - 1024) * 0.8))


@dataclass
class EvalConfig:
    """What to run and how. ``limit``: questions per conversation (first N); ``None`` = all.
    Token budgets left at ``None`` are chosen by ``resolve`` from the model's window."""

    systems: list[str] | str = field(default_factory=lambda: list(DEFAULT_SYSTEMS))
    replay: str = "recorded"
    limit: int | None = None
    judge: bool = True
    context_tokens: int | None = None
    judge_history_tokens: int | None = None
    judge_memory_tokens: int | None = None
    workers: int = 1
    progress: bool = True
    plot: bool = True

    def resolve(
        self, settings: Settings, models=None, judge_settings: Settings | None = None, judge_model=None
    ) -> None:
        """Fill unset budgets: the local provider's window (``local_ctx``) bounds them; hosted
        or injected models get the ``REMOTE_*`` defaults."""
        if self.context_tokens is None:
            local = models is None and settings.resolved_provider() == "local"
            self.context_tokens = local_budget(settings.local_ctx) if local else REMOTE_CONTEXT_TOKENS
        js = judge_settings or settings
        judge_local = (
            judge_model is None and (judge_settings is not None or models is None) and js.resolved_provider() == "local"
        )
        if judge_local:
            room = local_budget(js.local_ctx)
            if self.judge_history_tokens is None:
                self.judge_history_tokens = int(room * 0.6)
            if self.judge_memory_tokens is None:
                self.judge_memory_tokens = room - int(room * 0.6)
        if self.judge_history_tokens is None:
            self.judge_history_tokens = REMOTE_JUDGE_HISTORY_TOKENS
        if self.judge_memory_tokens is None:
            self.judge_memory_tokens = REMOTE_JUDGE_MEMORY_TOKENS

    def validate(self) -> None:
        """Normalize the system list and check the settings.

        Raises:
            ConfigError: A system or replay mode is unknown, or a count or budget is below 1.
        """
        if isinstance(self.systems, str):
            self.systems = [s.strip() for s in self.systems.split(",")]
        self.systems = list(dict.fromkeys(s.strip() for s in self.systems if s and s.strip()))
        if not self.systems:
            raise ConfigError("no systems to evaluate: pass --systems, e.g. caim,none")
        known = system_names()
        unknown = [s for s in self.systems if s not in known]
        if unknown:
            raise ConfigError(f"unknown system(s) {', '.join(unknown)}; choose from: {', '.join(known)}")
        if self.replay not in REPLAY_MODES:
            raise ConfigError(f"unknown replay mode {self.replay!r}; choose one of: {', '.join(REPLAY_MODES)}")
        if self.limit is not None and self.limit < 1:
            raise ConfigError("--limit must be at least 1")
        if self.workers < 1:
            raise ConfigError("--workers must be at least 1")
        if any(
            v is not None and v < 1 for v in (self.context_tokens, self.judge_history_tokens, self.judge_memory_tokens)
        ):
            raise ConfigError("token budgets must be positive")


def result_key(r: dict) -> tuple[str, str, str]:
    """The key of one result: system, user and question id."""
    return (str(r.get("system")), str(r.get("user")), str(r.get("qid")))


def require_matplotlib() -> None:
    """Raise ``ConfigError`` unless matplotlib (the ``eval`` extra) is installed."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ConfigError("the plot needs matplotlib: pip install 'caim[eval]' (or pass --no-plot)") from None


def describe_models(settings: Settings, models) -> str:
    """The models in use, or the provider and the error when they cannot be built."""
    try:
        return Models(settings, overrides=models).describe()
    except Exception as exc:  # e.g. the local model is not installed: still report the settings
        return f"{settings.resolved_provider()} ({type(exc).__name__})"


def _settings_info(s: Settings) -> dict:
    keys = (
        "provider",
        "model",
        "base_url",
        "role_models",
        "temperature",
        "local_model",
        "local_ctx",
        "route_rule",
        "similar_memory",
        "stm_token_budget",
        "stm_keep_recent",
        "search_k",
        "candidate_cap",
        "max_kept",
        "keep_top",
        "max_input_chars",
        "ground_overlap",
        "ground_similarity",
        "merge_min_similarity",
        "embedding_model",
    )
    info = {k: getattr(s, k) for k in keys}
    info["provider"] = s.resolved_provider()
    return info


def judge_metrics(system: System) -> list[str]:
    """The judged metrics that apply to a system (no retrieval / no memory: those are left out)."""
    out = []
    if system.retrieves:
        out.append("retrieval_accuracy")
    out += ["response_correctness", "contextual_coherence"]
    if system.stores:
        out.append("memory_storage")
    return out


class _Run:
    """State of one invocation: output logs, progress display, judge, settings."""

    def __init__(
        self, bench: Benchmark, out: Path, settings: Settings, config: EvalConfig, models, judge: Judge | None
    ):
        self.bench = bench
        self.out = out
        self.settings = settings
        self.config = config
        self.models = models
        self.judge = judge
        self.results = JsonlLog(out / RESULTS_FILE)
        self.memory = JsonlLog(out / MEMORY_FILE)
        self.progress: Progress | None = None
        self.total_task: TaskID | None = None

    # ---- one (conversation, system) pair ----------------------------------------------------
    def run_pair(self, conv: Conversation, name: str, todo: list[Question]) -> None:
        # run_benchmark resolves the config's budgets before it starts a run
        context_tokens = cast(int, self.config.context_tokens)
        system = make_system(name, self.settings, self.models, context_tokens=context_tokens)
        progress = self.progress
        task = (
            None if progress is None else progress.add_task(f"  {name} · {conv.user}: replay", total=len(conv.sessions))
        )
        try:

            def step(done: int, total: int) -> None:
                if progress is not None and task is not None:
                    progress.update(task, completed=done)

            replay = system.replay(conv, self.config.replay, step)
            records = system.memory()
            self.memory.append(
                {
                    "benchmark": self.bench.name,
                    "system": name,
                    "user": conv.user,
                    "finished_at": datetime.now(UTC).isoformat(),
                    "replay": replay,
                    "memory_size": memory_size(records) if system.stores else None,
                    "faithfulness": self.faithfulness(conv, records) if system.stores else None,
                    "records": records,
                }
            )
            if progress is not None and task is not None:
                progress.update(task, description=f"  {name} · {conv.user}: questions", completed=0, total=len(todo))
            for i, q in enumerate(todo):
                answer = system.ask(q.prompt, conv.probe_time)
                self.results.append(self.score(conv, q, name, system, answer, records))
                if progress is not None and task is not None:
                    progress.update(task, completed=i + 1)
                    if self.total_task is not None:
                        progress.advance(self.total_task)
        finally:
            system.close()
            if progress is not None and task is not None:
                progress.remove_task(task)

    def faithfulness(self, conv: Conversation, records: list[dict]) -> dict:
        """How faithful the stored records are (``caim.eval.faithfulness``), against every evidence turn
        of the conversation's questions."""
        evidence = [e for q in conv.questions for e in q.evidence]
        return faithfulness(records, evidence=evidence, turn_text=conv.turn_text, persona=self.bench.persona)

    def score(
        self, conv: Conversation, q: Question, name: str, system: System, answer: Answer, records: list[dict]
    ) -> dict:
        rec = {
            "benchmark": self.bench.name,
            "system": name,
            "user": conv.user,
            "qid": q.qid,
            "question": q.text,
            "prompt": q.prompt,
            "category": q.category,
            "reference": q.reference,
            "evidence": q.evidence,
            "asked_at": conv.probe_time.isoformat(),
            "answer": answer.text,
            "route": answer.route,
            "retrieved": answer.retrieved,
            "candidate_ids": [c.get("id") for c in answer.candidates],
            **usage(answer.trace),
            "latency_ms": round(answer.latency_ms, 1),
            "extra": answer.extra,
            "metrics": {},
            "judge": None,
            "judge_usage": None,
            "answered_at": datetime.now(UTC).isoformat(),
        }
        if self.bench.scorer is not None:
            rec["metrics"] = self.bench.scorer(
                conv,
                q,
                answer.text,
                answer.retrieved if system.retrieves else None,
                answer.candidates if system.retrieves else None,
            )
        if self.judge is not None:
            rec["judge"], rec["judge_usage"] = self.judge.rate(
                judge_metrics(system),
                conv=conv,
                question=q,
                answer=answer.text,
                reference_kind=self.bench.reference_kind,
                retrieved=answer.retrieved,
                stored=records,
            )
        return rec

    # ---- all pairs ---------------------------------------------------------------------------
    def run(self, jobs: list[tuple[Conversation, str, list[Question]]]) -> None:
        total = sum(len(t) for _, _, t in jobs)
        columns = (
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
        )
        with Progress(*columns, disable=not self.config.progress, transient=False) as progress:
            self.progress = progress
            self.total_task = progress.add_task(f"{self.bench.name}: questions", total=total)
            if self.config.workers == 1:
                for conv, name, todo in jobs:
                    self.run_pair(conv, name, todo)
                return
            with ThreadPoolExecutor(max_workers=self.config.workers, thread_name_prefix="caim-eval") as pool:
                futures = [pool.submit(self.run_pair, conv, name, todo) for conv, name, todo in jobs]
                done, pending = wait(futures, return_when=FIRST_EXCEPTION)
                failed = [f for f in done if f.exception() is not None]
                if failed:
                    for f in pending:
                        f.cancel()
                    exc = failed[0].exception()
                    assert exc is not None
                    raise exc


def selection(bench: Benchmark, limit: int | None) -> dict[str, list[str]]:
    """The questions of this invocation: {user: [qid, ...]}."""
    return {c.user: [q.qid for q in (c.questions[:limit] if limit else c.questions)] for c in bench.conversations}


def make_judge(
    config: EvalConfig,
    settings: Settings,
    models: Mapping[str, BaseChatModel] | BaseChatModel | None = None,
    judge_model: BaseChatModel | None = None,
    judge_settings: Settings | None = None,
    judge_label: str | None = None,
) -> Judge | None:
    """The judge for a run: ``judge_model`` if given, else an injected ``judge`` model, else the one
    ``judge_settings`` (default: the run's settings) configure for the ``judge`` role."""
    if not config.judge:
        return None
    kw: dict[str, Any] = {  # the budgets are set: run_benchmark resolves the config first
        "label": judge_label,
        "history_tokens": config.judge_history_tokens,
        "memory_tokens": config.judge_memory_tokens,
    }
    js = judge_settings or settings
    if judge_model is not None:
        return Judge(judge_model, js, **kw)
    return Judge.from_settings(js, models if judge_settings is None else None, **kw)


def run_benchmark(
    bench: Benchmark,
    out_dir: str | Path = "eval-out",
    settings: Settings | None = None,
    *,
    config: EvalConfig | None = None,
    models: Mapping[str, BaseChatModel] | BaseChatModel | None = None,
    judge_model: BaseChatModel | None = None,
    judge_settings: Settings | None = None,
    judge_label: str | None = None,
) -> dict:
    """Replay, probe, score and report ``bench`` for every configured system; returns the summary.

    ``models`` are injected chat models for the systems (one for all roles, or per role; tests
    pass scripted ones); ``judge_model`` / ``judge_settings`` choose the judge (see ``make_judge``).
    """
    config = config or EvalConfig()
    config.validate()
    peers = _peers(config.systems)
    if config.plot:
        require_matplotlib()
    settings = settings or Settings()
    if bench.persona and "persona" not in settings.model_fields_set:
        settings = settings.model_copy(update={"persona": True})
    config.resolve(settings, models, judge_settings, judge_model)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    judge = make_judge(config, settings, models, judge_model, judge_settings, judge_label)

    chosen = selection(bench, config.limit)
    run_info: dict[str, Any] = {
        "benchmark": bench.name,
        "info": bench.info,
        "started_at": datetime.now(UTC).isoformat(),
        "config": asdict(config),
        "systems": config.systems,
        "models": describe_models(settings, models),
        "settings": _settings_info(settings),
        "judge": judge.info() if judge else None,
        "peers": peers,
        "reference_kind": bench.reference_kind,
        "selection": chosen,
    }
    _save_run(out, run_info)

    done = {result_key(r) for r in JsonlLog(out / RESULTS_FILE).read()}
    jobs = []
    for conv in bench.conversations:
        qs = conv.questions[: config.limit] if config.limit else conv.questions
        for name in config.systems:
            todo = [q for q in qs if (name, conv.user, q.qid) not in done]
            if todo:
                jobs.append((conv, name, todo))
    started = time.perf_counter()
    _Run(bench, out, settings, config, models, judge).run(jobs)
    run_info["seconds"] = round(time.perf_counter() - started, 1)
    run_info["finished_at"] = datetime.now(UTC).isoformat()
    _save_run(out, run_info)
    return write_report(out, plot=config.plot)


def _peers(systems: Iterable[str]) -> dict:
    """Version and settings of each peer among ``systems`` (``run.json``), its package imported first.

    Raises:
        ConfigError: a peer's package cannot be imported (one line naming it).
    """
    from caim.eval.peer_systems import describe
    from caim.eval.peers import PEERS, require

    out = {}
    for name in systems:
        if name in PEERS:
            require(name)
            out[name] = describe(name)
    return out


def _save_run(out: Path, info: dict) -> None:
    """``run.json``: the latest invocation at the top level, every invocation under ``runs``."""
    path = out / RUN_FILE
    runs: list[dict] = []
    if path.exists():
        try:
            runs = json.loads(path.read_text(encoding="utf-8")).get("runs", [])
        except ValueError:
            runs = []
    entry = {k: info.get(k) for k in ("started_at", "finished_at", "seconds", "config", "models", "judge")}
    if runs and runs[-1].get("started_at") == info.get("started_at"):
        runs[-1] = entry
    else:
        runs.append(entry)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({**info, "runs": runs}, indent=2, ensure_ascii=False, default=str), encoding="utf-8")
    tmp.replace(path)
