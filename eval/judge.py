"""The LLM judge of the benchmark: builds the reference material and rates answers per metric.

One ``Judge`` wraps one chat model (role ``judge``) and the versioned prompts of
``caim.prompts.judge``. Calls go through the graph's ``LLM.structured`` (schema-constrained output,
validation, one retry), so a malformed verdict becomes ``score: None`` with the error recorded,
never a guessed score. What the judge measures against:

- GVD (no reference answers): the user's whole history, clipped to ``history_tokens`` by
  shortening the assistant's replies step by step and, only if the user's own messages alone are
  still too long, dropping the oldest lines (noted in the material).
- LoCoMo: the reference answer plus the evidence turns it comes from (category 5: the note that
  the conversation never says it, with the tempting wrong answer).
Stored memories shown for ``memory_storage`` are clipped to ``memory_tokens``; if they do not all
fit, the entries sharing most words with the question are kept (and the prompt says so).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from langchain_core.language_models import BaseChatModel

from caim.core.llm import LLM
from caim.core.models import Models
from caim.core.settings import Settings
from caim.core.trace import usage
from caim.eval.dataset import Conversation, Question
from caim.memory.stm import estimate_tokens
from caim.prompts import judge as prompt

REPLY_LIMITS = (None, 1200, 600, 300, 150, 60, 0)
#: Default budgets (estimated tokens) of the material shown to a hosted judge.
DEFAULT_HISTORY_TOKENS = 12_000
DEFAULT_MEMORY_TOKENS = 4_000


def clip_history(conv: Conversation, budget_tokens: int) -> str:
    """The conversation's dated transcript within ``budget_tokens`` (estimated)."""
    for limit in REPLY_LIMITS:
        lines = conv.transcript_lines(reply_limit=limit)
        if sum(estimate_tokens(line) for line in lines) <= budget_tokens:
            if limit is not None:
                note = f"[the assistant's replies are shortened to {limit} characters]"
                lines = [note if limit else "[only the user's messages are shown]", *lines]
            return "\n".join(lines)
    lines = conv.transcript_lines(reply_limit=0)
    kept: list[str] = []
    used = 0
    for line in reversed(lines):
        used += estimate_tokens(line)
        if used > budget_tokens:
            break
        kept.append(line)
    kept.reverse()
    return "\n".join([f"[only the user's messages are shown; the {len(lines) - len(kept)} oldest are omitted]", *kept])


def answer_reference(conv: Conversation, q: Question) -> str:
    """Reference answer plus its evidence turns (LoCoMo style)."""
    lines = []
    if q.category == 5 or q.reference is None:
        lines.append(
            "Reference answer: the conversation never gives this information, so a correct answer says "
            "it is not known or was not mentioned."
        )
        if q.adversarial_answer:
            lines.append(f"(A tempting but wrong answer would be: {q.adversarial_answer})")
    else:
        lines.append(f"Reference answer: {q.reference}")
    ev = [e for e in q.evidence if e in conv.turn_text]
    if ev:
        lines.append("Evidence turns:")
        lines += [f"[{e}] {conv.turn_where.get(e, '')}: {conv.turn_text[e]}" for e in ev]
    return "\n".join(lines)


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]{3,}", text.lower()))


def clip_memories(records: list[dict], question: str, budget_tokens: int) -> tuple[list[dict], str]:
    """(records to show, note). All of them if they fit; else those sharing most words with the question."""
    cost = [estimate_tokens(str(r.get("thought", ""))) + 6 for r in records]
    if sum(cost) <= budget_tokens:
        return records, ""
    q = _words(question)
    order = sorted(range(len(records)), key=lambda i: -len(q & _words(str(records[i].get("thought", "")))))
    keep: list[int] = []
    used = 0
    for i in order:
        if used + cost[i] > budget_tokens:
            continue
        keep.append(i)
        used += cost[i]
    keep.sort()
    note = f"{len(keep)} of {len(records)} entries: those sharing most words with the question"
    return [records[i] for i in keep], note


def model_label(model: BaseChatModel) -> str:
    """A readable name for a chat model (report)."""
    for attr in ("model_name", "model", "model_id"):
        v = getattr(model, attr, None)
        if isinstance(v, str) and v:
            return v
    role = getattr(model, "role", None)
    return f"{type(model).__name__}" + (f"({role})" if isinstance(role, str) else "")


class Judge:
    """Rates answers with the ``judge`` role; thread-safe (no per-call state)."""

    def __init__(
        self,
        model: BaseChatModel,
        settings: Settings | None = None,
        *,
        label: str | None = None,
        history_tokens: int = DEFAULT_HISTORY_TOKENS,
        memory_tokens: int = DEFAULT_MEMORY_TOKENS,
    ):
        settings = settings or Settings(_env_file=None)  # type: ignore[call-arg]  # pydantic-settings' init option: mypy sees the fields only
        self.model = model
        self.llm = LLM.of(Models(settings, overrides={"judge": model}))
        self.label = label or model_label(model)
        self.history_tokens = history_tokens
        self.memory_tokens = memory_tokens
        self._history: dict[int, str] = {}

    @classmethod
    def from_settings(
        cls, settings: Settings, models: Mapping[str, BaseChatModel] | BaseChatModel | None = None, **kw
    ) -> Judge:
        """The judge model: an injected ``judge`` model if given, else the one ``settings`` configure."""
        return cls(Models(settings, overrides=models).for_role("judge"), settings, **kw)

    def info(self) -> dict:
        """The judge's model, prompt version and hash, and token budgets, for the run's record."""
        return {
            "model": self.label,
            "prompt_version": prompt.VERSION,
            "prompt_hash": prompt.prompt_hash(),
            "history_tokens": self.history_tokens,
            "memory_tokens": self.memory_tokens,
        }

    def reference(self, conv: Conversation, q: Question, kind: str) -> str:
        """The judge's reference for ``q``: the answer and its evidence (``kind="answer"``), else the
        conversation's history clipped to ``history_tokens``."""
        if kind == "answer":
            return answer_reference(conv, q)
        key = id(conv)
        if key not in self._history:
            self._history[key] = clip_history(conv, self.history_tokens)
        return self._history[key]

    def rate(
        self,
        metrics: list[str],
        *,
        conv: Conversation,
        question: Question,
        answer: str,
        reference_kind: str,
        retrieved: list[dict] | None = None,
        stored: list[dict] | None = None,
    ) -> tuple[dict, dict]:
        """({metric: {"score", "reason"} or {"score": None, "error"}}, usage of the judge calls)."""
        reference = self.reference(conv, question, reference_kind)
        shown, note = (
            clip_memories(stored or [], question.text, self.memory_tokens) if "memory_storage" in metrics else ([], "")
        )
        verdicts: dict[str, dict] = {}
        trace: list[dict] = []
        for metric in metrics:
            msgs = prompt.messages(
                metric,
                question=question.text,
                answer=answer,
                reference=reference,
                reference_kind="answer" if reference_kind == "answer" else "history",
                retrieved=retrieved,
                stored=shown,
                stored_note=note,
            )
            verdict = self.llm.structured("judge", prompt.SCHEMAS[metric], msgs, trace=trace, node=f"judge:{metric}")
            if verdict is not None:
                verdicts[metric] = {"score": float(verdict.score), "reason": verdict.reason.strip()}
            else:
                verdicts[metric] = {"score": None, "error": trace[-1].get("error", "judge failed")}
        u = usage(trace)
        return verdicts, {
            "calls": u["llm_calls"],
            "input_tokens": u["input_tokens"],
            "output_tokens": u["output_tokens"],
            "ms": u["llm_ms"],
        }
