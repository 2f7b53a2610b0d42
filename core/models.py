"""Model factory: every LLM role gets a langchain chat model built from settings.

A model name of the form ``provider:model`` with a known provider prefix (``anthropic:claude-…``,
``ollama:llama3``, ``openai:gpt-4o-mini``, ``google_genai:gemini-…``; see ``PROVIDERS``) - in
``CAIM_MODEL`` or a role's entry in ``CAIM_ROLE_MODELS`` - is built by LangChain's
``init_chat_model``, with the temperature, timeout and token cap passed where the model class accepts
them and its own retries off (caim's client retries); the provider's credentials and base URL come
from that provider's own environment variables (``ANTHROPIC_API_KEY``, ``ANTHROPIC_BASE_URL``, ...),
except that ``openai:`` models also take ``CAIM_API_KEY`` / ``CAIM_BASE_URL``. It wins over the
provider choice for the roles it names.

Other names keep the provider choice: OpenAI and any OpenAI-compatible endpoint go through
langchain-openai's ``ChatOpenAI``; the bundled ``local`` provider starts an in-process llama.cpp
server once per process and is reached through the same client. Tests inject chat models directly
(``Models(overrides=...)``) or use the ``scripted`` provider (answers from a JSON table).
"""

from __future__ import annotations

import importlib
import threading
import time
from collections.abc import Mapping
from typing import Any

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

#: Provider prefixes ``init_chat_model`` builds, with the package each needs and its chat model class.
PROVIDERS: dict[str, tuple[str, str]] = {
    "anthropic": ("langchain-anthropic", "langchain_anthropic:ChatAnthropic"),
    "azure_openai": ("langchain-openai", "langchain_openai:AzureChatOpenAI"),
    "bedrock": ("langchain-aws", "langchain_aws:ChatBedrock"),
    "bedrock_converse": ("langchain-aws", "langchain_aws:ChatBedrockConverse"),
    "cohere": ("langchain-cohere", "langchain_cohere:ChatCohere"),
    "deepseek": ("langchain-deepseek", "langchain_deepseek:ChatDeepSeek"),
    "fireworks": ("langchain-fireworks", "langchain_fireworks:ChatFireworks"),
    "google_genai": ("langchain-google-genai", "langchain_google_genai:ChatGoogleGenerativeAI"),
    "google_vertexai": ("langchain-google-vertexai", "langchain_google_vertexai:ChatVertexAI"),
    "groq": ("langchain-groq", "langchain_groq:ChatGroq"),
    "ibm": ("langchain-ibm", "langchain_ibm:ChatWatsonx"),
    "mistralai": ("langchain-mistralai", "langchain_mistralai:ChatMistralAI"),
    "nvidia": ("langchain-nvidia-ai-endpoints", "langchain_nvidia_ai_endpoints:ChatNVIDIA"),
    "ollama": ("langchain-ollama", "langchain_ollama:ChatOllama"),
    "openai": ("langchain-openai", "langchain_openai:ChatOpenAI"),
    "perplexity": ("langchain-perplexity", "langchain_perplexity:ChatPerplexity"),
    "together": ("langchain-together", "langchain_together:ChatTogether"),
    "upstage": ("langchain-upstage", "langchain_upstage:ChatUpstage"),
    "xai": ("langchain-xai", "langchain_xai:ChatXAI"),
}

#: caim's generation options and the parameter names model classes give them, first match wins.
_OPTION_NAMES: dict[str, tuple[str, ...]] = {
    "temperature": ("temperature",),
    "timeout": ("timeout", "request_timeout", "default_request_timeout"),
    "max_tokens": ("max_tokens", "max_output_tokens", "max_completion_tokens", "num_predict", "max_new_tokens"),
    "max_retries": ("max_retries",),
    "stream_usage": ("stream_usage",),
}


def provider_model(name: str | None) -> tuple[str, str] | None:
    """``(provider, model)`` for a ``provider:model`` name with a known provider prefix, else ``None``
    (``llama3:8b`` or ``qwen2.5:7b`` are plain names)."""
    if not name or ":" not in name:
        return None
    provider, model = name.split(":", 1)
    return (provider, model) if provider in PROVIDERS and model else None


def _parameter(cls: type, names: tuple[str, ...]) -> str | None:
    """The first of ``names`` that ``cls`` (a pydantic chat model class) accepts as a keyword."""
    fields = getattr(cls, "model_fields", {})
    by_name = bool(getattr(cls, "model_config", {}).get("populate_by_name"))
    for name in names:
        for field_name, info in fields.items():
            if name in (info.alias, info.validation_alias) or (name == field_name and (info.alias is None or by_name)):
                return name
    return None


def _options(cls: type, settings: Settings) -> dict[str, Any]:
    """Temperature, timeout, token cap, no client retries and streamed usage, where ``cls`` accepts them."""
    wanted: dict[str, Any] = {
        "temperature": settings.temperature,
        "timeout": settings.request_timeout,
        "max_retries": 0,
        "stream_usage": True,
    }
    if settings.max_tokens:
        wanted["max_tokens"] = settings.max_tokens
    out: dict[str, Any] = {}
    for option, value in wanted.items():
        name = _parameter(cls, _OPTION_NAMES[option])
        if name is not None:
            out[name] = value
        elif option == "timeout" and _parameter(cls, ("client_kwargs",)):
            out["client_kwargs"] = {"timeout": value}  # ChatOllama: the timeout of its httpx client
    return out


def init_model(name: str, settings: Settings) -> BaseChatModel:
    """The chat model a ``provider:model`` name names, built by ``init_chat_model``. A missing
    provider package or a model that cannot be built is a one-line ``ConfigError``."""
    parsed = provider_model(name)
    if parsed is None:
        raise ConfigError(f"{name!r} is not a provider:model name; known providers: {', '.join(PROVIDERS)}")
    provider, model = parsed
    package, target = PROVIDERS[provider]
    module_name, class_name = target.split(":")
    try:
        from langchain.chat_models import init_chat_model
    except ImportError:
        raise ConfigError(f"the model {name!r} needs LangChain's init_chat_model: pip install langchain") from None
    try:
        cls = getattr(importlib.import_module(module_name), class_name)
    except ImportError:
        raise ConfigError(f"the model {name!r} needs the {package} package: pip install {package}") from None
    except AttributeError:
        raise ConfigError(f"the model {name!r}: {package} has no {class_name}; upgrade it") from None
    kwargs = _options(cls, settings)
    if provider == "openai":
        if settings.api_key:
            kwargs["api_key"] = settings.api_key
        if settings.base_url:
            kwargs["base_url"] = settings.base_url
    try:
        return init_chat_model(model, model_provider=provider, **kwargs)
    except ImportError as exc:
        module = getattr(exc.__cause__, "name", None) or getattr(exc, "name", None)
        missing = module.split(".")[0].replace("_", "-") if module else package
        raise ConfigError(f"the model {name!r} needs the {missing} package: pip install {missing}") from None
    except Exception as exc:  # the integration refused its settings (a missing key, an unknown option)
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise ConfigError(f"cannot build the model {name!r}: {first[:200]}") from None


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
        """The chat model for ``role``: the injected one, else one built from the settings (once)."""
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

    def lengths_for(self, role: Role) -> bool:
        """``schema_lengths`` for one role: a ``provider:model`` role model carries them unless it is
        an OpenAI endpoint's strict json_schema (``openai:`` / ``azure_openai:``)."""
        parsed = None if self._overrides is not None else self._named(role)
        if parsed is not None:
            return parsed[0] not in ("openai", "azure_openai")
        return self.schema_lengths

    @property
    def speculative(self) -> bool:
        """Whether answers are drafted beside the decisions: the ``speculative_answer`` setting, else
        yes for an OpenAI-compatible endpoint or a hosted ``provider:model`` answer model (they serve
        calls side by side) and no otherwise (the bundled model, Ollama, injected models)."""
        if self.settings.speculative_answer is not None:
            return self.settings.speculative_answer
        if self._overrides is not None:
            return False
        parsed = self._named("respond")
        if parsed is not None:
            return parsed[0] != "ollama"
        return self.settings.resolved_provider() == "openai"

    def _named(self, role: Role) -> tuple[str, str] | None:
        """The role's ``provider:model`` name, split; ``None`` for plain names and the scripted provider."""
        if self.settings.resolved_provider() == "scripted":
            return None
        return provider_model(self.settings.model_for(role))

    def model_id(self, role: Role) -> str | None:
        """The identity of the model serving ``role``, as the probe's record names it (``None`` for
        injected models: no record applies to them)."""
        if self._overrides is not None:
            return None
        named = self.settings.model_for(role)
        provider = self.settings.resolved_provider()
        if provider == "scripted":
            return "scripted"
        if named and provider_model(named) is not None:
            return named
        if provider == "local":
            try:
                return f"local:{resolve_model_path(self.settings.local_model).name}"
            except ConfigError:
                return None  # no such weights: the first call says so
        return f"openai:{named or DEFAULT_OPENAI_MODEL}@{self.settings.base_url or 'api.openai.com'}"

    def describe(self) -> str:
        """Which provider and model are in use, for people."""
        if self._overrides is not None:
            return "injected chat model(s)"
        parsed = self._named("respond")
        if parsed is not None:
            return f"{parsed[0]}: {parsed[1]} (init_chat_model)"
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
        return f"answered in {time.perf_counter() - started:.2f}s ({str(reply.text).strip()[:20]!r})"

    def _build(self, role: Role) -> BaseChatModel:
        s = self.settings
        provider = s.resolved_provider()
        if provider == "scripted":
            return ScriptedChatModel.from_env(role)
        named = s.model_for(role)
        if named and provider_model(named) is not None:
            return init_model(named, s)
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
