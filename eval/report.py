"""Summary, Markdown report and bar plot of a benchmark run, computed from its output folder.

``write_report(out_dir)`` reads ``run.json``, ``results.jsonl`` and ``memory.jsonl``, restricts
them to the run's systems and question selection, and writes ``results.json`` (the summary),
``report.md`` (one table per metric group, systems as columns, plus the memory-size tables of the
CAIM paper's table 4) and ``report.png`` (grouped bars, drawn with matplotlib's Agg canvas).
It can be re-run at any time (``caim eval report``), also on a run that was killed.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from caim.core.errors import ConfigError
from caim.eval.files import MEMORY_FILE, PLOT_FILE, REPORT_FILE, RESULTS_FILE, RUN_FILE, SUMMARY_FILE, JsonlLog
from caim.eval.metrics import mean, percentile
from caim.eval.tables import markdown_table
from caim.prompts.judge import METRICS, TITLES

CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}

#: Code metrics (LoCoMo) in report order, with titles.
CODE_METRICS = {
    "f1": "token F1 (categories 1-4)",
    "keyword_correct": "keyword-correct: the answer holds the keywords (LoCoMo: every word of the reference)",
    "adversarial_correct": "adversarial: says it is not available (category 5)",
    "evidence_recall": "evidence recall of retrieved records",
    "candidate_evidence_recall": "evidence recall of fetched candidates (before the filter)",
}

ROUTES = ("none", "stm", "ltm", "ltm+stm", "full-context")


def _read_jsonl(path: Path) -> list[dict]:
    return JsonlLog(path).read()


def _stat(values: list) -> dict:
    vals = [v for v in values if v is not None]
    return {"mean": mean(vals), "n": len(vals)}


def summarize(run: dict, records: list[dict], memory_lines: list[dict]) -> dict:
    """The summary of a run: per system, judged and code metrics, cost, routes, memory size."""
    systems: list[str] = list(run.get("systems") or [])
    chosen = {(u, str(q)) for u, qs in (run.get("selection") or {}).items() for q in qs}
    latest: dict[tuple, dict] = {}
    for r in records:  # keep the last answer of a (system, user, question)
        if r.get("system") in systems and (not chosen or (r.get("user"), str(r.get("qid"))) in chosen):
            latest[(r["system"], r["user"], str(r["qid"]))] = r
    by_system: dict[str, list[dict]] = {s: [] for s in systems}
    for (s, _u, _q), r in sorted(latest.items()):
        by_system[s].append(r)

    judged = {
        m: {s: _stat([((r.get("judge") or {}).get(m) or {}).get("score") for r in rs]) for s, rs in by_system.items()}
        for m in METRICS
    }
    for m in METRICS:
        for s, rs in by_system.items():
            judged[m][s]["failed"] = sum(
                1 for r in rs if m in (r.get("judge") or {}) and (r["judge"][m] or {}).get("score") is None
            )

    code_keys = [k for k in CODE_METRICS if any(k in (r.get("metrics") or {}) for rs in by_system.values() for r in rs)]
    code = {
        k: {s: _stat([(r.get("metrics") or {}).get(k) for r in rs]) for s, rs in by_system.items()} for k in code_keys
    }
    categories = sorted({r["category"] for rs in by_system.values() for r in rs if r.get("category") is not None})
    by_category = {
        k: {
            s: {
                str(c): _stat([(r.get("metrics") or {}).get(k) for r in rs if r.get("category") == c])
                for c in categories
            }
            for s, rs in by_system.items()
        }
        for k in code_keys
    }

    cost = {}
    for s, rs in by_system.items():
        n = len(rs) or 1
        cost[s] = {
            "questions": len(rs),
            "llm_calls_per_question": sum(r.get("llm_calls", 0) for r in rs) / n if rs else None,
            "input_tokens_per_question": sum(r.get("input_tokens", 0) for r in rs) / n if rs else None,
            "output_tokens_per_question": sum(r.get("output_tokens", 0) for r in rs) / n if rs else None,
            "latency_ms_mean": mean(r.get("latency_ms") for r in rs),
            "latency_ms_p50": percentile([r.get("latency_ms") for r in rs], 50),
            "latency_ms_p95": percentile([r.get("latency_ms") for r in rs], 95),
            "fallbacks": sum(r.get("fallbacks", 0) for r in rs),
        }
    judge_usage = {
        "calls": sum((r.get("judge_usage") or {}).get("calls", 0) for rs in by_system.values() for r in rs),
        "input_tokens": sum(
            (r.get("judge_usage") or {}).get("input_tokens", 0) for rs in by_system.values() for r in rs
        ),
        "output_tokens": sum(
            (r.get("judge_usage") or {}).get("output_tokens", 0) for rs in by_system.values() for r in rs
        ),
    }
    routes = {s: dict(Counter(r.get("route", "?") for r in rs)) for s, rs in by_system.items()}

    users = list((run.get("selection") or {}).keys())
    mem_latest: dict[tuple, dict] = {}
    for line in memory_lines:  # not ``m``: a metric's name above
        if line.get("system") in systems and (not users or line.get("user") in users):
            mem_latest[(line["system"], line["user"])] = line
    replay: dict[str, dict] = {}
    memory: dict[str, dict] = {}
    for s in systems:
        lines = [m for (sys_, _u), m in mem_latest.items() if sys_ == s]
        rp = [m.get("replay") or {} for m in lines]
        replay[s] = {
            "users": len(lines),
            **{
                k: sum(p.get(k, 0) or 0 for p in rp)
                for k in (
                    "sessions",
                    "exchanges",
                    "llm_calls",
                    "input_tokens",
                    "output_tokens",
                    "fallbacks",
                    "stored",
                    "merged",
                    "failed_sessions",
                    "discarded_messages",
                )
            },
            "seconds": round(sum(p.get("seconds", 0.0) or 0.0 for p in rp), 1),
            # sessions that left at least one record (a session that states facts should never leave none)
            "sessions_with_records": sum(
                len({r.get("session_id") for r in m.get("records") or [] if r.get("session_id")}) for m in lines
            ),
            "ontology_added": sorted({t for p in rp for t in p.get("ontology_added") or []}),
        }
        sized = [m for m in lines if m.get("memory_size") is not None]
        if not sized:
            continue
        entries = sum(m["memory_size"]["entries"] for m in sized)
        words = sum(m["memory_size"]["words"] for m in sized)
        memory[s] = {
            "users": len(sized),
            "entries": entries,
            "words": words,
            "words_per_entry": words / entries if entries else 0.0,
            "entries_per_user": entries / len(sized),
            "words_per_user": words / len(sized),
            "per_user": {m["user"]: m["memory_size"] for m in sorted(sized, key=lambda m: m["user"])},
            "faithfulness": _faithfulness([m["faithfulness"] for m in sized if m.get("faithfulness")]),
        }

    return {
        "benchmark": run.get("benchmark"),
        "generated_at": datetime.now(UTC).isoformat(),
        "run": {
            k: run.get(k)
            for k in (
                "info",
                "started_at",
                "finished_at",
                "seconds",
                "config",
                "models",
                "settings",
                "judge",
                "reference_kind",
            )
        },
        "systems": systems,
        "selected_questions": len(chosen),
        "answered": {s: len(rs) for s, rs in by_system.items()},
        "judged": judged,
        "code_metrics": code,
        "code_metrics_by_category": by_category,
        "categories": categories,
        "cost": cost,
        "judge_usage": judge_usage,
        "routes": routes,
        "replay": replay,
        "memory": memory,
    }


# ---- Markdown ---------------------------------------------------------------------------------
def _pct(stat: dict | None) -> str:
    if not stat or stat.get("mean") is None:
        return "–"
    return f"{100 * stat['mean']:.1f}% (n={stat['n']})"


def _num(x, digits: int = 1) -> str:
    if x is None:
        return "–"
    if isinstance(x, int):
        return f"{x:,}"
    return f"{x:,.{digits}f}"


#: Rows of the memory table from ``caim.eval.faithfulness`` (label, key).
FAITHFULNESS_ROWS = (
    ("memories with an invented specific (share)", "invented"),
    ("assistant chatter among memories (share)", "chatter"),
    ("evidence turns covered by a memory", "evidence_coverage"),
    ("memories from an evidence or fact-stating turn", "grounded_share"),
)


def _faithfulness(per_user: list[dict]) -> dict:
    """Faithfulness over users: shares of all stored memories, and evidence coverage over all users."""
    n = sum(f["memories"] for f in per_user)

    def share(key: str) -> float | None:
        got = [(f[key], f["memories"]) for f in per_user if f.get(key) is not None]
        return sum(v * w for v, w in got) / n if got and n else None

    coverage = [f["evidence_coverage"] for f in per_user if f.get("evidence_coverage") is not None]
    speakers: dict[str, int] = {}
    for f in per_user:
        for who, k in (f.get("by_speaker") or {}).items():
            speakers[who] = speakers.get(who, 0) + k
    return {
        "by_speaker": speakers,
        "invented": share("invented"),
        "chatter": share("chatter"),
        "grounded_share": share("grounded_share"),
        "evidence_coverage": sum(coverage) / len(coverage) if coverage else None,
    }


def _speakers(counts: dict[str, int] | None) -> str:
    """Memories per speaker, the most first ("user 120, assistant 4")."""
    if not counts:
        return "–"
    return ", ".join(f"{who} {n:,}" for who, n in sorted(counts.items(), key=lambda kv: -kv[1]))


def _memory_share(routes: dict) -> str:
    """Share of the questions routed to some memory (``ltm``, ``stm``, ``ltm+stm``)."""
    total = sum(routes.values())
    if not total:
        return "–"
    return f"{100 * sum(n for r, n in routes.items() if 'ltm' in r or 'stm' in r) / total:.1f}%"


def _per_session(replay: dict) -> str:
    """LLM calls, tokens (input + output) and seconds per replayed session."""
    n = replay.get("sessions") or 0
    if not n:
        return "–"
    tokens = (replay.get("input_tokens", 0) + replay.get("output_tokens", 0)) / n
    return f"{replay.get('llm_calls', 0) / n:.1f} / {tokens:,.0f} / {replay.get('seconds', 0.0) / n:.1f}"


def _table(header: list[str], rows: list[list[str]]) -> str:
    return "\n".join(markdown_table(header, rows))


def _overview(summary: dict) -> list[str]:
    """The run: data, questions, systems, models, judge, and the questions each system answered."""
    systems = summary["systems"]
    run = summary["run"] or {}
    cfg = run.get("config") or {}
    info = run.get("info") or {}
    judge = run.get("judge")
    out = [f"# CAIM memory benchmark: {summary['benchmark']}", ""]
    facts = [
        ["data", str(info.get("source", "–"))],
        ["conversations", _num(info.get("conversations"))],
        [
            "questions selected",
            _num(summary["selected_questions"])
            + (f" (first {cfg['limit']} per conversation)" if cfg.get("limit") else ""),
        ],
        ["systems", ", ".join(systems)],
        ["replay mode", str(cfg.get("replay", "–"))],
        ["models", str(run.get("models", "–"))],
        [
            "judge",
            f"{judge['model']} · prompt v{judge['prompt_version']} · sha256 {judge['prompt_hash']}" if judge else "off",
        ],
        [
            "judge reference",
            "the user's whole history (clipped)"
            if run.get("reference_kind") == "history"
            else "reference answer + evidence turns",
        ],
        ["full-context window", f"{_num(cfg.get('context_tokens'))} tokens (estimated)"],
        ["started / finished", f"{run.get('started_at', '–')} / {run.get('finished_at') or 'unfinished'}"],
    ]
    for k in ("days", "users", "categories"):
        if info.get(k) is not None:
            facts.append([k, str(info[k])])
    out += [_table(["", ""], facts), ""]
    out += [_table(["system", "questions answered"], [[s, _num(summary["answered"][s])] for s in systems]), ""]
    return out


def _judged_section(summary: dict) -> list[str]:
    """The judged metrics per system (none without a judge)."""
    systems = summary["systems"]
    judge = (summary["run"] or {}).get("judge")
    out: list[str] = []
    if judge:
        out += [
            "## Judged metrics",
            "",
            "Mean judge score (0 / 0.5 / 1; retrieval 0 / 1) as a percentage; `–`: not applicable to the system "
            "(no retrieval or no memory).",
            "",
        ]
        rows = []
        for m in METRICS:
            row = [TITLES[m]]
            for s in systems:
                st = summary["judged"][m][s]
                cell = _pct(st)
                if st.get("failed"):
                    cell += f", {st['failed']} unjudged"
                row.append(cell)
            rows.append(row)
        out += [_table(["metric", *systems], rows), ""]
    return out


def _code_section(summary: dict) -> list[str]:
    """The computed answer metrics per system, and by category."""
    systems = summary["systems"]
    out: list[str] = []
    code = summary.get("code_metrics") or {}
    if code:
        out += ["## Answer metrics (computed)", ""]
        out += [
            _table(["metric", *systems], [[CODE_METRICS[k], *(_pct(code[k][s]) for s in systems)] for k in code]),
            "",
        ]
        cats = summary.get("categories") or []
        if "f1" in code and cats:
            by = summary["code_metrics_by_category"]["f1"]
            rows = [
                [f"{c} {CATEGORY_NAMES.get(c, '')}".strip(), *(_pct(by[s][str(c)]) for s in systems)]
                for c in cats
                if c != 5
            ]
            rows.append(["overall (1-4)", *(_pct(code["f1"][s]) for s in systems)])
            out += ["### Token F1 by category", "", _table(["category", *systems], rows), ""]
        if "evidence_recall" in code and cats:
            by = summary["code_metrics_by_category"]["evidence_recall"]
            rows = [[f"{c} {CATEGORY_NAMES.get(c, '')}".strip(), *(_pct(by[s][str(c)]) for s in systems)] for c in cats]
            out += ["### Evidence recall by category", "", _table(["category", *systems], rows), ""]
    return out


def _cost_section(summary: dict) -> list[str]:
    """Cost and latency per question, the cost of replaying the history, and the judge's usage."""
    systems = summary["systems"]
    judge = (summary["run"] or {}).get("judge")
    out: list[str] = []
    cost = summary["cost"]
    out += ["## Cost and latency per question", ""]
    rows = [
        ["LLM calls", *(_num(cost[s]["llm_calls_per_question"], 2) for s in systems)],
        ["input tokens", *(_num(cost[s]["input_tokens_per_question"], 0) for s in systems)],
        ["output tokens", *(_num(cost[s]["output_tokens_per_question"], 0) for s in systems)],
        ["latency mean (ms)", *(_num(cost[s]["latency_ms_mean"], 0) for s in systems)],
        ["latency p50 (ms)", *(_num(cost[s]["latency_ms_p50"], 0) for s in systems)],
        ["latency p95 (ms)", *(_num(cost[s]["latency_ms_p95"], 0) for s in systems)],
        ["fallbacks (malformed output)", *(_num(cost[s]["fallbacks"]) for s in systems)],
    ]
    out += [_table(["", *systems], rows), ""]
    rp = summary["replay"]
    out += ["### Replaying the history (building the memory), all conversations", ""]
    rows = [
        ["sessions", *(_num(rp[s]["sessions"]) for s in systems)],
        ["LLM calls", *(_num(rp[s]["llm_calls"]) for s in systems)],
        ["input tokens", *(_num(rp[s]["input_tokens"]) for s in systems)],
        ["output tokens", *(_num(rp[s]["output_tokens"]) for s in systems)],
        ["records stored / merged", *(f"{_num(rp[s]['stored'])} / {_num(rp[s]['merged'])}" for s in systems)],
        ["sessions that left a record", *(_num(rp[s].get("sessions_with_records")) for s in systems)],
        ["ontology terms added", *(_num(len(rp[s].get("ontology_added") or [])) for s in systems)],
        ["sessions where extraction failed (turns kept verbatim)", *(_num(rp[s]["failed_sessions"]) for s in systems)],
        ["seconds", *(_num(rp[s]["seconds"]) for s in systems)],
        [
            "post-thinking per session: LLM calls / tokens in+out / seconds",
            *(_per_session(rp[s]) for s in systems),
        ],
    ]
    out += [_table(["", *systems], rows), ""]
    added = {s: rp[s].get("ontology_added") or [] for s in systems if rp[s].get("ontology_added")}
    for s, terms in added.items():
        out += [f"Ontology terms added by `{s}`: {', '.join(terms)}.", ""]
    ju = summary.get("judge_usage") or {}
    if judge:
        out += [
            f"Judge: {_num(ju.get('calls'))} calls, {_num(ju.get('input_tokens'))} input / "
            f"{_num(ju.get('output_tokens'))} output tokens.",
            "",
        ]
    return out


def _routes_section(summary: dict) -> list[str]:
    """The routes the systems took for the questions."""
    systems = summary["systems"]
    out: list[str] = []
    routes = summary["routes"]
    present = [r for r in ROUTES if any(r in routes[s] for s in systems)]
    present += sorted({r for s in systems for r in routes[s]} - set(present))
    if present:
        out += ["## Routes taken for the questions", ""]
        out += [_table(["route", *systems], [[r, *(_num(routes[s].get(r, 0)) for s in systems)] for r in present]), ""]
        shares = {s: _memory_share(routes[s]) for s in systems if "full-context" not in routes[s]}
        if shares:
            out += [
                "Routed to memory (long-term, this session, or both; every question here is about the past): "
                + ", ".join(f"`{s}` {share}" for s, share in shares.items())
                + ".",
                "",
            ]
    return out


def _memory_section(summary: dict) -> list[str]:
    """The size of each system's long-term memory after the history, overall and per user."""
    systems = summary["systems"]
    out: list[str] = []
    mem = summary["memory"]
    if mem:
        msys = [s for s in systems if s in mem]
        out += ["## Memory size", "", "Long-term memory after the whole history (the CAIM paper's table 4).", ""]
        rows = [
            ["users", *(_num(mem[s]["users"]) for s in msys)],
            ["entries", *(_num(mem[s]["entries"]) for s in msys)],
            ["words", *(_num(mem[s]["words"]) for s in msys)],
            ["words per entry", *(_num(mem[s]["words_per_entry"], 1) for s in msys)],
            ["entries per user", *(_num(mem[s]["entries_per_user"], 1) for s in msys)],
            ["words per user", *(_num(mem[s]["words_per_user"], 1) for s in msys)],
            *(
                [label, *(_num((mem[s].get("faithfulness") or {}).get(key), 3) for s in msys)]
                for label, key in FAITHFULNESS_ROWS
            ),
            ["memories by speaker", *(_speakers((mem[s].get("faithfulness") or {}).get("by_speaker")) for s in msys)],
        ]
        out += [_table(["", *msys], rows), ""]
        users = sorted({u for s in msys for u in mem[s]["per_user"]})
        rows = []
        for u in users:
            row = [u]
            for s in msys:
                m = mem[s]["per_user"].get(u)
                row.append(f"{m['entries']} / {m['words']} / {m['words_per_entry']:.1f}" if m else "–")
            rows.append(row)
        out += ["### Per user: entries / words / words per entry", "", _table(["user", *msys], rows), ""]
    return out


def render_markdown(summary: dict, plot_file: str | None = None) -> str:
    """The Markdown report of a run's ``summary``, linking the plot ``plot_file`` when given."""
    out = _overview(summary)
    for section in (_judged_section, _code_section, _cost_section, _routes_section, _memory_section):
        out += section(summary)
    if plot_file:
        out += ["## Plot", "", f"![metrics per system]({plot_file})", ""]
    return "\n".join(out)


# ---- plot -------------------------------------------------------------------------------------
def _panels(summary: dict) -> list[tuple[str, list[str], dict[str, list[float | None]]]]:
    """(title, group labels, {system: value per group}) for each panel with data."""
    systems = summary["systems"]
    panels = []
    if summary["run"].get("judge"):
        groups = [TITLES[m] for m in METRICS]
        vals = {s: [_pct_value(summary["judged"][m][s]) for m in METRICS] for s in systems}
        if any(v is not None for vs in vals.values() for v in vs):
            panels.append(("judged metrics (%)", groups, vals))
    code = summary.get("code_metrics") or {}
    if code:
        groups, vals = [], {s: [] for s in systems}
        cats = [c for c in summary.get("categories") or [] if c != 5]
        if "f1" in code:
            by = summary["code_metrics_by_category"]["f1"]
            for c in cats:
                groups.append(f"F1 {CATEGORY_NAMES.get(c, c)}")
                for s in systems:
                    vals[s].append(_pct_value(by[s][str(c)]))
        for k, label in (
            ("f1", "F1 overall"),
            ("keyword_correct", "keyword-correct"),
            ("adversarial_correct", "adversarial"),
            ("evidence_recall", "evidence recall"),
        ):
            if k in code:
                groups.append(label)
                for s in systems:
                    vals[s].append(_pct_value(code[k][s]))
        panels.append(("answer metrics (%)", groups, vals))
    cost = summary["cost"]
    panels.append(("LLM calls per question", ["LLM calls"], {s: [cost[s]["llm_calls_per_question"]] for s in systems}))
    if summary["memory"]:
        panels.append(
            (
                "memory entries per user",
                ["entries"],
                {s: [summary["memory"][s]["entries_per_user"] if s in summary["memory"] else None] for s in systems},
            )
        )
    return panels


def _pct_value(stat: dict) -> float | None:
    return None if stat.get("mean") is None else 100 * stat["mean"]


def plot_summary(summary: dict, path: str | Path) -> Path:
    """Grouped bar chart of the summary (needs matplotlib; drawn on the Agg canvas, no display):
    quality panels (judged and computed metrics) in the first row, cost panels in the second."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    panels = _panels(summary)
    systems = summary["systems"]
    rows = [r for r in ([p for p in panels if "%" in p[0]], [p for p in panels if "%" not in p[0]]) if r]
    width = max(8.0, max(sum(max(2.5, 1.1 * len(g) + 0.8) for _, g, _ in r) for r in rows))
    fig = Figure(figsize=(width, 4.2 * len(rows) + 0.8), layout="constrained")
    FigureCanvasAgg(fig)
    subfigs = fig.subfigures(len(rows), 1, squeeze=False, height_ratios=[1.3, 1][: len(rows)])[:, 0]
    colors = {s: f"C{i % 10}" for i, s in enumerate(systems)}
    bar = 0.8 / max(len(systems), 1)
    first_ax = None
    for sub, row in zip(subfigs, rows, strict=False):
        axes = sub.subplots(1, len(row), squeeze=False, width_ratios=[max(2.5, 1.1 * len(g) + 0.8) for _, g, _ in row])[
            0
        ]
        for ax, (title, groups, vals) in zip(axes, row, strict=False):
            first_ax = first_ax or ax
            for i, s in enumerate(systems):
                xs = [g + (i - (len(systems) - 1) / 2) * bar for g in range(len(groups))]
                ax.bar(xs, [v if v is not None else 0.0 for v in vals[s]], bar, label=s, color=colors[s])
                for x, v in zip(xs, vals[s], strict=False):
                    if v is None:
                        ax.text(x, 0, "n/a", ha="center", va="bottom", fontsize=6, rotation=90)
            ax.set_title(title, fontsize=10)
            ax.set_xticks(range(len(groups)))
            many = len(groups) > 2
            ax.set_xticklabels(groups, rotation=20 if many else 0, ha="right" if many else "center", fontsize=8)
            if "%" in title:
                ax.set_ylim(0, 100)
            ax.grid(axis="y", alpha=0.3)
    assert first_ax is not None
    handles, labels = first_ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=min(len(systems), 6), fontsize=8)
    fig.suptitle(f"CAIM memory benchmark: {summary['benchmark']}", fontsize=11)
    path = Path(path)
    fig.savefig(path, dpi=120)
    return path


# ---- all together -----------------------------------------------------------------------------
def write_report(out_dir: str | Path, *, plot: bool = True) -> dict:
    """Summarise the output folder and write ``results.json``, ``report.md`` and (``plot``) ``report.png``."""
    out = Path(out_dir)
    run_path = out / RUN_FILE
    if not run_path.exists():
        raise ConfigError(f"no {RUN_FILE} in {out}: not the output folder of a benchmark run")
    run = json.loads(run_path.read_text(encoding="utf-8"))
    summary = summarize(run, _read_jsonl(out / RESULTS_FILE), _read_jsonl(out / MEMORY_FILE))
    (out / SUMMARY_FILE).write_text(json.dumps(summary, indent=2, ensure_ascii=False, default=str), encoding="utf-8")
    plot_name = None
    if plot:
        plot_summary(summary, out / PLOT_FILE)
        plot_name = PLOT_FILE
    (out / REPORT_FILE).write_text(render_markdown(summary, plot_name), encoding="utf-8")
    return summary
