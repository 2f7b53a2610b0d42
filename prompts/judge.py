"""Judge role (evaluation only): rates one answer of the memory benchmark on one metric.

VERSION 2 (every line of the reference quoted). The four metrics of the CAIM paper, each judged in
its own call with its own schema so one rating cannot colour another:

- ``retrieval_accuracy`` (0 / 1): do the memories the assistant retrieved hold what is needed?
- ``response_correctness`` (0 / 0.5 / 1): is the answer right, measured against the reference?
- ``contextual_coherence`` (0 / 0.5 / 1): is the answer a fluent, on-topic reply to the question?
- ``memory_storage`` (0 / 0.5 / 1): does the assistant's long-term memory hold what is needed?

The reference is the user's whole (clipped) conversation history where the data set has no
reference answers (GVD), or the reference answer with its evidence turns (LoCoMo). Every score
field is a ``Literal`` so a schema-constrained endpoint can only produce a valid rating; the short
``reason`` comes first so the model states its grounds before it scores. ``prompt_hash()`` is
recorded in evaluation reports beside ``VERSION``: change the text, and the hash changes.
"""

from __future__ import annotations

import hashlib
import json
from typing import Literal

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import Field

from caim.prompts.common import DATA_RULE, Answer, data_block, quote

VERSION = 2

_REASON = "One or two sentences: the grounds for the score, naming the facts that matter."


class RetrievalAccuracy(Answer):
    """Retrieval accuracy: 0 or 1, after the reason."""

    reason: str = Field(description=_REASON)
    score: Literal[0, 1] = Field(
        description="1: the retrieved memories hold the information needed; 0: they do not.",
        json_schema_extra={"type": "integer"},
    )


class ResponseCorrectness(Answer):
    """Response correctness: 0, 0.5 or 1, after the reason."""

    reason: str = Field(description=_REASON)
    score: Literal[0, 0.5, 1] = Field(  # type: ignore[valid-type]
        description="1: correct and complete; 0.5: partly correct; 0: wrong, invented or missing.",
        json_schema_extra={"type": "number"},
    )


class ContextualCoherence(Answer):
    """Contextual coherence: 0, 0.5 or 1, after the reason."""

    reason: str = Field(description=_REASON)
    score: Literal[0, 0.5, 1] = Field(  # type: ignore[valid-type]
        description="1: fluent, coherent and on topic; 0.5: partly; 0: incoherent or off topic.",
        json_schema_extra={"type": "number"},
    )


class MemoryStorage(Answer):
    """Memory storage: 0, 0.5 or 1, after the reason."""

    reason: str = Field(description=_REASON)
    score: Literal[0, 0.5, 1] = Field(  # type: ignore[valid-type]
        description="1: the memory holds all needed information; 0.5: some of it; 0: none of it.",
        json_schema_extra={"type": "number"},
    )


Metric = Literal["retrieval_accuracy", "response_correctness", "contextual_coherence", "memory_storage"]

#: A metric's verdict: its reason and its score.
Verdict = RetrievalAccuracy | ResponseCorrectness | ContextualCoherence | MemoryStorage

#: Output schema per metric.
SCHEMAS: dict[str, type[Verdict]] = {
    "retrieval_accuracy": RetrievalAccuracy,
    "response_correctness": ResponseCorrectness,
    "contextual_coherence": ContextualCoherence,
    "memory_storage": MemoryStorage,
}

METRICS: tuple[str, ...] = tuple(SCHEMAS)

#: Human-readable metric names (reports).
TITLES = {
    "retrieval_accuracy": "retrieval accuracy",
    "response_correctness": "response correctness",
    "contextual_coherence": "contextual coherence",
    "memory_storage": "memory storage",
}

SYSTEM = (
    "You evaluate a personal assistant that keeps a long-term memory of its user. You rate one "
    "aspect of one answer at a time, strictly and consistently, using only the material you are "
    "given: do not reward fluent wording that is not backed by it, and do not punish wording that "
    "differs from the reference when the meaning is the same. Dates count as the same when they name "
    "the same day, also when written differently. " + DATA_RULE
)

RUBRICS = {
    "retrieval_accuracy": (
        "Rate RETRIEVAL ACCURACY. Before answering, the assistant fetched the memories listed under "
        "'Retrieved memories' for this question. Score 1 if they contain the information from the "
        "reference that is needed to answer the question (for a question built on a false premise, a "
        "memory that shows the premise is false counts). Score 0 if the needed information is missing "
        "from them, or nothing was retrieved. Ignore the wording of the answer itself."
    ),
    "response_correctness": (
        "Rate RESPONSE CORRECTNESS: is the assistant's answer right according to the reference? "
        "Score 1 if it is correct and gives the facts the question asks for. Score 0.5 if it is partly "
        "correct: some asked-for facts are right but others are missing or slightly wrong, or it is "
        "vague where the reference is specific. Score 0 if it is wrong, contradicts the reference, "
        "invents details, or says it does not know although the reference holds the answer. If the "
        "reference shows the information was never given, an answer that says it is not known or not "
        "mentioned scores 1 and an invented answer scores 0."
    ),
    "contextual_coherence": (
        "Rate CONTEXTUAL COHERENCE: is the answer a natural, coherent reply to the user's question in "
        "an ongoing relationship with this user? It should address the question, stay on topic, be "
        "consistent with itself and with what the user said, and read fluently. Factual correctness is "
        "rated separately: do not lower the score for a wrong fact alone. Score 1 if coherent, 0.5 if "
        "partly (drifts off topic, repeats itself, awkward or contradictory in places), 0 if incoherent, "
        "unrelated to the question, or empty."
    ),
    "memory_storage": (
        "Rate MEMORY STORAGE: the assistant's long-term memory entries for this user are listed under "
        "'Stored memories' (all of them, or as many as fit). Score 1 if they contain all the information "
        "from the reference needed to answer the question, 0.5 if they contain part of it or an imprecise "
        "version, 0 if it was not stored. Judge only the memory, not the answer."
    ),
}

#: Labels of the reference material (what the judge measures against).
REFERENCE_LABELS = {
    "history": "The user's conversation history with the assistant (dated; long replies may be shortened)",
    "answer": "Reference answer and the conversation turns it comes from",
}


#: Every other piece of prompt text (part of ``prompt_hash``).
HEADINGS = {
    "retrieved": "Retrieved memories",
    "nothing_retrieved": "(nothing was retrieved)",
    "stored": "Stored memories",
    "memory_empty": "(the memory is empty)",
    "question": "The user's question",
    "answer": "The assistant's answer",
    "closing": "Give a short reason, then the score.",
}


def _memory_lines(records: list[dict], per_record: int = 400) -> list[str]:
    return [f"- ({str(r.get('event_time', ''))[:10]}) {quote(str(r.get('thought', '')), per_record)}" for r in records]


def messages(
    metric: str,
    *,
    question: str,
    answer: str,
    reference: str,
    reference_kind: Literal["history", "answer"] = "history",
    retrieved: list[dict] | None = None,
    stored: list[dict] | None = None,
    stored_note: str = "",
) -> list[BaseMessage]:
    """The judge prompt for one metric. ``reference`` is already clipped to the caller's budget;
    ``retrieved`` (retrieval accuracy) and ``stored`` (memory storage) are memory briefs. Every line
    of the reference is quoted whole (the caller clipped it)."""
    if metric not in SCHEMAS:
        raise ValueError(f"unknown judge metric {metric!r}; choose one of: {', '.join(METRICS)}")
    parts = [
        f"{REFERENCE_LABELS[reference_kind]}:\n{data_block([quote(line, None) for line in reference.splitlines()])}"
    ]
    if metric == "retrieval_accuracy":
        lines = _memory_lines(retrieved or []) or [HEADINGS["nothing_retrieved"]]
        parts.append(f"{HEADINGS['retrieved']}:\n" + data_block(lines))
    if metric == "memory_storage":
        lines = _memory_lines(stored or []) or [HEADINGS["memory_empty"]]
        note = f" ({stored_note})" if stored_note else ""
        parts.append(f"{HEADINGS['stored']}{note}:\n" + data_block(lines))
    parts.append(f"{HEADINGS['question']}:\n{data_block([quote(question, 2000)])}")
    if metric != "memory_storage":
        parts.append(f"{HEADINGS['answer']}:\n{data_block([quote(answer, 4000)])}")
    parts.append(f"{RUBRICS[metric]} {HEADINGS['closing']}")
    return [SystemMessage(SYSTEM), HumanMessage("\n\n".join(parts))]


def prompt_hash() -> str:
    """Short SHA-256 over every prompt text and output schema of this role (recorded in reports)."""
    material = {
        "version": VERSION,
        "system": SYSTEM,
        "rubrics": RUBRICS,
        "labels": REFERENCE_LABELS,
        "headings": HEADINGS,
        "schemas": {k: v.model_json_schema() for k, v in SCHEMAS.items()},
    }
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode("utf-8")).hexdigest()[:12]
