"""Response node (CAIM step 3): system prompt + kept memories (quoted, dated) + STM per the route.

Route ``none``: the message alone. ``stm``: the session so far (full or summary + recent turns).
``ltm``: kept memories (oldest first, dated) and the message. ``ltm+stm``: both. For a memory
question where nothing relevant was found, the prompt tells the model to say it does not remember.
The answer is streamed to callers as it is produced (custom stream events, see
``caim.graph.state.ANSWER``). The answer check (``answer_check``) is the code signal beside it: a
reply to a question that asserts a date, number or name found nowhere in what it was given - or a
"when" question answered without a date - gets the kept memory that best matches the question
quoted after it, so a weak model's invention never stands alone. An answer drafted earlier in the
run (``search``) is used when its prompt is exactly this one, and dropped otherwise.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage

from caim.graph.common import answer_messages, current_input, shown_memories
from caim.graph.env import Env
from caim.graph.policies.base import MemoryPolicy
from caim.graph.state import State
from caim.graph.steps import AnswerCheck, AnswerCheckStep, AnswerStep
from caim.memory.records import MemoryBrief
from caim.memory.stm import TIME_KEY, clip
from caim.memory.text import is_when_question, memory_signals, states_a_date, tokenize, unsupported
from caim.memory.timeref import long_date, with_dates

#: How much of the best memory the answer check quotes.
NOTE_CHARS = 300


def respond(state: State, env: Env, policy: MemoryPolicy) -> dict[str, Any]:
    """Answer the message with the route's memories and history (streamed), adding the answer check's note.

    Returns:
        The state update: the reply as a time-stamped message.
    """
    route = state.get("route", "none")
    memories = shown_memories(state, route)
    messages = answer_messages(state, env, route, memories)
    draft = state.get("draft")
    reply = env.answer(messages, draft=draft["id"] if draft else None)
    env.note(AnswerStep(route=route, memories=len(memories), history_messages=len(messages) - 2))
    if memories and env.settings.answer_check:
        note = memory_note(reply, current_input(state, env), messages, memories, env)
        if note:
            env.emit(note)
            reply += note
    return {
        "messages": [AIMessage(reply, additional_kwargs={TIME_KEY: env.now.isoformat()})],
        "turn_time": "",
        "draft": None,
    }


def memory_note(reply: str, question: str, messages: list[BaseMessage], memories: list[MemoryBrief], env: Env) -> str:
    """The answer check, the code signal beside the model's answer to a question (a request - "suggest
    a book like the last one" - may name new things): when the reply asserts a date, number or name
    that nothing it was given holds, or a "when" question gets no date, the kept memory that best
    matches the question is quoted after the reply ("" when the reply stands)."""
    if not memory_signals(question).question:
        return ""
    given = "\n".join(str(m.content) for m in messages)
    made_up = unsupported(reply, given)
    undated = is_when_question(question) and not (states_a_date(reply) and not made_up)
    if not made_up and not undated:
        return ""
    best = best_match(question, memories)
    said = datetime.fromisoformat(best["event_time"])
    who = "you said" if best.get("speaker") == "assistant" else "you told me"
    words = clip(with_dates(" ".join(best["thought"].split()), said), NOTE_CHARS)
    env.note(AnswerCheckStep(answer_check=AnswerCheck(unsupported=made_up, undated=undated, quoted=best["id"])))
    return f'\n\n(From my memory: on {long_date(said)} {who}: "{words}")'


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
