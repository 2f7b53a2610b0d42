"""Memory controller role: three separate two-option decisions (the CAIM cascade).

VERSION 2 (the message is quoted as a JSON string). Each question gets its own short call whose
answer is constrained to "A" or "B".
"""

from __future__ import annotations

from typing import Literal

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from caim.prompts.common import quote

VERSION = 2


class Choice(BaseModel):
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


def messages(decision: str, user_input: str, recent: str) -> list[BaseMessage]:
    question, a, b = QUESTIONS[decision]
    context = f"Recent turns of the current conversation:\n{recent}\n\n" if recent else ""
    return [
        SystemMessage("You route messages for an assistant with a memory of its user. Answer with one letter."),
        HumanMessage(f"{context}User message: {quote(user_input, 2000)}\n\n{question}\n{a}\n{b}\nAnswer A or B."),
    ]
