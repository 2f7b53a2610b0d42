"""The benchmark data model every loader produces and every system replays.

A ``Benchmark`` is a list of ``Conversation``s, one per user (GVD) or per sample (LoCoMo). A
conversation is a list of dated ``Session``s of ``Exchange``s (one user message and the reply that
followed it, as CAIM's short-term memory pairs them) plus the probing ``Question``s asked after
the history. Times are timezone-aware (UTC); turn ids (LoCoMo ``dia_id``) travel with the
exchanges so evidence recall can be computed from the records' sources.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta


@dataclass
class Exchange:
    """One user message and the reply that followed it (either may be empty in LoCoMo)."""

    user: str
    assistant: str
    time: datetime
    user_ids: list[str] = field(default_factory=list)
    assistant_ids: list[str] = field(default_factory=list)

    @property
    def message_id(self) -> str | None:
        """Id for the user's message in the graph state: its turn ids joined with ``+``."""
        return "+".join(self.user_ids) or None


@dataclass
class Session:
    """One dated session (a GVD day, a LoCoMo session)."""

    label: str
    exchanges: list[Exchange]
    spacing: timedelta = timedelta(minutes=3)

    @property
    def start(self) -> datetime:
        """When the session opens: the time of its first exchange."""
        return self.exchanges[0].time

    @property
    def end(self) -> datetime:
        """When the session is closed (post-thinking runs): one spacing after the last exchange."""
        return self.exchanges[-1].time + self.spacing


@dataclass
class Question:
    """A probing question; ``reference``/``evidence``/``category`` only where the data set has them,
    ``keywords`` where labels give them (``caim.eval.metrics.keyword_correct``).

    ``qid`` is stable across runs (the question's position in the data file), so results can be
    resumed; ``instruction`` is appended to the text sent to the systems (LoCoMo: short answers).
    """

    qid: str
    text: str
    reference: str | None = None
    category: int | None = None
    evidence: list[str] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)
    adversarial_answer: str | None = None
    instruction: str = ""

    @property
    def prompt(self) -> str:
        """What the systems are asked."""
        return f"{self.text} {self.instruction}".strip() if self.instruction else self.text


@dataclass
class Conversation:
    """One user's dated history and the questions asked after it.

    ``user_label``/``assistant_label`` name the two sides in transcripts; with ``name_prefix`` the
    replay puts the speaker's name before each message (LoCoMo, where both sides are people and
    questions name them). ``turn_text`` maps a turn id to its text (evidence recall), ``turn_where`` to
    ``(YYYY-MM-DD HH:MM) Speaker`` (how the judge is shown evidence turns).
    """

    user: str
    sessions: list[Session]
    questions: list[Question]
    probe_time: datetime
    user_label: str = "User"
    assistant_label: str = "Assistant"
    name_prefix: bool = False
    turn_text: dict[str, str] = field(default_factory=dict)
    turn_where: dict[str, str] = field(default_factory=dict)

    def user_text(self, ex: Exchange) -> str:
        """The exchange's user turn, prefixed with the user's name when ``name_prefix`` is set."""
        if self.name_prefix and ex.user:
            return f"{self.user_label}: {ex.user}"
        return ex.user

    def assistant_text(self, ex: Exchange) -> str:
        """The exchange's assistant turn, prefixed with the assistant's name when ``name_prefix`` is set."""
        if self.name_prefix and ex.assistant:
            return f"{self.assistant_label}: {ex.assistant}"
        return ex.assistant

    def transcript_lines(self, reply_limit: int | None = None) -> list[str]:
        """The whole history as dated lines ``(YYYY-MM-DD HH:MM) Speaker: text``, oldest first;
        ``reply_limit`` shortens the assistant's side to that many characters (0 drops it)."""
        lines = []
        for s in self.sessions:
            for ex in s.exchanges:
                when = ex.time.strftime("%Y-%m-%d %H:%M")
                if ex.user:
                    lines.append(f"({when}) {self.user_label}: {ex.user}")
                text = ex.assistant
                if reply_limit is not None and len(text) > reply_limit:
                    text = text[:reply_limit] + " …" if reply_limit > 0 else ""
                if text:
                    lines.append(f"({when}) {self.assistant_label}: {text}")
        return lines

    @property
    def n_exchanges(self) -> int:
        """How many exchanges the sessions hold."""
        return sum(len(s.exchanges) for s in self.sessions)


#: ``scorer(conversation, question, answer_text, retrieved_records, candidate_records) -> metrics``;
#: the record lists are ``None`` for systems without retrieval.
Scorer = Callable[["Conversation", Question, str, "list[dict] | None", "list[dict] | None"], dict]


@dataclass
class Benchmark:
    """A loaded data set and how it is scored.

    ``reference_kind`` tells the judge what to measure against: ``history`` (the user's whole
    history, GVD) or ``answer`` (reference answer plus evidence turns, LoCoMo). ``scorer`` adds
    code-computed metrics per answer (LoCoMo F1, evidence recall); ``info`` goes into the report.
    """

    name: str
    conversations: list[Conversation]
    reference_kind: str = "history"
    scorer: Scorer | None = None
    info: dict = field(default_factory=dict)
    #: The replayed "assistant" is a person (LoCoMo's second speaker): what it tells of itself is memory.
    persona: bool = False

    @property
    def n_questions(self) -> int:
        """How many questions the conversations hold."""
        return sum(len(c.questions) for c in self.conversations)
