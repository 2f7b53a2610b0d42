"""Memory controller role: three separate two-option decisions (the CAIM cascade).

VERSION 3 (the message and the recent turns are quoted as JSON strings). Each question gets its own short call whose
answer is constrained to "A" or "B".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import Field

from caim.prompts.common import DATA_RULE, Answer, data_block, quote, turn_lines

VERSION = 3
RECENT_CHARS = 300


class Choice(Answer):
    """The controller's answer to one question: option A or B."""

    answer: Literal["A", "B"] = Field(description="The letter of the option that fits best.")


QUESTIONS = {
    "needs_memory": (
        "Would a good answer to this message depend on anything earlier - the user's own details, "
        "preferences, plans, or something said before in this or a past conversation?",
        "A: yes, it needs earlier information about this user or conversation",
        "B: no, general knowledge or the message itself is enough",
    ),
    "needs_both": (
        "Does answering need BOTH what was said in past conversations (other days) AND what was "
        "said earlier in the current conversation?",
        "A: yes, both past conversations and the current one",
        "B: no, only one of them",
    ),
    "past_only": (
        "Does the message refer to past conversations (earlier days or sessions) rather than to "
        "the current conversation?",
        "A: past conversations",
        "B: the current conversation",
    ),
}


def messages(decision: str, user_input: str, recent: Sequence[BaseMessage]) -> list[BaseMessage]:
    """The request for one decision of the cascade.

    Args:
        decision: A key of :data:`QUESTIONS`.
        user_input: The current message.
        recent: The messages before the current one that the decision sees.

    Returns:
        The system and user messages.
    """
    question, a, b = QUESTIONS[decision]
    context = (
        f"Recent turns of the current conversation:\n{data_block(turn_lines(recent, RECENT_CHARS))}\n\n"
        if recent
        else ""
    )
    return [
        SystemMessage(
            "You route messages for an assistant with a memory of its user. Answer with one letter. " + DATA_RULE
        ),
        HumanMessage(f"{context}User message: {quote(user_input, 2000)}\n\n{question}\n{a}\n{b}\nAnswer A or B."),
    ]
