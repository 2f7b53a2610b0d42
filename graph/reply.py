"""The answer to a turn, for the ``respond`` node and for an answer started early (``search``).

``produce`` answers the current message for a route with its memories and history, streamed to
callers as it is produced, and says which memories the answer used:

- a memory question (``caim.memory.answer.memory_question``: about the user's own past, or naming
  someone the memory knows, the ``named_in_memory`` signal) on a route with long-term memory, when
  the answer model does not beat code at answering from memories (the ``answer`` role on code): the
  answer is composed from the kept memories (``compose``: who said what, and when) and streamed at
  once; the model's reply to the same prompt follows, and each of its sentences that adds something
  and contradicts nothing is added (``Additions``; the reply is read only while something can still
  be added; ``answer_additions`` off: the model is not asked). With nothing kept, the composed
  answer says it does not remember and the model is not asked;
- otherwise the model answers. The answer check (``answer_check``) is the code signal beside it: a
  reply to a question that asserts a date, number or name found nowhere in what it was given, or
  answers a "when" question without a date - or a reply to a memory question that uses none of the
  kept memories - gets the kept memory that best matches the question quoted after it, so a weak
  model's answer never stands alone.

The memories used - quoted, or repeated by the reply (``used_by``) - travel in the state (``used``)
and on the reply's message (``USED``, each clipped), so every view of the session can show them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from langchain_core.messages import BaseMessage, HumanMessage

from caim.core.types import Route
from caim.graph.common import answer_messages, current_input
from caim.graph.env import Env
from caim.graph.state import State
from caim.graph.steps import AnswerCheck, AnswerCheckStep, AnswerStep
from caim.memory.answer import Additions, compose, memory_question, said, used_by
from caim.memory.records import MemoryBrief
from caim.memory.stm import TIME_KEY
from caim.memory.text import is_when_question, memory_signals, states_a_date, tokenize, unsupported
from caim.memory.text.timeref import TimeRange

#: How much of the best memory the answer check quotes.
NOTE_CHARS = 300


@dataclass
class Produced:
    """An answer: its text, the memories it used, and whether code composed it."""

    text: str
    used: list[MemoryBrief] = field(default_factory=list)
    composed: bool = False


def produce(state: State, env: Env, route: Route, memories: list[MemoryBrief], draft: str | None) -> Produced:
    """Answer the current message for ``route`` with ``memories`` (see the module docstring).

    Args:
        state: The run's state (the conversation, the STM window).
        env: The step's environment (its ``emit`` streams the answer to callers).
        route: The memory route.
        memories: The memories the answer shows (the kept ones).
        draft: The id of an answer drafted earlier in the run, if any.

    Returns:
        The answer and the memories it used.
    """
    question = current_input(state, env)
    messages = answer_messages(state, env, route, memories)
    env.note(AnswerStep(route=route, memories=len(memories), history_messages=len(messages) - 2))
    named = bool(state.get("signals", {}).get("named_in_memory"))
    if "ltm" in route and memory_question(question, named) and env.on_code("answer"):
        return _composed(state, env, question, messages, memories, draft)
    reply = env.answer(messages, draft=draft)
    shown = memories if "ltm" in route else []
    used = used_by(reply, shown, question)
    if shown and env.settings.answer_check:
        note = memory_note(reply, question, messages, shown, env, used)
        if note:
            env.emit(note.text)
            return Produced(reply + note.text, note.quoted)
    return Produced(reply, used)


def _composed(
    state: State, env: Env, question: str, messages: list[BaseMessage], memories: list[MemoryBrief], draft: str | None
) -> Produced:
    """The composed answer, streamed first, then the model's sentences that stand beside it."""
    days = [(r.start, r.end) for r in map(TimeRange.of, state.get("time_ranges") or [])]
    composed = compose(question, [*memories, *session_said(state, env)], days)
    env.emit(composed.text)
    used = list({m["id"]: m for m in reversed(composed.quoted) if m.get("id")}.values())[::-1]  # once per memory
    if not composed.quoted or not env.settings.answer_additions:
        env.drop_draft(draft)
        return Produced(composed.text, used, composed=True)
    adds = Additions(f"{composed.text}\n{question}", composed, question)
    added: list[str] = []

    def send(sentences: list[str]) -> None:
        for s in sentences:
            piece = ("\n" if not added else " ") + s
            added.append(piece)
            env.emit(piece)

    def read(piece: str) -> bool:
        send(adds.feed(piece))
        return adds.done

    env.answer(messages, draft=draft, on_piece=read)
    send(adds.finish())
    return Produced(composed.text + "".join(added), used, composed=True)


#: Id prefix of a turn of the open session standing in for a memory in a composed answer.
SESSION_ID = "session:"


def session_said(state: State, env: Env) -> list[MemoryBrief]:
    """The user's earlier statements in the open session (not its questions), as briefs a composed
    answer may quote beside the kept memories: what was said a minute ago is memory too. Their ids
    start with ``SESSION_ID``; they are shown, never listed as stored memories."""
    out: list[MemoryBrief] = []
    for i, m in enumerate(state["messages"][:-1]):
        text = str(m.content)
        when = (m.additional_kwargs or {}).get(TIME_KEY) or env.now.isoformat()
        if isinstance(m, HumanMessage) and text.strip() and not memory_signals(text).question:
            out.append({"id": "", "thought": text, "tags": [], "event_time": str(when), "kind": f"{SESSION_ID}{i}"})
    return out


@dataclass
class Note:
    """The answer check's note after a reply, and the memory it quotes."""

    text: str
    quoted: list[MemoryBrief]


def memory_note(
    reply: str,
    question: str,
    messages: list[BaseMessage],
    memories: list[MemoryBrief],
    env: Env,
    used: list[MemoryBrief],
) -> Note | None:
    """The answer check, the code signal beside the model's answer to a question (a request - "suggest
    a book like the last one" - may name new things): when the reply asserts a date, number or name
    that nothing it was given holds, or a "when" question gets no date - or, for a memory question
    (``memory_question``), the reply uses none of the kept memories (``used``) - the kept memory that
    best matches the question is quoted after the reply (``None`` when the reply stands)."""
    if not memory_signals(question).question:
        return None
    given = "\n".join(str(m.content) for m in messages)
    made_up = unsupported(reply, given)
    undated = is_when_question(question) and not (states_a_date(reply) and not made_up)
    unused = not used and memory_question(question)
    if not made_up and not undated and not unused:
        return None
    best = best_match(question, memories)
    env.note(AnswerCheckStep(answer_check=AnswerCheck(unsupported=made_up, undated=undated, quoted=best["id"])))
    return Note(f"\n\n(From my memory: {said(best, NOTE_CHARS)})", [best])


def best_match(question: str, memories: list[MemoryBrief]) -> MemoryBrief:
    """The kept memory sharing the most terms with the question (for a "when" question, one that
    gives a time counts half a term more); on a tie the more focused one (a larger share of its
    terms shared), then the better-ranked."""
    asked = set(tokenize(question))
    when = is_when_question(question)

    def score(item: tuple[int, MemoryBrief]) -> tuple[float, float, int]:
        i, m = item
        text = f"{m['thought']} {m.get('context', '')}"
        terms = set(tokenize(text))
        shared = len(asked & terms) + (0.5 if when and states_a_date(text) else 0.0)
        return shared, shared / max(len(terms), 1), -i

    return max(enumerate(memories), key=score)[1]


def used_entries(used: list[MemoryBrief], chars: int = NOTE_CHARS) -> list[dict[str, str]]:
    """The memories an answer used as its message carries them (``USED``): id, words (clipped), date, speaker."""
    return [
        {
            "id": m["id"],
            "thought": m["thought"][:chars],
            "event_time": m["event_time"],
            "speaker": m.get("speaker") or "user",
        }
        for m in used
    ]
