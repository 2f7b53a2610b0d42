"""LoCoMo (long-term conversational memory QA): loader and scorer.

The file is LoCoMo's JSON: a list of samples, each with ``sample_id``, ``conversation`` (names in
``speaker_a``/``speaker_b``; ``session_N`` lists of turns ``{speaker, dia_id, text}``, optionally
with an image caption ``blip_caption``; ``session_N_date_time`` such as ``"1:56 pm on 8 May,
2023"``) and ``qa`` items (``question``, ``answer``, ``evidence`` dia ids, ``category`` 1-5; category
5 is adversarial, with ``adversarial_answer`` and usually no answer). Nothing of LoCoMo ships
with caim: pass the file you have.

Replay: ``speaker_a`` plays the user and ``speaker_b`` the assistant. Consecutive turns of one
speaker are joined into one message; the user message's id is its dia ids joined with ``+``, so
records' ``sources[].turn_id`` name them (the assistant side carries no id: evidence from it is
found through the source text). Both sides are people and the questions name them, so by default
each message starts with its speaker's name. Turns of a session are ``spacing_minutes`` apart from
the session's date-time; questions are asked the day after the last session, at 09:00, each with a
short-answer instruction appended (LoCoMo's F1 rewards short answers).

Scoring per answer: LoCoMo token F1 and keyword-correct (categories 1-4), abstention for category 5, and the evidence
recall of the retrieved records and of the fetched candidates (systems with retrieval only).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import UTC, datetime, time, timedelta
from functools import partial
from pathlib import Path

from caim.core.errors import ConfigError
from caim.eval.dataset import Benchmark, Conversation, Exchange, Question, Session
from caim.eval.metrics import Stemmer, evidence_ids, evidence_recall, is_abstention, locomo_f1, reference_correct

SHORT_ANSWER = "(Answer with a short phrase, using the exact words from the conversations where possible.)"
_SESSION = re.compile(r"^session_(\d+)$")
_DATE_FORMATS = ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%I:%M %p on %B %d, %Y", "%I:%M%p on %d %B, %Y")


def parse_locomo_datetime(text: str) -> datetime | None:
    """``"1:56 pm on 8 May, 2023"`` -> aware UTC datetime; ``None`` if it cannot be read."""
    s = " ".join(str(text or "").split())
    if not s:
        return None
    for fmt in _DATE_FORMATS:  # strptime matches month names and am/pm case-insensitively
        try:
            return datetime.strptime(s, fmt).replace(tzinfo=UTC)
        except ValueError:
            pass
    try:
        from dateutil import parser

        dt = parser.parse(s.replace(" on ", " "), fuzzy=True)
        return dt if dt.tzinfo else dt.replace(tzinfo=UTC)
    except (ValueError, OverflowError):
        return None


def locomo_turn_text(turn: dict) -> str:
    """A LoCoMo turn's text on one line, with the caption of an image it shares."""
    text = " ".join(str(turn.get("text", "") or "").split())
    caption = " ".join(str(turn.get("blip_caption", "") or "").split())
    if caption:
        text = f"{text} [shared an image: {caption}]".strip()
    return text


def _messages(turns: list[dict], speaker_a: str) -> list[tuple[bool, list[str], str]]:
    """Consecutive turns of one speaker joined: [(is_user, dia_ids, text)]."""
    out: list[tuple[bool, list[str], str]] = []
    for t in turns:
        text = locomo_turn_text(t)
        if not text:
            continue
        is_user = str(t.get("speaker", "")).strip() == speaker_a
        did = str(t.get("dia_id", "")).strip()
        if out and out[-1][0] == is_user:
            prev = out[-1]
            out[-1] = (is_user, prev[1] + ([did] if did else []), f"{prev[2]}\n{text}")
        else:
            out.append((is_user, [did] if did else [], text))
    return out


def _exchanges(turns: list[dict], a: str, start: datetime, spacing: timedelta) -> list[Exchange]:
    """One session's turns as exchanges starting at ``start``, ``spacing`` apart (``a`` speaks as the
    user; a reply without a question before it opens an exchange of its own)."""
    exchanges: list[Exchange] = []
    i = 0
    for is_user, ids, text in _messages(turns, a):
        when = start + i * spacing
        if is_user or not exchanges or exchanges[-1].assistant:
            exchanges.append(
                Exchange(
                    user=text if is_user else "",
                    assistant="" if is_user else text,
                    time=when,
                    user_ids=ids if is_user else [],
                    assistant_ids=[] if is_user else ids,
                )
            )
            i += 1
        else:
            exchanges[-1].assistant = text
            exchanges[-1].assistant_ids = ids
    return exchanges


def _index_turns(
    turns: list[dict],
    exchanges: list[Exchange],
    speakers: tuple[str, str],
    turn_text: dict[str, str],
    turn_where: dict[str, str],
) -> None:
    """Add each turn's text (by dialogue id) to ``turn_text`` and its time and speaker to ``turn_where``."""
    for t in turns:
        did = str(t.get("dia_id", "")).strip()
        if did:
            turn_text[did] = locomo_turn_text(t)
    a, b = speakers
    for ex in exchanges:
        stamp = ex.time.strftime("%Y-%m-%d %H:%M")
        for ids, who in ((ex.user_ids, a), (ex.assistant_ids, b)):
            for did in ids:
                turn_where[did] = f"({stamp}) {who}"


def _questions(sample: dict, categories: set[int] | None, instruction: str) -> list[Question]:
    """The sample's questions with text, in the ``categories`` asked for (all when None or empty)."""
    questions = []
    for qi, qa in enumerate(sample.get("qa") or []):
        try:
            cat = int(qa.get("category"))
        except (TypeError, ValueError):
            cat = None
        if categories and cat not in categories:
            continue
        text = " ".join(str(qa.get("question", "")).split())
        if not text:
            continue
        ref = qa.get("answer")
        questions.append(
            Question(
                qid=str(qi),
                text=text,
                reference=None if ref is None else str(ref),
                category=cat,
                evidence=evidence_ids(qa.get("evidence")),
                adversarial_answer=qa.get("adversarial_answer"),
                instruction=instruction,
            )
        )
    return questions


def _conversation(
    sample: dict,
    index: int,
    *,
    sessions_limit: int | None,
    spacing: timedelta,
    categories: set[int] | None,
    instruction: str,
    speaker_names: bool,
) -> Conversation:
    conv = sample.get("conversation") or {}
    sid = str(sample.get("sample_id") or f"sample-{index}")
    a = str(conv.get("speaker_a") or "User").strip()
    b = str(conv.get("speaker_b") or "Assistant").strip()
    numbers = sorted(int(m.group(1)) for k in conv if (m := _SESSION.match(k)) and isinstance(conv[k], list))
    sessions: list[Session] = []
    turn_text: dict[str, str] = {}
    turn_where: dict[str, str] = {}
    last: datetime | None = None
    for n in numbers:
        turns = conv[f"session_{n}"]
        if not turns:
            continue
        start = parse_locomo_datetime(conv.get(f"session_{n}_date_time", ""))
        if start is None:
            start = (last + timedelta(days=1)) if last else datetime(2023, 1, 1, 9, 0, tzinfo=UTC)
        exchanges = _exchanges(turns, a, start, spacing)
        _index_turns(turns, exchanges, (a, b), turn_text, turn_where)
        if exchanges:
            sessions.append(Session(label=f"session_{n}", exchanges=exchanges, spacing=spacing))
            last = start
        if sessions_limit is not None and len(sessions) >= sessions_limit:
            break
    if not sessions:
        raise ConfigError(f"LoCoMo sample {sid} has no sessions with turns")
    questions = _questions(sample, categories, instruction)
    probe = datetime.combine(sessions[-1].start.date() + timedelta(days=1), time(9, 0), tzinfo=UTC)
    return Conversation(
        user=sid,
        sessions=sessions,
        questions=questions,
        probe_time=probe,
        user_label=a,
        assistant_label=b,
        name_prefix=speaker_names,
        turn_text=turn_text,
        turn_where=turn_where,
    )


def score_locomo(
    conv: Conversation,
    q: Question,
    answer: str,
    retrieved: list[dict] | None,
    candidates: list[dict] | None,
    *,
    stem: Stemmer | None = None,
) -> dict:
    """Code metrics of one answer: ``f1`` and ``keyword_correct`` (every word of the reference answer
    in it; 1-4) or ``adversarial_correct`` (5), evidence recalls.
    ``retrieved``/``candidates`` are ``None`` for systems without retrieval (no recall then)."""
    m: dict = {}
    if q.category == 5:
        m["adversarial_correct"] = 1.0 if is_abstention(answer) else 0.0
    elif q.reference is not None:
        m["f1"] = locomo_f1(answer, q.reference, q.category or 4, stem)
        m["keyword_correct"] = reference_correct(answer, q.reference, stem)
    if q.evidence and retrieved is not None:
        m["evidence_recall"] = evidence_recall(q.evidence, retrieved, conv.turn_text)
        m["candidate_evidence_recall"] = evidence_recall(q.evidence, candidates or [], conv.turn_text)
    return m


def porter_stemmer() -> Stemmer:
    """NLTK's Porter stemmer, as LoCoMo's own scoring uses (needs ``pip install nltk``)."""
    try:
        from nltk.stem import PorterStemmer
    except ImportError:
        raise ConfigError("--porter-stem needs NLTK: pip install nltk") from None
    return PorterStemmer().stem


def load_locomo(
    data_file: str | Path,
    *,
    samples: Sequence[str] | None = None,
    sessions: int | None = None,
    categories: Sequence[int] | None = None,
    spacing_minutes: float = 1.0,
    short_answers: bool = True,
    speaker_names: bool = True,
    stem: Stemmer | None = None,
) -> Benchmark:
    """Load a LoCoMo JSON file. ``samples`` picks samples by ``sample_id``; ``sessions`` keeps the
    first N sessions of each; ``categories`` keeps those question categories."""
    path = Path(data_file)
    if not path.is_file():
        raise ConfigError(f"LoCoMo file not found: {path}")
    if sessions is not None and sessions < 1:
        raise ConfigError("--days must be at least 1")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ConfigError(f"{path} is not valid JSON: {exc}") from None
    if isinstance(data, dict):
        data = data.get("samples") or [data]
    if not isinstance(data, list) or not all(isinstance(s, dict) for s in data):
        raise ConfigError(f"{path} is not in LoCoMo format (a list of samples)")
    cats = {int(c) for c in categories} if categories else None
    if cats and not cats <= {1, 2, 3, 4, 5}:
        raise ConfigError("LoCoMo categories are 1 to 5")
    spacing = timedelta(minutes=spacing_minutes)
    convs = [
        _conversation(
            s,
            i,
            sessions_limit=sessions,
            spacing=spacing,
            categories=cats,
            instruction=SHORT_ANSWER if short_answers else "",
            speaker_names=speaker_names,
        )
        for i, s in enumerate(data)
    ]
    if samples:
        wanted = [x.strip() for x in samples if x.strip()]
        have = [c.user for c in convs]
        missing = [x for x in wanted if x not in have]
        if missing:
            raise ConfigError(f"unknown LoCoMo sample(s) {', '.join(missing)}; available: {', '.join(have)}")
        convs = [c for c in convs if c.user in wanted]
    convs = [c for c in convs if c.questions]
    if not convs:
        raise ConfigError(f"no LoCoMo sample with questions in {path}")
    info = {
        "source": str(path),
        "conversations": len(convs),
        "users": ", ".join(c.user for c in convs),
        "days": sessions,
        "sessions": sum(len(c.sessions) for c in convs),
        "exchanges": sum(c.n_exchanges for c in convs),
        "questions": sum(len(c.questions) for c in convs),
        "categories": ",".join(str(c) for c in sorted(cats)) if cats else None,
        "short_answers": short_answers,
        "speaker_names": speaker_names,
        "porter_stem": stem is not None,
        "spacing_minutes": spacing_minutes,
    }
    scorer = partial(score_locomo, stem=stem)
    return Benchmark("locomo", convs, reference_kind="answer", scorer=scorer, info=info, persona=True)
