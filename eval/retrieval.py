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
- ``caim``: the ranked retrieval of ``caim.memory.search.retrieval`` with the same tags and ranges;
- ``mem0``, ``langmem``: the peer memory layers with the same embedder, each turn stored verbatim
  as ``"<speaker>: <turn>"`` and found by the peer's own search (``caim.eval.peers``).

Writes ``run.json`` (data, systems, embedder, package versions, each peer's version and
settings), ``results.json`` (per system: recall@5/10/20 overall and per category, latency
p50/p95), ``questions.jsonl`` (one line per question and system: its recall at each k and the rank
of each evidence turn among the top 20, to read the misses), ``report.md`` and ``report.png``.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from caim.core.embeddings import Embedder
from caim.core.errors import ConfigError
from caim.eval import fit
from caim.eval.fit import ALL_SIGNALS, Case
from caim.eval.locomo import locomo_turn_text, parse_locomo_datetime
from caim.eval.metrics import evidence_ids, percentile
from caim.eval.peers import PEERS, PeerTurn, RetrievalPeer, retrieval_peer
from caim.eval.peers import version as peer_version
from caim.eval.tables import markdown_table
from caim.memory.capture import raw_record
from caim.memory.records import MemoryRecord
from caim.memory.search.config import START_WEIGHTS
from caim.memory.search.engine import records_of, scoring
from caim.memory.search.relevance import RELEVANCE_FLOOR
from caim.memory.search.retrieval import DEFAULT_WEIGHTS, DENSE_ONLY, LEXICAL_ONLY, Query, Retriever, Weights
from caim.memory.storage.store import MemoryStore
from caim.memory.text.timeref import find_expressions, resolve
from caim.ontology import Ontology, TagIndex

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
KS = (5, 10, 20)
SYSTEMS = ("dense", "bm25", "tags+time", "caim")
#: Peer memory layers, searched without an LLM (``caim.eval.peers``).
PEER_SYSTEMS = tuple(PEERS)
ALL_SYSTEMS = SYSTEMS + PEER_SYSTEMS
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


def answered_turns(turns: Sequence[DatasetTurn]) -> list[str]:
    """Per turn, the text of the one just before it in its session when another speaker said it
    (else ``""``): what the turn answers.

    >>> t = lambda who, n, s="s1": DatasetTurn(f"D:{n}", who, f"{who}{n}", datetime(2023, 1, 1), s, n)
    >>> answered_turns([t("A", 0), t("B", 1), t("B", 2), t("A", 0, "s2")])
    ['', 'A0', '', '']
    """
    out = [""] * len(turns)
    for j in range(1, len(turns)):
        before, t = turns[j - 1], turns[j]
        if before.session == t.session and before.number == t.number - 1 and before.speaker != t.speaker:
            out[j] = before.text
    return out


def capture(
    store: MemoryStore, tagger: TagIndex, ontology: Ontology, conv: Conversation, user_id: str, batch: int = 256
) -> int:
    """Store every turn of the conversation as a raw record (one embedding per turn), with the turn
    before it in its session as context when the other speaker said it (as a reply's record holds
    the turn it answered)."""
    count = 0
    asked = answered_turns(conv.turns)
    for i in range(0, len(conv.turns), batch):
        records: list[MemoryRecord] = []
        for j, t in enumerate(conv.turns[i : i + batch], start=i):
            records.append(
                raw_record(
                    user_id=user_id,
                    session_id=t.session,
                    turn=t.number,
                    text=t.text,
                    when=t.time,
                    tags=["personal"],  # every turn under one tag, as the ranking was fitted
                    speaker=t.speaker,
                    turn_id=t.dia_id,
                    role="user" if t.speaker == conv.speakers[0] else "assistant",
                    asked=asked[j],
                )
            )
        vecs = store.embed([r.embedded_text() for r in records])
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
    questions: list[dict] = field(default_factory=list)


def run(
    data: str | Path,
    out_dir: str | Path,
    embedder: Embedder,
    *,
    systems: Sequence[str] = SYSTEMS,
    samples: Sequence[str] | None = None,
    progress: Progress | None = None,
    plot: bool = True,
    cv: bool = False,
) -> dict:
    """Capture, search, score and report; returns the summary written to ``results.json``.

    ``systems`` may name caim's systems (``SYSTEMS``) and peers (``PEER_SYSTEMS``): every system
    searches the same conversations with the same ``embedder`` and is scored the same way.
    ``run.json`` records the run: data, systems, embedder, package versions and each peer's settings.
    With ``cv`` the summary's ``cv`` entry compares caim's recall under its shipped weights, under
    weights fitted on every conversation, and leave-one-conversation-out (``cross_validation``).

    Raises:
        ConfigError: an unknown system, a peer whose package cannot be imported, or unusable data.
    """
    unknown = [s for s in systems if s not in ALL_SYSTEMS]
    if unknown or not systems:
        raise ConfigError(
            f"unknown retrieval system(s) {', '.join(unknown) or '(none)'}; choose from: {', '.join(ALL_SYSTEMS)}"
        )
    started_at = datetime.now(UTC).isoformat()
    convs = load(data, samples)
    peers = {name: retrieval_peer(name, embedder) for name in systems if name in PEER_SYSTEMS}
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    try:
        bench = _Bench(embedder, peers, progress)
        started = time.perf_counter()
        capture_s = bench.capture_all(convs)
        scores = bench.ask_all(convs, systems)
        fitted = cross_validation(bench.cases(convs), progress) if cv else None
        if fitted is not None:
            fitted["floor"] = floor_validation(bench.rated(convs))
    finally:
        for peer in peers.values():
            peer.close()
    total_turns = sum(len(c.turns) for c in convs)
    info = {
        "data": str(data),
        "conversations": [c.sample_id for c in convs],
        "turns": total_turns,
        "questions": sum(len(c.questions) for c in convs),
        "embedder": embedder.name,
        "capture_seconds": round(capture_s, 1),
        "capture_per_second": round(total_turns / capture_s, 1) if capture_s else None,
        "seconds": round(time.perf_counter() - started, 1),
    }
    if peers:
        info["peer_capture_seconds"] = {name: round(s, 1) for name, s in bench.peer_capture_s.items()}
    summary = summarize(scores, info)
    if fitted is not None:
        summary["cv"] = fitted
    run_info = {
        "benchmark": "locomo-retrieval",
        "started_at": started_at,
        "finished_at": datetime.now(UTC).isoformat(),
        "systems": list(systems),
        "samples": list(samples) if samples else None,
        "info": info,
        "packages": {p: peer_version(p) for p in ("caim", "langgraph", "langchain-core", "onnxruntime")},
        "peers": {name: peer.info() for name, peer in peers.items()},
    }
    (out / "run.json").write_text(json.dumps(run_info, indent=2, default=str), encoding="utf-8")
    (out / "results.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    with (out / "questions.jsonl").open("w", encoding="utf-8") as fh:
        for name, sc in scores.items():
            fh.writelines(json.dumps({"system": name, **row}) + "\n" for row in sc.questions)
    (out / "report.md").write_text(render(summary, "report.png" if plot else None), encoding="utf-8")
    if plot:
        plot_summary(summary, out / "report.png")
    return summary


class _Bench:
    """One run's stores: caim's records (one in-memory store, a user id per conversation) and
    each peer's memory; capture fills them, ``ask_all`` searches and scores every system."""

    def __init__(self, embedder: Embedder, peers: dict[str, RetrievalPeer], progress: Progress | None):
        self.store = MemoryStore(None, embedder)
        self.retriever = Retriever(self.store)
        self.ontology = Ontology.default()
        self.tagger = TagIndex(embedder)
        self.peers = peers
        self.progress = progress
        self.peer_capture_s = dict.fromkeys(peers, 0.0)

    def capture_all(self, convs: list[Conversation]) -> float:
        """Capture every conversation into caim's store, then into each peer; caim's seconds."""
        total = sum(len(c.turns) for c in convs)
        done = 0
        capture_s = 0.0
        for conv in convs:
            t0 = time.perf_counter()
            done += capture(self.store, self.tagger, self.ontology, conv, user_of(conv.sample_id))
            capture_s += time.perf_counter() - t0
            if self.progress:
                self.progress("capture", done, total)
        for name, peer in self.peers.items():
            done = 0
            for conv in convs:
                t0 = time.perf_counter()
                peer.add(user_of(conv.sample_id), peer_turns(conv))
                self.peer_capture_s[name] += time.perf_counter() - t0
                done += len(conv.turns)
                if self.progress:
                    self.progress(f"capture {name}", done, total)
        return capture_s

    def ask_all(self, convs: list[Conversation], systems: Sequence[str]) -> dict[str, Scores]:
        """Every question to every system: recall of its evidence turns and the search latency."""
        scores = {s: Scores() for s in systems}
        total = sum(len(c.questions) for c in convs)
        asked = 0
        for conv in convs:
            for q in conv.questions:
                for name in systems:
                    t0 = time.perf_counter()
                    hits = self.search(name, conv, q.text, max(KS))
                    scores[name].latency_ms.append((time.perf_counter() - t0) * 1000)
                    score(scores[name], q, hits)
                    scores[name].questions.append(question_row(conv, q, hits))
                asked += 1
                if self.progress:
                    self.progress("questions", asked, total)
        return scores

    def cases(self, convs: list[Conversation]) -> list[Case]:
        """Every question of ``convs`` ready to rank under any weights (``caim.eval.fit``)."""
        out = []
        for conv in convs:
            user = user_of(conv.sample_id)
            for q in conv.questions:
                query = _query(q.text, conv, self.tagger, self.ontology, self.store.embed([q.text])[0])
                s = scoring(self.retriever.prepare(user), query, ALL_SIGNALS)
                if s is not None:
                    turns = [_turn_ids(rec) for rec in records_of(self.store, user, s)]
                    out.append(Case.of(conv.sample_id, q.category, q.text, s, turns, q.evidence))
        return out

    def rated(self, convs: list[Conversation]) -> list[Rated]:
        """Every question of ``convs`` with caim's top ``max(KS)`` records and no relevance floor:
        each record's relevance and turn ids (``floor_validation``)."""
        out = []
        for conv in convs:
            user = user_of(conv.sample_id)
            for q in conv.questions:
                vec = self.store.embed([q.text])[0]
                query = replace(_query(q.text, conv, self.tagger, self.ontology, vec), min_relevance=0.0)
                found = self.retriever.search(user, query, max(KS), DEFAULT_WEIGHTS)
                hits = [
                    (h.relevance, frozenset(t for s in h.record.sources if s.turn_id for t in s.turn_id.split("+")))
                    for h in found
                ]
                out.append(Rated(conv.sample_id, frozenset(q.evidence), hits))
        return out

    def search(self, name: str, conv: Conversation, text: str, k: int) -> list[set[str]]:
        """System ``name``'s top ``k`` for ``text`` in ``conv``, each result as the turn ids it holds."""
        user = user_of(conv.sample_id)
        if name in self.peers:
            return [{h.turn_id} if h.turn_id else set() for h in self.peers[name].search(user, text, k)]
        vec = self.store.embed([text])[0]
        query = _query(text, conv, self.tagger, self.ontology, vec)
        if name == "tags+time":
            recs = _tags_time(self.store, user, query, k)
        else:
            recs = [h.record for h in self.retriever.search(user, query, k, WEIGHTS[name])]
        return [{s.turn_id for s in r.sources if s.turn_id} for r in recs]


def score(scores: Scores, q: Question, hits: list[set[str]]) -> None:
    """Add ``q``'s recall@k for every ``k`` to ``scores``: the share of its evidence turns held by
    the first ``k`` results (``hits``: each result's turn ids, best first)."""
    evidence = set(q.evidence)
    for k in KS:
        found = set().union(*hits[:k])
        scores.recall[k].append((q.category, len(found & evidence) / len(q.evidence)))


def question_row(conv: Conversation, q: Question, hits: list[set[str]]) -> dict:
    """One line of ``questions.jsonl``: the question, its recall at each k, and the rank (0 = first)
    of each of its evidence turns among ``hits`` (``None``: not among them).

    >>> q = Question("3", "Where did Ann go?", 4, ["D1:2", "D2:5"])
    >>> conv = Conversation("conv-x", ("Ann", "Bob"), [], [q], datetime(2023, 1, 1))
    >>> row = question_row(conv, q, [{"D1:1"}, {"D2:5"}])
    >>> row["recall@5"], row["evidence_rank"]
    (0.5, {'D1:2': None, 'D2:5': 1})
    """
    rank: dict[str, int] = {}
    for i, found in enumerate(hits):
        for t in found:
            rank.setdefault(t, i)
    row: dict = {"conversation": conv.sample_id, "qid": q.qid, "category": CATEGORIES[q.category], "question": q.text}
    for k in KS:
        row[f"recall@{k}"] = round(sum(rank.get(e, k) < k for e in q.evidence) / len(q.evidence), 4)
    row["evidence_rank"] = {e: rank.get(e) for e in q.evidence}
    return row


def ranking_cases(convs: list[Conversation], embedder: Embedder) -> tuple[list[Case], Retriever]:
    """Every question of ``convs`` ready to rank under any weights, after their turns are captured
    into a fresh in-memory store, and the retriever that reads that store."""
    bench = _Bench(embedder, {}, None)
    bench.capture_all(convs)
    return bench.cases(convs), bench.retriever


def _turn_ids(rec: MemoryRecord | None) -> frozenset[str]:
    return frozenset(s.turn_id for s in rec.sources if s.turn_id) if rec else frozenset()


def cross_validation(cases: list[Case], progress: Progress | None = None) -> dict:
    """caim's recall under its shipped weights, under weights fitted on all ``cases``, and with each
    conversation's questions ranked by weights fitted on the other conversations only.

    Returns:
        ``{"dev"|"fitted"|"cross-validated": {f"recall@{k}": {category: mean}}, "weights": ...}``.
    """
    report = lambda done, total: progress("fit (leave one out)", done, total) if progress else None  # noqa: E731
    folds = fit.cross_validate(cases, START_WEIGHTS, progress=report)
    everything = fit.fit(cases, START_WEIGHTS)
    held = fit.pooled(folds)
    return {
        "dev": _recall_cells([(c, fit.recalls(c, DEFAULT_WEIGHTS)) for c in cases]),
        "fitted": _recall_cells([(c, fit.recalls(c, everything)) for c in cases]),
        "cross-validated": _recall_cells(held),
        "weights": {
            "start": asdict(START_WEIGHTS),
            "shipped": asdict(DEFAULT_WEIGHTS),
            "fitted": asdict(everything),
            "folds": {f.left_out: asdict(f.weights) for f in folds},
        },
    }


@dataclass(frozen=True)
class Rated:
    """A question's search without a relevance floor: its conversation, its evidence turns, and per
    record found (best first) its relevance and the turn ids it holds."""

    conversation: str
    evidence: frozenset[str]
    hits: list[tuple[float, frozenset[str]]]


def floor_recall(rated: Sequence[Rated], floor: float, k: int = 10) -> float:
    """Mean share of each question's evidence turns among its first ``k`` records at or above ``floor``."""
    shares = []
    for r in rated:
        held = set().union(*[ids for rel, ids in r.hits if rel >= floor][:k])
        shares.append(len(held & r.evidence) / len(r.evidence))
    return float(np.mean(shares)) if shares else 0.0


def fit_floor(rated: Sequence[Rated], k: int = 10) -> float:
    """The highest relevance floor (to the hundredth, rounded down) that drops no record holding
    evidence from the first ``k`` of any question: the least relevance such a record has."""
    held = [rel for r in rated for rel, ids in r.hits[:k] if ids & r.evidence]
    return math.floor(min(held, default=0.0) * 100) / 100


def floor_cut(rated: Sequence[Rated], floor: float, k: int = 10) -> float:
    """Share of the records among the first ``k`` (no floor) that hold no evidence and ``floor`` drops."""
    others = [rel for r in rated for rel, ids in r.hits[:k] if not ids & r.evidence]
    return sum(rel < floor for rel in others) / len(others) if others else 0.0


def floor_validation(rated: Sequence[Rated], k: int = 10) -> dict:
    """The relevance floor fitted on every conversation and on all but each one in turn: recall@``k``
    with no floor, with the shipped floor, with the floor fitted on all conversations, and with each
    conversation searched under the floor fitted on the others (pooled); and the share of the other
    records among the first ``k`` each drops."""
    convs = sorted({r.conversation for r in rated})
    folds = {c: fit_floor([r for r in rated if r.conversation != c], k) for c in convs}
    held = [floor_recall([r for r in rated if r.conversation == c], f, k) for c, f in folds.items()]
    sizes = [sum(r.conversation == c for r in rated) for c in convs]
    pooled = float(np.average(held, weights=sizes)) if sizes else 0.0
    cut = [floor_cut([r for r in rated if r.conversation == c], f, k) for c, f in folds.items()]
    fitted = fit_floor(rated, k)
    return {
        "k": k,
        "shipped": RELEVANCE_FLOOR,
        "fitted": fitted,
        "folds": folds,
        "recall": {
            "no floor": round(floor_recall(rated, 0.0, k), 4),
            "shipped floor": round(floor_recall(rated, RELEVANCE_FLOOR, k), 4),
            "fitted on all": round(floor_recall(rated, fitted, k), 4),
            "leave one out": round(pooled, 4),
        },
        "others dropped": {
            "shipped floor": round(floor_cut(rated, RELEVANCE_FLOOR, k), 4),
            "leave one out": round(float(np.average(cut, weights=sizes)) if sizes else 0.0, 4),
        },
    }


def _recall_cells(rows: list[tuple[Case, tuple[float, ...]]]) -> dict:
    cells = {}
    for i, k in enumerate(fit.KS):
        cell = {"all": _mean([r[i] for _, r in rows])}
        for cat, label in CATEGORIES.items():
            cell[label] = _mean([r[i] for c, r in rows if c.category == cat])
        cells[f"recall@{k}"] = cell
    return cells


def user_of(sample_id: str) -> str:
    """The user id a LoCoMo conversation's turns are captured under."""
    return f"locomo:{sample_id}"


def peer_turns(conv: Conversation) -> list[PeerTurn]:
    """The conversation's turns as peers store them (dialogue id, speaker, words, role)."""
    return [
        PeerTurn(t.dia_id, t.speaker, t.text, "user" if t.speaker == conv.speakers[0] else "assistant")
        for t in conv.turns
    ]


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
    if "cv" in summary:
        lines += ["", *render_cv(summary["cv"])]
    if plot_file:
        lines += ["", f"![recall]({plot_file})"]
    return "\n".join(lines) + "\n"


#: The rows of the cross-validation table, in order, with their labels.
CV_ROWS = {
    "dev": "caim, shipped weights",
    "fitted": "caim, weights fitted on all conversations",
    "cross-validated": "caim, leave one conversation out",
}


def cv_rows(cv: dict, k: int = 10) -> list[list[str]]:
    """The cross-validation table's rows at recall@``k``: label, then all and each category."""
    labels = ["all", *CATEGORIES.values()]
    return [[title, *(fmt(cv[key][f"recall@{k}"][lab]) for lab in labels)] for key, title in CV_ROWS.items()]


def render_cv(cv: dict) -> list[str]:
    """The report's cross-validation section: recall@10 side by side and the weights."""
    labels = ["all", *CATEGORIES.values()]
    lines = [
        "## Cross-validation (`--cv`)",
        "",
        "recall@10 of caim's ranking under the weights it ships with, under weights fitted on all "
        "conversations (in-sample), and with each conversation ranked by weights fitted on the others "
        "only (`caim.eval.fit`: coordinate search on the mean of recall@5/10/20, from the start recipe "
        "below, a change kept when it gains at least a tenth of a point; "
        f"{' and '.join(n for n in cv['weights']['start'] if n not in fit.FITTED)} held at the start's).",
        "",
        *markdown_table(["ranking", *labels], cv_rows(cv)),
        "",
    ]
    names = list(cv["weights"]["shipped"])
    rows = [[key, *(str(cv["weights"][key][n]) for n in names)] for key in ("start", "shipped", "fitted")]
    rows += [[f"without {conv}", *(str(w[n]) for n in names)] for conv, w in cv["weights"]["folds"].items()]
    lines += ["Weights:", "", *markdown_table(["weights", *names], rows)]
    return lines + render_floor(cv["floor"]) if "floor" in cv else lines


def render_floor(floor: dict) -> list[str]:
    """The report's relevance-floor section: the floors fitted, recall with each, what they drop."""
    k = floor["k"]
    recall = [[name, fmt(value)] for name, value in floor["recall"].items()]
    folds = ", ".join(f"without {c}: {f:.2f}" for c, f in floor["folds"].items())
    dropped = floor["others dropped"]
    return [
        "",
        "## Relevance floor (`--cv`)",
        "",
        f"The search returns only records whose relevance (0 to 1, `caim.memory.search.relevance`) reaches the "
        f"floor. Fitted: the least relevance of a record holding evidence among the first {k} of any question "
        f"(no evidence dropped), on all conversations {floor['fitted']:.2f}, leaving each out: {folds}; "
        f"shipped {floor['shipped']:.2f}.",
        "",
        *markdown_table(["floor", f"recall@{k}"], recall),
        "",
        f"Records among the first {k} that hold no evidence and the floor drops: {dropped['shipped floor']:.1%} "
        f"(shipped floor), {dropped['leave one out']:.1%} (leave one out).",
    ]


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
