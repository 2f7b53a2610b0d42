"""``caim eval retrieval``: how well ranked retrieval finds the evidence of LoCoMo questions, no LLM at all.

Each conversation's sessions are captured verbatim through the store's own code: one ``raw``
record per turn (``caim.memory.capture.raw_record``) with its session time, speaker, turn id and
tags by meaning (``TagIndex``), in one in-memory store (each conversation under its own user id).
Then for every question of categories 1-4 each system ranks the conversation's records and the
share of the question's evidence turns among the top 5 / 10 / 20 is recorded, with the latency of
the search (query embedding included).

Systems:

- ``dense``: nearest by meaning only;
- ``bm25``: lexical match only;
- ``tags+time``: the original CAIM rule - records sharing a tag (the question's nearest tags) or
  inside a time range the question names (resolved in code), newest first;
- ``caim``: the ranked retrieval of ``caim.memory.retrieval`` with the same tags and ranges.

Writes ``results.json`` (per system: recall@5/10/20 overall and per category, latency p50/p95),
``report.md`` and ``report.png``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np

from caim.core.embeddings import Embedder
from caim.core.errors import ConfigError
from caim.eval.locomo import locomo_turn_text, parse_locomo_datetime
from caim.eval.metrics import evidence_ids, percentile
from caim.eval.tables import markdown_table
from caim.memory.capture import raw_record
from caim.memory.records import MemoryRecord
from caim.memory.retrieval import DEFAULT_WEIGHTS, DENSE_ONLY, LEXICAL_ONLY, Query, Retriever, Weights
from caim.memory.store import MemoryStore
from caim.memory.timeref import find_expressions, resolve
from caim.ontology import Ontology, TagIndex

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
KS = (5, 10, 20)
SYSTEMS = ("dense", "bm25", "tags+time", "caim")
WEIGHTS: dict[str, Weights] = {"dense": DENSE_ONLY, "bm25": LEXICAL_ONLY, "caim": DEFAULT_WEIGHTS}

Progress = Callable[[str, int, int], None]


@dataclass
class DatasetTurn:
    """One LoCoMo turn: its dialogue id, speaker, text, time, session and number in the session."""

    dia_id: str
    speaker: str
    text: str
    time: datetime
    session: str
    number: int


@dataclass
class Question:
    """One LoCoMo question with its category and evidence dialogue ids."""

    qid: str
    text: str
    category: int
    evidence: list[str]


@dataclass
class Conversation:
    """One LoCoMo sample: its speakers, turns, questions, and the time questions are asked."""

    sample_id: str
    speakers: tuple[str, str]
    turns: list[DatasetTurn]
    questions: list[Question]
    probe_time: datetime


def _turns(conv: dict) -> list[DatasetTurn]:
    """The conversation's turns with text, session by session, a minute apart from each session's start."""
    numbers = sorted(
        int(k.split("_")[1])
        for k in conv
        if k.startswith("session_") and k.count("_") == 1 and isinstance(conv[k], list)
    )
    turns: list[DatasetTurn] = []
    last = None
    for n in numbers:
        start = parse_locomo_datetime(conv.get(f"session_{n}_date_time", "")) or (
            (last + timedelta(days=1)) if last else datetime(2023, 1, 1, 9)
        )
        last = start
        for j, t in enumerate(conv[f"session_{n}"]):
            text = locomo_turn_text(t)
            if text:
                turns.append(
                    DatasetTurn(
                        str(t.get("dia_id", "")).strip(),
                        str(t.get("speaker", "")).strip(),
                        text,
                        start + timedelta(minutes=j),
                        f"session_{n}",
                        j,
                    )
                )
    return turns


def _questions(sample: dict) -> list[Question]:
    """The sample's questions in ``CATEGORIES`` that have text and evidence."""
    questions = []
    for qi, qa in enumerate(sample.get("qa") or []):
        try:
            cat = int(qa.get("category"))
        except (TypeError, ValueError):
            continue
        ev = evidence_ids(qa.get("evidence"))
        if cat in CATEGORIES and ev and str(qa.get("question", "")).strip():
            questions.append(Question(str(qi), " ".join(str(qa["question"]).split()), cat, ev))
    return questions


def load(path: str | Path, samples: Sequence[str] | None = None) -> list[Conversation]:
    """LoCoMo conversations as turns and questions (categories 1-4 with evidence)."""
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"LoCoMo file not found: {p}")
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ConfigError(f"{p} is not valid JSON: {exc}") from None
    if not isinstance(data, list):
        raise ConfigError(f"{p} is not in LoCoMo format (a list of samples)")
    out = []
    for i, sample in enumerate(data):
        sid = str(sample.get("sample_id") or f"sample-{i}")
        if samples and sid not in samples:
            continue
        conv = sample.get("conversation") or {}
        a, b = str(conv.get("speaker_a") or "A"), str(conv.get("speaker_b") or "B")
        turns = _turns(conv)
        if not turns:
            continue
        questions = _questions(sample)
        probe = datetime.combine(turns[-1].time.date() + timedelta(days=1), datetime.min.time()).replace(
            hour=12, tzinfo=turns[-1].time.tzinfo
        )
        out.append(Conversation(sid, (a, b), turns, questions, probe))
    if samples:
        missing = set(samples) - {c.sample_id for c in out}
        if missing:
            raise ConfigError(f"unknown LoCoMo sample(s) {', '.join(sorted(missing))}")
    if not out:
        raise ConfigError(f"no LoCoMo conversation in {p}")
    return out


def capture(
    store: MemoryStore, tagger: TagIndex, ontology: Ontology, conv: Conversation, user_id: str, batch: int = 256
) -> int:
    """Store every turn of the conversation as a raw record (one embedding per turn)."""
    count = 0
    for i in range(0, len(conv.turns), batch):
        chunk = conv.turns[i : i + batch]
        records: list[MemoryRecord] = []
        for t in chunk:
            records.append(
                raw_record(
                    user_id=user_id,
                    session_id=t.session,
                    turn=t.number,
                    text=t.text,
                    when=t.time,
                    tags=[],
                    speaker=t.speaker,
                    turn_id=t.dia_id,
                    role="user" if t.speaker == conv.speakers[0] else "assistant",
                )
            )
        vecs = store.embed([r.document() for r in records])
        for rec, tags in zip(records, tagger.nearest(ontology, vecs, 3), strict=True):
            rec.tags = [t for t, _ in tags] or ["personal"]
        store.add(records, vectors=vecs)
        count += len(records)
    return count


def _query(text: str, conv: Conversation, tagger: TagIndex, ontology: Ontology, vec: np.ndarray) -> Query:
    ranges = []
    for expr in find_expressions(text):
        r = resolve(expr, conv.probe_time)
        if r:
            ranges.append((r.start.timestamp(), r.end.timestamp()))
    tags = [t for t, _ in tagger.nearest(ontology, vec, 3)[0]]
    return Query(text=text, now=conv.probe_time, tags=tags, ranges=ranges, vector=vec)


def _tags_time(store: MemoryStore, user_id: str, q: Query, k: int) -> list[MemoryRecord]:
    recs = store.tagged_or_dated(user_id, list(q.tags), q.ranges, 100_000)
    recs.sort(key=lambda r: r.event_time, reverse=True)
    return recs[:k]


@dataclass
class Scores:
    """One system's recall per ``k`` (category and value per question) and its search latencies."""

    recall: dict[int, list[tuple[int, float]]] = field(default_factory=lambda: {k: [] for k in KS})
    latency_ms: list[float] = field(default_factory=list)


def run(
    data: str | Path,
    out_dir: str | Path,
    embedder: Embedder,
    *,
    systems: Sequence[str] = SYSTEMS,
    samples: Sequence[str] | None = None,
    progress: Progress | None = None,
    plot: bool = True,
) -> dict:
    """Capture, search, score and report; returns the summary written to ``results.json``."""
    unknown = [s for s in systems if s not in SYSTEMS]
    if unknown or not systems:
        raise ConfigError(
            f"unknown retrieval system(s) {', '.join(unknown) or '(none)'}; choose from: {', '.join(SYSTEMS)}"
        )
    convs = load(data, samples)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    store = MemoryStore(None, embedder)
    retriever = Retriever(store)
    ontology = Ontology.default()
    tagger = TagIndex(embedder)
    scores = {s: Scores() for s in systems}
    started = time.perf_counter()
    total_turns = sum(len(c.turns) for c in convs)
    done = 0
    capture_s = 0.0
    for conv in convs:
        user = f"locomo:{conv.sample_id}"
        t0 = time.perf_counter()
        done += capture(store, tagger, ontology, conv, user)
        capture_s += time.perf_counter() - t0
        if progress:
            progress("capture", done, total_turns)
    total_q = sum(len(c.questions) for c in convs)
    asked = 0
    for conv in convs:
        user = f"locomo:{conv.sample_id}"
        for q in conv.questions:
            for name in systems:
                t0 = time.perf_counter()
                vec = store.embed([q.text])[0]
                query = _query(q.text, conv, tagger, ontology, vec)
                if name == "tags+time":
                    recs = _tags_time(store, user, query, max(KS))
                else:
                    recs = [h.record for h in retriever.search(user, query, max(KS), WEIGHTS[name])]
                scores[name].latency_ms.append((time.perf_counter() - t0) * 1000)
                for k in KS:
                    found = {s.turn_id for r in recs[:k] for s in r.sources if s.turn_id}
                    scores[name].recall[k].append((q.category, len(found & set(q.evidence)) / len(q.evidence)))
            asked += 1
            if progress:
                progress("questions", asked, total_q)
    summary = summarize(
        scores,
        {
            "data": str(data),
            "conversations": [c.sample_id for c in convs],
            "turns": total_turns,
            "questions": total_q,
            "embedder": embedder.name,
            "capture_seconds": round(capture_s, 1),
            "capture_per_second": round(total_turns / capture_s, 1) if capture_s else None,
            "seconds": round(time.perf_counter() - started, 1),
        },
    )
    (out / "results.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    (out / "report.md").write_text(render(summary, "report.png" if plot else None), encoding="utf-8")
    if plot:
        plot_summary(summary, out / "report.png")
    return summary


def summarize(scores: dict[str, Scores], info: dict) -> dict:
    """The run's summary: mean recall per ``k`` and category, latency percentiles, question counts."""
    systems: dict[str, dict] = {}
    for name, sc in scores.items():
        entry: dict = {}
        for k in KS:
            vals = sc.recall[k]
            cell = {"all": _mean([v for _, v in vals])}
            for cat, label in CATEGORIES.items():
                cell[label] = _mean([v for c, v in vals if c == cat])
            entry[f"recall@{k}"] = cell
        entry["latency_ms"] = {
            "p50": _round(percentile(sc.latency_ms, 50)),
            "p95": _round(percentile(sc.latency_ms, 95)),
        }
        systems[name] = entry
    counts = {}
    first = next(iter(scores.values()), None)
    if first is not None:
        cats = [c for c, _ in first.recall[KS[0]]]
        counts = {"all": len(cats), **{label: cats.count(c) for c, label in CATEGORIES.items()}}
    return {"benchmark": "locomo-retrieval", "info": info, "questions": counts, "systems": systems}


def _mean(vals: list[float]) -> float | None:
    return round(float(np.mean(vals)), 4) if vals else None


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 1)


def render(summary: dict, plot_file: str | None) -> str:
    """The Markdown report of ``summary``, linking the plot ``plot_file`` when given."""
    info = summary["info"]
    labels = ["all", *CATEGORIES.values()]
    lines = [
        "# Retrieval on LoCoMo (no LLM)",
        "",
        f"Data: `{info['data']}` - conversations {', '.join(info['conversations'])}; {info['turns']} turns captured "
        f"verbatim ({info['capture_per_second']} turns/s), {info['questions']} questions of categories 1-4 "
        f"({', '.join(f'{k} {v}' for k, v in summary['questions'].items())}). Embedder: {info['embedder']}.",
        "",
        "Share of each question's evidence turns among the top k records, averaged over questions.",
        "",
    ]
    for k in KS:
        rows = [
            [name, *(fmt(entry[f"recall@{k}"][label]) for label in labels)]
            for name, entry in summary["systems"].items()
        ]
        lines += [f"## recall@{k}", "", *markdown_table(["system", *labels], rows), ""]
    latency = [
        [name, entry["latency_ms"]["p50"], entry["latency_ms"]["p95"]] for name, entry in summary["systems"].items()
    ]
    lines += ["## Latency per search (query embedding included)", ""]
    lines += markdown_table(["system", "p50 ms", "p95 ms"], latency)
    if plot_file:
        lines += ["", f"![recall]({plot_file})"]
    return "\n".join(lines) + "\n"


def fmt(x: float | None) -> str:
    """``x`` with three decimals, or ``–`` for None."""
    return "–" if x is None else f"{x:.3f}"


def plot_summary(summary: dict, path: Path) -> None:
    """Plot recall per ``k`` and category for each system into ``path``."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    labels = ["all", *CATEGORIES.values()]
    fig = Figure(figsize=(9, 3.2))
    FigureCanvasAgg(fig)
    names = list(summary["systems"])
    for pi, k in enumerate(KS):
        ax = fig.add_subplot(1, len(KS), pi + 1)
        width = 0.8 / max(len(names), 1)
        for si, name in enumerate(names):
            vals = [summary["systems"][name][f"recall@{k}"][lab] or 0 for lab in labels]
            ax.bar([x + si * width for x in range(len(labels))], vals, width, label=name)
        ax.set_title(f"recall@{k}", fontsize=9)
        ax.set_xticks([x + 0.4 - width / 2 for x in range(len(labels))], labels, rotation=45, fontsize=7)
        ax.set_ylim(0, 1)
        ax.tick_params(axis="y", labelsize=7)
    fig.axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
