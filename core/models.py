"""Model factory: every LLM role gets a langchain chat model built from settings.

One code path for every provider: OpenAI and any OpenAI-compatible endpoint go through
langchain-openai's ``ChatOpenAI``; the bundled ``local`` provider starts an in-process llama.cpp
server once per process and is reached through the same client. Tests inject chat models directly
(``Models(overrides=...)``) or use the ``scripted`` provider (answers from a JSON table).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from caim.core.errors import ConfigError
from caim.core.local_llm import LocalServer, get_server, resolve_model_path
from caim.core.scripted import ScriptedChatModel
from caim.core.settings import Settings
from caim.core.types import FREE_TEXT_ROLES, Role

DEFAULT_OPENAI_MODEL = "gpt-4o-mini"


def local_max_tokens(settings: Settings, role: Role) -> int:
    """Generation cap per call on the local provider: shorter for free text, where small models loop."""
    return settings.max_tokens or (256 if role in FREE_TEXT_ROLES else 512)


class Models:
    """Chat models per LLM role, built lazily and cached."""

    def __init__(self, settings: Settings, overrides: Mapping[str, BaseChatModel] | BaseChatModel | None = None):
        self.settings = settings
        self._overrides = overrides
        self._cache: dict[str, BaseChatModel] = {}
        self._lock = threading.Lock()
        self.local_server: LocalServer | None = None

    def for_role(self, role: Role) -> BaseChatModel:
        if isinstance(self._overrides, BaseChatModel):
            return self._overrides
        if self._overrides and role in self._overrides:
            return self._overrides[role]
        with self._lock:
            if role not in self._cache:
                self._cache[role] = self._build(role)
            return self._cache[role]

    @property
    def schema_lengths(self) -> bool:
        """Whether structured-output schemas may carry list/string length limits: yes for llama.cpp
        (its grammar enforces them) and injected models; not for hosted OpenAI-compatible endpoints."""
        return self._overrides is not None or self.settings.resolved_provider() != "openai"

    @property
    def speculative(self) -> bool:
        """Whether answers are drafted beside the decisions: the ``speculative_answer`` setting, else
        yes for an OpenAI-compatible endpoint (it serves calls side by side) and no otherwise."""
        if self.settings.speculative_answer is not None:
            return self.settings.speculative_answer
        return self._overrides is None and self.settings.resolved_provider() == "openai"

    def describe(self) -> str:
        """Which provider and model are in use, for people."""
        if self._overrides is not None:
            return "injected chat model(s)"
        provider = self.settings.resolved_provider()
        if provider == "local":
            return f"local llama.cpp: {resolve_model_path(self.settings.local_model).name}"
        if provider == "scripted":
            return "scripted (deterministic test model)"
        where = self.settings.base_url or "api.openai.com"
        return f"openai-compatible: {self.settings.model or DEFAULT_OPENAI_MODEL} at {where}"

    def check(self) -> str:
        """One tiny call to the answering model: raises if it does not answer; says how long it took."""
        started = time.perf_counter()
        reply = self.for_role("respond").invoke([HumanMessage("Reply with the single word OK.")])
        return f"answered in {time.perf_counter() - started:.2f}s ({str(reply.content).strip()[:20]!r})"

    def _build(self, role: Role) -> BaseChatModel:
        s = self.settings
        provider = s.resolved_provider()
        if provider == "scripted":
            return ScriptedChatModel.from_env(role)
        if provider == "local":
            server = get_server(resolve_model_path(s.local_model), s.local_ctx, s.local_threads)
            self.local_server = server
            free_text = role in FREE_TEXT_ROLES
            return ChatOpenAI(
                base_url=server.base_url,
                api_key=SecretStr("local"),
                model=server.model_name,
                temperature=s.temperature,
                timeout=s.request_timeout,
                max_retries=0,
                max_completion_tokens=local_max_tokens(s, role),
                # small models loop in free text; llama.cpp's repeat penalty keeps replies readable
                extra_body={"repeat_penalty": 1.2, "repeat_last_n": 128} if free_text else None,
                stream_usage=True,
            )
        if not (s.api_key or s.base_url):
            raise ConfigError(
                "no model configured: set OPENAI_API_KEY (or CAIM_BASE_URL for another OpenAI-compatible endpoint), "
                "or use CAIM_PROVIDER=local"
            )
        return ChatOpenAI(
            model=s.model_for(role) or DEFAULT_OPENAI_MODEL,
            api_key=SecretStr(s.api_key or "not-needed"),
            base_url=s.base_url,
            temperature=s.temperature,
            timeout=s.request_timeout,
            max_retries=0,  # caim's client retries (bounded, with backoff) and records it
            max_completion_tokens=s.max_tokens,
            stream_usage=True,
        )
