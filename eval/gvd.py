"""GVD (MemoryBank's generated virtual dataset, English): the loader.

The folder holds ``memory_bank_en.json`` (a dict keyed by user name; some keys carry stray spaces,
stripped here; ``history`` maps ``YYYY-MM-DD`` to ``[{"query", "response"}, ...]``; the other
fields are empty or - ``meta_information`` - the persona used to generate the data, which the
user never said and is therefore ignored) and ``probing_questions_en.jsonl`` (one ``{user:
[questions]}`` per line; no reference answers, so the judge measures against the whole history).

Each non-empty day becomes one session: its turns at 09:00 and every ``spacing_minutes`` after,
post-thinking one spacing after the last turn. The probing questions are asked the day after the
last replayed day, at 09:00. Question ids are the question's position in the user's list.

Turn ids: a user's message is ``DATE#INDEX`` (its place in ``history[DATE]``), the reply after it
``DATE#INDEXa``; records name the user's side in their sources, and ``Conversation.turn_text`` holds
both, so evidence recall finds a reply in a record's source text. GVD has no reference answers;
``labels`` (JSON lines ``{"user", "qid", "keywords": [...], "evidence": [turn ids]}``, e.g.
``caim/eval/labels/gvd_smoke.jsonl``) gives questions the keywords a correct answer holds and the
turns that answer them, and the benchmark then scores keyword-correct and evidence recall.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path

from caim.core.errors import ConfigError
from caim.eval.dataset import Benchmark, Conversation, Exchange, Question, Session
from caim.eval.metrics import evidence_recall, keyword_correct

HISTORY_FILE = "memory_bank_en.json"
QUESTIONS_FILE = "probing_questions_en.jsonl"
DAY_START = time(9, 0)


def _clean_question(q: str) -> str:
    q = " ".join(str(q).split())
    if len(q) > 2 and q[0] == q[-1] == '"':
        q = q[1:-1].strip()
    return q


def _at(day: date, t: time = DAY_START) -> datetime:
    return datetime.combine(day, t, tzinfo=UTC)


def _read_questions(q_path: Path) -> dict[str, list[str]]:
    """The questions file (JSON lines of ``{user: [question, ...]}``) as each user's cleaned questions.

    Raises:
        ConfigError: A line is not valid JSON.
    """
    questions: dict[str, list[str]] = {}
    for n, line in enumerate(q_path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError as exc:
            raise ConfigError(f"{q_path} line {n} is not valid JSON: {exc}") from None
        for name, qs in item.items():
            questions.setdefault(name.strip(), []).extend(_clean_question(q) for q in qs if str(q).strip())
    return questions


def _sessions(
    name: str, history: dict, days: int | None, spacing: timedelta, turn_text: dict[str, str]
) -> list[Session]:
    """One session per non-empty day of ``name``'s history, in date order, the first ``days`` of them;
    each turn's text goes into ``turn_text`` under its id (``DATE#INDEX``, the reply ``DATE#INDEXa``).

    Raises:
        ConfigError: A history key is not a ``YYYY-MM-DD`` date.
    """
    sessions = []
    for day_key in sorted(history):
        turns = [(i, t) for i, t in enumerate(history[day_key] or []) if str(t.get("query", "")).strip()]
        if not turns:
            continue
        try:
            day = date.fromisoformat(day_key.strip())
        except ValueError:
            raise ConfigError(f"GVD user {name}: history key {day_key!r} is not a YYYY-MM-DD date") from None
        start = _at(day)
        exchanges = []
        for n, (i, t) in enumerate(turns):
            tid = f"{day_key.strip()}#{i}"
            user, reply = str(t.get("query", "")).strip(), str(t.get("response", "") or "").strip()
            turn_text[tid] = user
            if reply:
                turn_text[f"{tid}a"] = reply
            exchanges.append(Exchange(user=user, assistant=reply, time=start + n * spacing, user_ids=[tid]))
        sessions.append(Session(label=day_key.strip(), exchanges=exchanges, spacing=spacing))
        if days is not None and len(sessions) >= days:
            break
    return sessions


def read_labels(path: Path) -> dict[tuple[str, str], dict]:
    """A labels file (JSON lines ``{"user", "qid", "keywords", "evidence"}``) by (user, question id).

    Raises:
        ConfigError: The file is missing, or a line is not such an object.
    """
    if not path.is_file():
        raise ConfigError(f"GVD labels not found: {path}")
    out: dict[tuple[str, str], dict] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            key = (str(item["user"]).strip(), str(item["qid"]))
            out[key] = {"keywords": [str(k) for k in item["keywords"]], "evidence": [str(e) for e in item["evidence"]]}
        except (ValueError, KeyError, TypeError) as exc:
            raise ConfigError(f"{path} line {n}: not a label (user, qid, keywords, evidence): {exc}") from None
    return out


def score_gvd(
    conv: Conversation, q: Question, answer: str, retrieved: list[dict] | None, candidates: list[dict] | None
) -> dict:
    """Code metrics of one answer to a labelled question: ``keyword_correct``, and the evidence recalls
    of the retrieved records and the fetched candidates (systems with retrieval); nothing unlabelled."""
    m: dict = {}
    if q.keywords:
        m["keyword_correct"] = keyword_correct(answer, q.keywords)
    if q.evidence and retrieved is not None:
        m["evidence_recall"] = evidence_recall(q.evidence, retrieved, conv.turn_text)
        m["candidate_evidence_recall"] = evidence_recall(q.evidence, candidates or [], conv.turn_text)
    return m


def load_gvd(
    data_dir: str | Path,
    *,
    users: Sequence[str] | None = None,
    days: int | None = None,
    spacing_minutes: float = 3.0,
    labels: str | Path | None = None,
) -> Benchmark:
    """Load GVD from ``data_dir``; ``users`` picks users by name, ``days`` keeps the first N
    non-empty days of each history (shorter runs; questions about later days become unanswerable);
    ``labels``: a labels file (``read_labels``) whose keywords and evidence the questions get."""
    root = Path(data_dir)
    hist_path, q_path = root / HISTORY_FILE, root / QUESTIONS_FILE
    for p in (hist_path, q_path):
        if not p.is_file():
            raise ConfigError(
                f"GVD data not found: {p} is missing "
                f"(--data must be the folder with {HISTORY_FILE} and {QUESTIONS_FILE})"
            )
    if days is not None and days < 1:
        raise ConfigError("--days must be at least 1")
    try:
        bank = json.loads(hist_path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ConfigError(f"{hist_path} is not valid JSON: {exc}") from None
    questions = _read_questions(q_path)

    histories = {name.strip(): (entry or {}).get("history") or {} for name, entry in bank.items()}
    names = [n for n in histories if n in questions]
    if users:
        wanted = [u.strip() for u in users if u.strip()]
        missing = [u for u in wanted if u not in names]
        if missing:
            raise ConfigError(f"unknown GVD user(s) {', '.join(missing)}; available: {', '.join(names)}")
        names = [n for n in names if n in wanted]

    spacing = timedelta(minutes=spacing_minutes)
    labelled = read_labels(Path(labels)) if labels is not None else {}
    convs = []
    for name in names:
        turn_text: dict[str, str] = {}
        sessions = _sessions(name, histories[name], days, spacing, turn_text)
        if not sessions:
            continue
        probe = _at(sessions[-1].start.date() + timedelta(days=1))
        qs = [Question(qid=str(i), text=q, **labelled.get((name, str(i)), {})) for i, q in enumerate(questions[name])]
        convs.append(Conversation(user=name, sessions=sessions, questions=qs, probe_time=probe, turn_text=turn_text))
    if not convs:
        raise ConfigError(f"no GVD user with both history and questions in {root}")
    info = {
        "source": str(root),
        "conversations": len(convs),
        "users": ", ".join(c.user for c in convs),
        "days": days,
        "sessions": sum(len(c.sessions) for c in convs),
        "exchanges": sum(c.n_exchanges for c in convs),
        "questions": sum(len(c.questions) for c in convs),
        "spacing_minutes": spacing_minutes,
    }
    if labels is not None:
        info["labels"] = str(labels)
        info["labelled questions"] = sum(1 for c in convs for q in c.questions if q.keywords or q.evidence)
    return Benchmark("gvd", convs, reference_kind="history", scorer=score_gvd if labelled else None, info=info)
