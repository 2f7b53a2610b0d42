"""Names shared by every layer: LLM roles and memory routes, as closed ``Literal`` types."""

from __future__ import annotations

from typing import Literal, get_args

#: LLM roles; each can get its own model (``CAIM_ROLE_MODELS='{"judge": "gpt-4o"}'``).
Role = Literal[
    "plan",
    "controller",
    "tags",
    "time",
    "relevance",
    "respond",
    "answer",
    "summarize",
    "key_events",
    "thoughts",
    "maintain",
    "profile",
    "judge",
]
ROLES: tuple[Role, ...] = get_args(Role)

#: Roles measured against a code fallback (``caim models probe``). ``answer`` is the answer to a
#: memory question: the model's words, or composed by code from the kept memories
#: (``caim.memory.answer``); the model that would give it is the ``respond`` role's (``SERVED_BY``).
Probed = Literal["plan", "relevance", "key_events", "thoughts", "maintain", "summarize", "profile", "answer"]
PROBED: tuple[Probed, ...] = get_args(Probed)
#: Roles judged on another role's model: the role whose model serves them.
SERVED_BY: dict[Role, Role] = {"answer": "respond"}

#: Which memory a turn uses: none, the current session (stm), past sessions (ltm), or both.
Route = Literal["none", "stm", "ltm", "ltm+stm"]
ROUTES: tuple[Route, ...] = get_args(Route)

#: Roles that answer in free text (no response schema).
FREE_TEXT_ROLES: tuple[Role, ...] = ("respond", "summarize")
