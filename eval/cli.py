"""``caim eval``: run the memory benchmarks from the command line (mounted by ``caim.agent.surfaces.cli``).

    caim eval gvd --data shared/data/gvd --out eval-out/gvd --limit 3 --users Emily,Frank
    caim eval locomo --data locomo10.json --out eval-out/locomo --categories 1,2,4,5
    caim eval report --out eval-out/gvd          # rebuild results.json / report.md / report.png

Runs resume: run the same command again after an interruption and answered questions are skipped.
Heavy imports happen inside the commands, so ``caim --help`` stays fast.
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from caim.core.errors import ConfigError

eval_app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="markdown",
    help="Reproducible memory benchmarks (GVD, LoCoMo): systems side by side, resumable, with a report.",
)
console = Console(stderr=True, soft_wrap=True)

DEFAULT_SYSTEMS = "none,full-context,dense,caim,caim-cascade,always,no-filter,single-call"
PROVIDERS = ("openai", "local", "scripted")


def _split(text: str | None) -> list[str] | None:
    if not text:
        return None
    return [p.strip() for p in text.split(",") if p.strip()]


def _settings(provider, model, base_url, local_model):
    """The run's settings from the options and ``CAIM_*``; a bad value is ``Settings.load``'s one line
    naming its variable and the fix."""
    from caim.core.settings import Settings

    if provider and provider not in PROVIDERS:
        raise ConfigError(f"unknown provider {provider!r}; choose one of: {', '.join(PROVIDERS)}")
    over = {
        k: v
        for k, v in {"provider": provider, "model": model, "base_url": base_url, "local_model": local_model}.items()
        if v
    }
    return Settings.load(**over)


def _judge_settings(settings, judge_model, judge_provider, judge_base_url):
    """Settings for the judge role when any --judge-* option is given; else None (the run's settings).

    The judge's provider is --judge-provider, else ``openai`` when --judge-base-url is given, else
    the systems' provider. --judge-model names the model for that provider: an OpenAI-compatible
    model name, or for ``local`` a GGUF file or bundled model name."""
    if not (judge_model or judge_provider or judge_base_url):
        return None
    if judge_provider and judge_provider not in PROVIDERS:
        raise ConfigError(f"unknown judge provider {judge_provider!r}; choose one of: {', '.join(PROVIDERS)}")
    provider = judge_provider or ("openai" if judge_base_url else settings.resolved_provider())
    update: dict = {"provider": provider}
    if judge_base_url or provider != settings.resolved_provider():
        update["base_url"] = judge_base_url
    if judge_model and provider == "local":
        update["local_model"] = judge_model
    elif judge_model:
        update["model"] = judge_model
        update["role_models"] = {**settings.role_models, "judge": judge_model}
    return settings.model_copy(update=update)


def _show(summary: dict, out: Path) -> None:
    systems = summary["systems"]
    table = Table(title=f"{summary['benchmark']}: {summary['selected_questions']} questions per system")
    table.add_column("metric")
    for s in systems:
        table.add_column(s, justify="right")

    def pct(stat):
        return "–" if not stat or stat.get("mean") is None else f"{100 * stat['mean']:.1f}%"

    if summary["run"].get("judge"):
        from caim.prompts.judge import METRICS, TITLES

        for m in METRICS:
            table.add_row(TITLES[m], *(pct(summary["judged"][m][s]) for s in systems))
    for k, stats in (summary.get("code_metrics") or {}).items():
        table.add_row(k.replace("_", " "), *(pct(stats[s]) for s in systems))
    table.add_row(
        "LLM calls / question",
        *(
            "–"
            if summary["cost"][s]["llm_calls_per_question"] is None
            else f"{summary['cost'][s]['llm_calls_per_question']:.1f}"
            for s in systems
        ),
    )
    table.add_row(
        "memory entries", *(str(summary["memory"][s]["entries"]) if s in summary["memory"] else "–" for s in systems)
    )
    Console(soft_wrap=True).print(table)
    console.print(f"report: {out / 'report.md'}  results: {out / 'results.jsonl'}", style="dim")


# Options shared by both benchmarks (typer has no option groups: declared once here).
OUT = typer.Option(
    Path("eval-out"), "--out", help="Output folder (results.jsonl, memory.jsonl, results.json, report.md, report.png)."
)
SYSTEMS = typer.Option(
    DEFAULT_SYSTEMS,
    "--systems",
    help="Comma-separated: full-context, memory policies (caim, always, no-filter, none, single-call) and "
    "the peers mem0 and langmem (pip install 'caim\\[eval]').",
)
REPLAY = typer.Option(
    "recorded",
    "--replay",
    help="recorded: replay the data set's own replies (default); live: the system answers each user turn.",
)
LIMIT = typer.Option(None, "--limit", help="Questions per conversation (the first N of each); default all.")
DAYS = typer.Option(None, "--days", help="Replay only the first N days/sessions of each history.")
MODEL = typer.Option(None, "--model", help="Model name for the systems (OpenAI-compatible provider).")
PROVIDER = typer.Option(None, "--provider", help="Provider for the systems: local, openai, scripted.")
BASE_URL = typer.Option(None, "--base-url", help="OpenAI-compatible endpoint URL for the systems.")
LOCAL_MODEL = typer.Option(None, "--local-model", help="GGUF file (or bundled name) for the local provider.")
JUDGE = typer.Option(True, "--judge/--no-judge", help="Rate answers with the LLM judge.")
JUDGE_MODEL = typer.Option(
    None,
    "--judge-model",
    help="Model for the judge (default: the systems' model): a model name, or for a local judge "
    "a GGUF file / bundled name.",
)
JUDGE_PROVIDER = typer.Option(None, "--judge-provider", help="Provider for the judge (default: the systems' provider).")
JUDGE_BASE_URL = typer.Option(None, "--judge-base-url", help="OpenAI-compatible endpoint for the judge.")
CONTEXT_TOKENS = typer.Option(
    None,
    "--context-tokens",
    help="History window of the full-context baseline, in estimated tokens "
    "(default: 100000, or what the local model's window allows).",
)
JUDGE_HISTORY = typer.Option(
    None,
    "--judge-history-tokens",
    help="Budget for the history the judge sees (GVD; default 12000, or what a local judge's window allows).",
)
JUDGE_MEMORY = typer.Option(
    None,
    "--judge-memory-tokens",
    help="Budget for the stored memories the judge sees (default 4000, or what a local judge's window allows).",
)
WORKERS = typer.Option(1, "--workers", help="(system, user) pairs run in parallel threads.")
PLOT = typer.Option(True, "--plot/--no-plot", help="Write report.png (needs matplotlib: pip install 'caim\\[eval]').")
QUIET = typer.Option(False, "--quiet", "-q", help="No progress bars.")


@eval_app.command("gvd")
def gvd(
    data: Path = typer.Option(..., "--data", help="Folder with memory_bank_en.json and probing_questions_en.jsonl."),
    out: Path = OUT,
    systems: str = SYSTEMS,
    replay: str = REPLAY,
    limit: int | None = LIMIT,
    users: str | None = typer.Option(None, "--users", help="Comma-separated user names (default: all 15)."),
    days: int | None = DAYS,
    model: str | None = MODEL,
    provider: str | None = PROVIDER,
    base_url: str | None = BASE_URL,
    local_model: str | None = LOCAL_MODEL,
    judge: bool = JUDGE,
    judge_model: str | None = JUDGE_MODEL,
    judge_provider: str | None = JUDGE_PROVIDER,
    judge_base_url: str | None = JUDGE_BASE_URL,
    context_tokens: int | None = CONTEXT_TOKENS,
    judge_history_tokens: int | None = JUDGE_HISTORY,
    judge_memory_tokens: int | None = JUDGE_MEMORY,
    spacing_minutes: float = typer.Option(3.0, "--spacing-minutes", help="Minutes between a day's turns (from 09:00)."),
    labels: Path | None = typer.Option(
        None,
        "--labels",
        help="JSON lines {user, qid, keywords, evidence} (e.g. eval/labels/gvd_smoke.jsonl): score keyword-correct "
        "and evidence recall.",
    ),
    workers: int = WORKERS,
    plot: bool = PLOT,
    quiet: bool = QUIET,
) -> None:
    """GVD (MemoryBank): replay each user's ten days, ask the probing questions, judge the answers."""
    from caim.eval.gvd import load_gvd
    from caim.eval.runner import EvalConfig, run_benchmark

    settings = _settings(provider, model, base_url, local_model)
    bench = load_gvd(data, users=_split(users), days=days, spacing_minutes=spacing_minutes, labels=labels)
    config = EvalConfig(
        systems=systems,
        replay=replay,
        limit=limit,
        judge=judge,
        context_tokens=context_tokens,
        judge_history_tokens=judge_history_tokens,
        judge_memory_tokens=judge_memory_tokens,
        workers=workers,
        progress=not quiet,
        plot=plot,
    )
    judge_settings = _judge_settings(settings, judge_model, judge_provider, judge_base_url)
    _show(run_benchmark(bench, out, settings, config=config, judge_settings=judge_settings), out)


@eval_app.command("locomo")
def locomo(
    data: Path = typer.Option(..., "--data", help="LoCoMo JSON file (a list of samples)."),
    out: Path = OUT,
    systems: str = SYSTEMS,
    replay: str = REPLAY,
    limit: int | None = LIMIT,
    users: str | None = typer.Option(None, "--users", help="Comma-separated sample ids (default: all)."),
    days: int | None = DAYS,
    categories: str | None = typer.Option(
        None, "--categories", help="Question categories to ask, e.g. 1,2,3,4,5 (default all)."
    ),
    model: str | None = MODEL,
    provider: str | None = PROVIDER,
    base_url: str | None = BASE_URL,
    local_model: str | None = LOCAL_MODEL,
    judge: bool = JUDGE,
    judge_model: str | None = JUDGE_MODEL,
    judge_provider: str | None = JUDGE_PROVIDER,
    judge_base_url: str | None = JUDGE_BASE_URL,
    context_tokens: int | None = CONTEXT_TOKENS,
    judge_history_tokens: int | None = JUDGE_HISTORY,
    judge_memory_tokens: int | None = JUDGE_MEMORY,
    spacing_minutes: float = typer.Option(1.0, "--spacing-minutes", help="Minutes between a session's turns."),
    short_answers: bool = typer.Option(
        True, "--short-answers/--no-short-answers", help="Ask for a short phrase (LoCoMo's F1 rewards it)."
    ),
    speaker_names: bool = typer.Option(
        True, "--speaker-names/--no-speaker-names", help="Start each replayed message with its speaker's name."
    ),
    porter_stem: bool = typer.Option(
        False, "--porter-stem", help="Stem F1 tokens with NLTK's Porter stemmer, as LoCoMo's own script (needs nltk)."
    ),
    workers: int = WORKERS,
    plot: bool = PLOT,
    quiet: bool = QUIET,
) -> None:
    """LoCoMo: replay each sample (speaker_a as the user), ask its QA, score F1 / evidence recall / judge."""
    from caim.eval.locomo import load_locomo, porter_stemmer
    from caim.eval.runner import EvalConfig, run_benchmark

    try:
        cats = [int(c) for c in _split(categories) or []] or None
    except ValueError:
        raise ConfigError("--categories takes numbers, e.g. 1,2,4") from None
    settings = _settings(provider, model, base_url, local_model)
    bench = load_locomo(
        data,
        samples=_split(users),
        sessions=days,
        categories=cats,
        spacing_minutes=spacing_minutes,
        short_answers=short_answers,
        speaker_names=speaker_names,
        stem=porter_stemmer() if porter_stem else None,
    )
    config = EvalConfig(
        systems=systems,
        replay=replay,
        limit=limit,
        judge=judge,
        context_tokens=context_tokens,
        judge_history_tokens=judge_history_tokens,
        judge_memory_tokens=judge_memory_tokens,
        workers=workers,
        progress=not quiet,
        plot=plot,
    )
    judge_settings = _judge_settings(settings, judge_model, judge_provider, judge_base_url)
    _show(run_benchmark(bench, out, settings, config=config, judge_settings=judge_settings), out)


@eval_app.command("retrieval")
def retrieval(
    data: Path = typer.Option(..., "--data", help="LoCoMo JSON file (a list of samples)."),
    out: Path = typer.Option(
        Path("eval-out/retrieval"), "--out", help="Output folder (run.json, results.json, report.md, report.png)."
    ),
    systems: str = typer.Option(
        "dense,bm25,tags+time,caim",
        "--systems",
        help="Comma-separated retrieval systems: dense, bm25, tags+time, caim, and the peers mem0 and langmem "
        "(pip install 'caim\\[eval]').",
    ),
    samples: str | None = typer.Option(None, "--samples", help="Comma-separated sample ids (default: all)."),
    cv: bool = typer.Option(
        False,
        "--cv",
        help="Also fit caim's weights leave-one-conversation-out and print dev and cross-validated recall.",
    ),
    plot: bool = PLOT,
    quiet: bool = QUIET,
) -> None:
    """Retrieval only, no LLM: capture each conversation verbatim, rank, score evidence recall@5/10/20."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

    from caim.eval import retrieval as bench
    from caim.eval.runner import require_matplotlib
    from caim.graph.services import default_embedder

    if plot:
        require_matplotlib()
    settings = _settings(None, None, None, None)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, disable=quiet) as bar:
        tasks: dict[str, TaskID] = {}

        def progress(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total)
            bar.update(tasks[stage], completed=done)

        summary = bench.run(
            data,
            out,
            default_embedder(settings),
            systems=_split(systems) or [],
            samples=_split(samples),
            progress=progress,
            plot=plot,
            cv=cv,
        )
    table = Table(title=f"LoCoMo retrieval, {summary['questions'].get('all', 0)} questions: recall@10")
    labels = ["all", *bench.CATEGORIES.values()]
    table.add_column("system")
    for label in labels:
        table.add_column(label, justify="right")
    table.add_column("p95 ms", justify="right")
    for name, entry in summary["systems"].items():
        table.add_row(name, *(bench.fmt(entry["recall@10"][lab]) for lab in labels), str(entry["latency_ms"]["p95"]))
    Console(soft_wrap=True).print(table)
    if "cv" in summary:
        cv_table = Table(title="caim recall@10: shipped, fitted in-sample, leave one conversation out")
        for col in ["ranking", *labels]:
            cv_table.add_column(col, justify="left" if col == "ranking" else "right")
        for row in bench.cv_rows(summary["cv"]):
            cv_table.add_row(*row)
        Console(soft_wrap=True).print(cv_table)
    console.print(f"report: {out / 'report.md'}", style="dim")


@eval_app.command("reading")
def reading(
    shared: Path = typer.Option(Path("../shared/data"), "--shared", help="The shared data folder (LoCoMo dev, GVD)."),
    fit: bool = typer.Option(False, "--fit", help="Write the fitted weights to caim's reader (memory/reading)."),
    doc: Path | None = typer.Option(None, "--doc", help="Write the figures into this Markdown file's table."),
    quiet: bool = QUIET,
) -> None:
    """Fit the reader (worth remembering, categories, likes and dislikes) on the labelled sets, and
    print how it reads conversations it was not fitted on: LoCoMo dev left out one at a time, and
    the written multilingual set."""
    from caim.eval import reading as fitting

    run = fitting.cross_validate(shared, progress=(lambda _: None) if quiet else console.print)
    table = Table(title="The reader on conversations it was not fitted on")
    for col in fitting.HEADER:
        table.add_column(col, justify="left" if col == "set" else "right")
    for row in fitting.rows(run):
        table.add_row(*row)
    Console(soft_wrap=True).print(table)
    if fit:
        run.model.save(fitting.WEIGHTS)
        console.print(f"weights: {fitting.WEIGHTS}", style="dim")
    if doc is not None:
        fitting.write_doc(
            doc, fitting.markdown(run, "caim eval reading --shared ../shared/data --fit --doc " + str(doc))
        )
        console.print(f"figures: {doc}", style="dim")


@eval_app.command("labels")
def labels(
    shared: Path = typer.Option(Path("../shared/data"), "--shared", help="The shared data folder (LoCoMo dev, GVD)."),
    which: str = typer.Option(
        "shared",
        "--set",
        help="shared: LoCoMo dev and GVD (tests/data/labels_shared.jsonl); written: the written set; check: the "
        "capture check set (tests/data/capture_check.jsonl, whether each message stores).",
    ),
    limit: int | None = typer.Option(None, "--limit", min=1, help="At most this many turns (and replies)."),
    replies_only: bool = typer.Option(
        False, "--replies-only", help="Only the assistant's labelled replies (kept when the user took them up?)."
    ),
    out: Path | None = typer.Option(None, "--out", help="Write the figures as JSON here."),
    doc: Path | None = typer.Option(None, "--doc", help="Write the figures into this Markdown file."),
    provider: str | None = typer.Option(None, "--provider", help="openai, local or scripted (default: the settings')."),
    quiet: bool = QUIET,
) -> None:
    """Remember each labelled turn alone through caim.Memory (and each labelled reply's session whole)
    and score what was stored against careful readers' labels: capture precision and recall, the
    stored tags' top-level categories (precision, recall, F1, share of stored turns with a wrong one),
    likes and dislikes found, records by speaker, and the assistant's replies kept and taken up."""
    import json
    import tempfile

    from rich.progress import Progress

    from caim.agent.memory import Memory
    from caim.eval import labels as sets

    if which not in ("shared", "written", "check"):
        raise typer.BadParameter("--set is shared, written or check")
    if which == "shared":
        turns, replies = sets.shared_turns(shared)
    elif which == "check":
        turns, replies = sets.check_turns(), []
    else:
        turns, replies = sets.written_turns(), []
    turns, replies = ([] if replies_only else turns[:limit]), replies[:limit]
    settings = _settings(provider, None, None, None).model_copy(update={"data_dir": Path(tempfile.mkdtemp())})
    with Memory(settings, background=False) as memory, Progress(console=console, disable=quiet) as bar:
        task = bar.add_task("remembering", total=len(turns) + len(replies))
        got = sets.remember_labelled(memory, turns, replies, progress=lambda d, n: bar.update(task, completed=d))
    figures = got.figures()
    if which == "check":  # labelled only whether each message stores
        figures = {k: figures[k] for k in ("turns", "capture_precision", "capture_recall", "by_speaker")}
    table = Table(title=f"{which} labels: {figures['turns']} turns, {figures.get('replies', 0)} replies")
    table.add_column("figure")
    table.add_column("value", justify="right")
    for key, value in figures.items():
        table.add_row(key, f"{value:.3f}" if isinstance(value, float) else str(value))
    Console(soft_wrap=True).print(table)
    if out is not None:
        out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    if doc is not None:
        from caim.eval import reading as fitting

        what = f"{which}{' replies' if replies_only else ''}"
        command = f"caim eval labels --set {which}{' --replies-only' if replies_only else ''}" + (
            f" --limit {limit}" if limit else ""
        )
        reply_keys = ("replies", "replies_kept", "kept_taken_up", "taken_up_kept", "kept_contradicting")

        # the figures of what was run: the replies', the turns', or both
        def run(key: str) -> bool:
            return key in reply_keys if replies_only else bool(replies) or key not in reply_keys

        shown = {k: v for k, v in figures.items() if run(k)}
        rows = "".join(f"| {k} | {v:.3f} |\n" if isinstance(v, float) else f"| {k} | {v} |\n" for k, v in shown.items())
        block = f"| {what} | |\n|---|---:|\n{rows}\nCommand: `{command} --doc {doc}`.\n"
        fitting.write_doc(
            doc, block, begin=f"<!-- labels figures: {what}: begin -->", end=f"<!-- labels figures: {what}: end -->"
        )


@eval_app.command("agreement")
def agreement(
    shared: Path = typer.Option(Path("../shared/data"), "--shared", help="The shared data folder."),
    doc: Path | None = typer.Option(None, "--doc", help="Write the figures into this Markdown file."),
) -> None:
    """How caim's labels of LoCoMo dev and GVD (tests/data/labels_shared.jsonl) agree with the
    reference labels of the same turns (labels/tags_dev.jsonl), outside the calibration turns."""
    from caim.eval import reading as fitting
    from caim.eval.labels import reference_agreement

    got = reference_agreement(shared)
    line = (
        f"On the reference's {got['turns']} turns outside the calibration ones: the same store decision on "
        f"{got['stores']:.3f} of them; top-level categories precision {got['categories P']:.3f}, recall "
        f"{got['categories R']:.3f}, F1 {got['categories F1']:.3f} (the reference as gold); "
        f"{got['alike']} of its {got['likes and dislikes']} likes and dislikes labelled alike. "
        "Command: `caim eval agreement --shared ../shared/data --doc docs/reading.md`.\n"
    )
    Console(soft_wrap=True).print(line)
    if doc is not None:
        fitting.write_doc(doc, line, begin="<!-- label agreement: begin -->", end="<!-- label agreement: end -->")


@eval_app.command("report")
def report(out: Path = OUT, plot: bool = PLOT) -> None:
    """Rebuild results.json, report.md and report.png from an output folder (also after a kill)."""
    from caim.eval.report import write_report
    from caim.eval.runner import require_matplotlib

    if plot:
        require_matplotlib()
    _show(write_report(out, plot=plot), out)
