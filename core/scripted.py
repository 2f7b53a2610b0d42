"""A deterministic chat model that answers each LLM role from a table (tests, demos, CI).

The table maps a role to an answer: a string (returned as content), a dict/list (returned as
JSON), a list wrapped as ``{"cycle": [...]}`` (answers in turn), or a callable
``(messages, response_format) -> str | dict``. Every call is recorded in ``calls``.
The ``scripted`` provider loads the table from the JSON file named by ``CAIM_SCRIPT``.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import ConfigDict, Field, PrivateAttr

from caim.core.errors import ConfigError
from caim.core.types import ROLES


class ScriptedChatModel(BaseChatModel):
    """A chat model answering as ``role`` from ``script`` (the table), recording each call in ``calls``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    role: str = "default"
    script: Any = Field(default_factory=dict)  # shared, not copied: tests edit it live
    calls: Any = Field(default_factory=list)  # shared call log
    _counters: dict[str, int] = PrivateAttr(default_factory=dict)
    _lock: Any = PrivateAttr(default_factory=threading.Lock)

    @classmethod
    def from_env(cls, role: str) -> ScriptedChatModel:
        """A model for ``role`` answering from the JSON table in the file ``CAIM_SCRIPT`` names.

        Raises:
            ConfigError: ``CAIM_SCRIPT`` is not set, or its file cannot be read as JSON.
        """
        path = os.environ.get("CAIM_SCRIPT")
        if not path:
            raise ConfigError("the scripted provider needs CAIM_SCRIPT=<path to a JSON table of answers per role>")
        try:
            table = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ConfigError(f"cannot read CAIM_SCRIPT file {path}: {exc}") from None
        return cls(role=role, script=table)

    def for_role(self, role: str) -> ScriptedChatModel:
        """A sibling model for another role that shares the table and the call log."""
        m = ScriptedChatModel(role=role, script=self.script, calls=self.calls)
        return m

    @property
    def _llm_type(self) -> str:
        return "caim-scripted"

    def _answer(self, messages: list[BaseMessage], response_format: dict | None) -> str:
        entry = self.script.get(self.role, self.script.get("default", "OK"))
        if isinstance(entry, dict) and "cycle" in entry:
            with self._lock:
                i = self._counters.get(self.role, 0)
                self._counters[self.role] = i + 1
            seq = entry["cycle"]
            entry = seq[min(i, len(seq) - 1)] if entry.get("stick_last") else seq[i % len(seq)]
        if callable(entry):
            entry = entry(messages, response_format)
        return entry if isinstance(entry, str) else json.dumps(entry)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        rf = kwargs.get("response_format")
        text = self._answer(messages, rf)
        self.calls.append({"role": self.role, "messages": messages, "response_format": rf, "answer": text})
        n_in = sum(len(str(m.content)) for m in messages) // 4 + 1
        usage = {"input_tokens": n_in, "output_tokens": len(text) // 4 + 1, "total_tokens": n_in + len(text) // 4 + 1}
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text, usage_metadata=usage))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        """The answer word by word; the last chunk carries the token usage, as streaming endpoints send it."""
        message = self._generate(messages, stop, None, **kwargs).generations[0].message
        words = str(message.content).split(" ")
        for i, w in enumerate(words):
            piece = w if i == 0 else " " + w
            usage = getattr(message, "usage_metadata", None) if i == len(words) - 1 else None
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=piece, usage_metadata=usage))
            if run_manager:
                run_manager.on_llm_new_token(piece, chunk=chunk)
            yield chunk


def scripted_models(script: Mapping[str, Any]) -> tuple[dict[str, ScriptedChatModel], list[dict]]:
    """One scripted model per known role sharing ``script`` and a call log (for ``Models(overrides=...)``)."""
    calls: list[dict] = []
    models: dict[str, ScriptedChatModel] = {
        role: ScriptedChatModel(role=role, script=script, calls=calls) for role in ROLES
    }
    return models, calls
