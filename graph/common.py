"""Helpers that nodes and policies share: the current input, recent turns, tags named in a text."""

from __future__ import annotations

import re

from caim.graph.env import Env
from caim.graph.state import State
from caim.memory.stm import clip, transcript


def current_input(state: State, env: Env) -> str:
    """The user's latest message, clipped to ``max_input_chars`` for prompts."""
    return clip(str(state["messages"][-1].content), env.settings.max_input_chars)


def recent_turns(state: State, n: int = 4, per_message: int = 300) -> str:
    """The ``n`` messages before the current one, as a short transcript."""
    return transcript(state["messages"][-n - 1 : -1], per_message=per_message)


def keyword_tags(text: str, env: Env, limit: int = 3) -> list[str]:
    """Ontology terms that literally occur in the text (code-only fallback)."""
    words = set(re.findall(r"[a-z]+", text.lower()))
    return [t for t in env.svc.ontology.current.tags if t in words][:limit]
