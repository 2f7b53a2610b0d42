"""Settings: every knob of caim, read from arguments, ``CAIM_*`` environment variables or a ``.env`` file.

Provider choice: an explicit ``provider`` wins; otherwise an OpenAI key or base URL in the environment
selects the OpenAI-compatible provider; otherwise the bundled ``local`` model is used.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from platformdirs import user_data_dir
from pydantic import AliasChoices, Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict, SettingsError

from caim.core.errors import ConfigError
from caim.core.types import PROBED, ROLES, Role

__all__ = ["ROLES", "Provider", "Role", "Settings", "default_data_dir", "setting_error"]

Provider = Literal["openai", "local", "scripted"]


def default_data_dir() -> Path:
    """The user's data directory for caim (the platform's, e.g. ``~/.local/share/caim`` on Linux)."""
    return Path(user_data_dir("caim", appauthor=False))


#: Settings whose values are never repeated in an error message (keys, passwords in URLs, tokens).
SECRET = frozenset({"api_key", "database_url", "checkpoint_url", "chroma_headers"})


class Settings(BaseSettings):
    """Every setting of caim; ``load`` reads them (arguments, ``CAIM_*`` variables, ``.env``)."""

    model_config = SettingsConfigDict(env_prefix="CAIM_", env_file=".env", extra="ignore")

    @classmethod
    def load(cls, **overrides: Any) -> Settings:
        """Settings from ``overrides`` (arguments; ``None`` values are ignored), ``CAIM_*`` variables
        and ``.env``. A value that is not valid raises a one-line ``ConfigError`` naming its
        ``CAIM_*`` variable and the fix (the first such value)."""
        given = {k: v for k, v in overrides.items() if v is not None}
        try:
            return cls(**given)
        except ValidationError as exc:
            raise setting_error(exc, given) from None
        except SettingsError as exc:  # a dict or list variable that is not JSON
            raise setting_error(exc, given) from None

    provider: Provider | None = None
    model: str | None = None
    base_url: str | None = Field(
        default=None, validation_alias=AliasChoices("CAIM_BASE_URL", "OPENAI_BASE_URL", "base_url")
    )
    api_key: str | None = Field(
        default=None, validation_alias=AliasChoices("CAIM_API_KEY", "OPENAI_API_KEY", "api_key")
    )
    role_models: dict[str, str] = Field(default_factory=dict)
    # probed roles that use the model's judgement (["all"]: every one); unset: the probe's record
    # decides (``caim models probe``; see caim.core.model_roles)
    use_model_for: list[str] | None = None
    temperature: float = 0.0
    request_timeout: float = 120.0
    max_retries: int = 1  # further attempts after a malformed answer
    endpoint_retries: int = 2  # further attempts after a timeout, reset, HTTP 429 or 5xx ...
    retry_backoff: float = 0.5  # ... waiting this long, then twice as long, ...
    max_tokens: int | None = None  # generation cap per call; the local provider defaults to 512

    local_model: str | None = None
    local_ctx: int = 4096
    local_threads: int | None = None

    # a bundled embedder by name: ``minilm`` (English) or ``use-multilingual`` (16 languages); unset:
    # the default one (caim.core.embeddings.DEFAULT_LOCAL, chosen in docs/embeddings.md). With the
    # openai provider any other name is the endpoint's embedding model. A switch needs
    # ``caim memories reembed`` on an existing data dir.
    embedding_model: str | None = None

    data_dir: Path = Field(default_factory=default_data_dir)
    chroma_url: str | None = None  # a Chroma server (``chroma run``) instead of the embedded directory
    chroma_headers: dict[str, str] = Field(default_factory=dict)  # e.g. {"Authorization": "Bearer ..."}
    checkpoint_url: str | None = None  # postgresql://... for a PostgreSQL checkpointer
    database_url: str | None = None  # postgresql://... for the record database, shared by several workers
    namespace: str = "caim"  # schema (PostgreSQL) and collection prefix (Chroma) of this deployment

    policy: str = "caim"
    # controller: how the model's route and the code signals combine (see caim.graph.retrieval)
    route_rule: Literal["signals-or-model", "model", "signals"] = "signals-or-model"
    similar_memory: float = 0.6  # a stored record this similar to the message counts as a memory signal
    # answer drafted beside the decisions (a speculative answer, used only when the decided prompt is
    # the drafted one - see caim.graph.retrieval); None: on for an OpenAI-compatible endpoint, off for
    # the bundled model (one local slot would queue the draft behind the decisions) and injected models
    speculative_answer: bool | None = None
    stm_token_budget: int = 1500
    stm_keep_recent: int = 6
    # retrieval
    search_k: int = 20  # records the ranked search returns
    candidate_cap: int = 10  # of those, how many the relevance filter sees
    max_kept: int = 8  # most memories that reach the answer
    keep_top: int = 4  # the best-ranked candidates kept even when the filter drops them ...
    keep_similarity: float = 0.25  # ... if they are at least this similar to the message (not unrelated)
    shortlist_tags: int = 8  # ontology tags offered to the model (nearest by meaning)
    full_scan: int = 5000  # users with up to this many records are scored over all of them
    answer_check: bool = True  # quote the best memory after an answer that invents a date, number or name
    source_chars: int = 400  # how much of a kept memory's source turns the answer sees (0: none)
    max_input_chars: int = 4000  # how much of one message a prompt shows
    max_message_chars: int = 16000  # a longer message is refused before anything is stored
    # post-thinking
    ground_overlap: float = 0.34  # share of an event's content words found in its turn
    ground_similarity: float = 0.5  # or: cosine similarity of event and turn
    # a rewrite of a verbatim capture is stored only if it keeps at least this share of its content
    # words (and all its names, numbers, dates); otherwise the verbatim words stay
    capture_keep: float = 0.75
    # the assistant has a persona of its own (or the other side of a replayed conversation is a
    # person): what it tells of itself in the first person is kept as memory; otherwise only what it
    # gave the user (recommendations, names, titles, numbers, dates) is
    persona: bool = False
    merge_min_similarity: float = 0.55
    maintain_k: int = 3  # stored records each new one is compared with
    # memory that changes and privacy bounds
    deny_categories: list[str] = Field(default_factory=list)  # ontology subtrees never stored, e.g. ["health"]
    allow_categories: list[str] = Field(default_factory=list)  # if set, only these subtrees are stored
    lifetimes: dict[str, float] = Field(default_factory=dict)  # days a tag's records stay retrievable
    # per-user limits (0: none): a write past them is refused in one line and stores nothing
    max_user_records: int = Field(default=10_000, ge=0)  # records a user may keep
    max_user_bytes: int = Field(default=16 * 1024 * 1024, ge=0)  # bytes of stored records a user may keep
    max_import_records: int = Field(default=5_000, ge=0)  # records one import may hold
    decay_days: float | None = None  # half-life of an age penalty in ranking (None: off)

    @field_validator("namespace")
    @classmethod
    def _namespace(cls, v: str) -> str:
        if not re.fullmatch(r"[a-z][a-z0-9_]{0,40}", v):
            raise ValueError("namespace must be lowercase letters, digits and _, starting with a letter")
        return v

    @field_validator("use_model_for")
    @classmethod
    def _roles(cls, v: list[str] | None) -> list[str] | None:
        wrong = [r for r in v or [] if r not in (*PROBED, "all")]
        if wrong:
            raise ValueError(f"unknown role {wrong[0]!r}: name some of {', '.join(PROBED)} or all")
        return v

    @field_validator("data_dir", mode="before")
    @classmethod
    def _expand(cls, v):
        return Path(os.path.expanduser(str(v))) if v else default_data_dir()

    def resolved_provider(self) -> Provider:
        """``provider`` if set, else ``openai`` when a key or base URL is given, else ``local``."""
        if self.provider:
            return self.provider
        if self.api_key or self.base_url:
            return "openai"
        return "local"

    def quota(self) -> tuple[int, int] | None:
        """The per-user limits (records, bytes) the record store enforces; None when both are 0 (none).
        A limit of 0 is none: the largest number stands for it."""
        if not self.max_user_records and not self.max_user_bytes:
            return None
        return (self.max_user_records or 2**62, self.max_user_bytes or 2**62)

    def model_for(self, role: Role) -> str | None:
        """The model named for ``role`` in ``role_models``, else ``model`` (``None``: the provider's default)."""
        return self.role_models.get(role) or self.model


#: What a dict or list setting looks like in its variable.
_EXAMPLES: dict[str, str] = {
    "role_models": """'{"respond": "gpt-4o"}'""",
    "chroma_headers": """'{"Authorization": "Bearer TOKEN"}'""",
    "lifetimes": """'{"plans": 30}'""",
    "deny_categories": """'["health"]'""",
    "use_model_for": """'["plan", "relevance"]'""",
    "allow_categories": """'["food", "music"]'""",
}
#: The fix for a value of the wrong type, by pydantic's error type.
_FIXES = {
    "float_parsing": "set it to a number",
    "float_type": "set it to a number",
    "int_parsing": "set it to a whole number",
    "int_type": "set it to a whole number",
    "int_from_float": "set it to a whole number",
    "bool_parsing": "set it to true or false",
    "bool_type": "set it to true or false",
}


def _variable(field: str) -> str:
    return f"CAIM_{field.upper()}"


def _field(loc_head: str) -> str:
    """The settings field an error location names (a field, or one of its validation aliases)."""
    for name, info in Settings.model_fields.items():
        alias = info.validation_alias
        if loc_head == name or (isinstance(alias, AliasChoices) and loc_head in alias.choices):
            return name
    return loc_head.lower().removeprefix("caim_")


def _example(field: str) -> str:
    info = Settings.model_fields.get(field)
    origin = getattr(info.annotation, "__origin__", None) if info is not None else None
    shape = "a JSON object" if origin is dict else "a JSON list" if origin is list else "a valid value"
    return f"{shape}, e.g. {_EXAMPLES[field]}" if field in _EXAMPLES else shape


def setting_error(exc: ValidationError | SettingsError, given: Mapping[str, object]) -> ConfigError:
    """One line for the first problem in ``exc``: which ``CAIM_*`` variable (or argument in ``given``),
    what is wrong with its value (secrets are not repeated), and how to fix it."""
    if isinstance(exc, SettingsError):  # pydantic-settings could not parse a dict or list variable
        found = re.search(r'field "(\w+)"', str(exc))
        field = found.group(1) if found else ""
        cause = " ".join(str(exc.__cause__ or exc).split())
        return ConfigError(f"{_variable(field)} is not valid JSON ({cause}): set it to {_example(field)}, or unset it")
    first = exc.errors(include_url=False)[0]
    loc = [str(p) for p in first.get("loc", ())]
    field = _field(loc[0] if loc else "")
    variable = _variable(field)
    kind = str(first.get("type", ""))
    if kind == "literal_error":
        problem, fix = "", f"use {first.get('ctx', {}).get('expected', 'an allowed value')}"
    else:
        msg = " ".join(str(first.get("msg", "")).removeprefix("Value error, ").split())
        problem, fix = f" ({msg[:1].lower()}{msg[1:]})", _FIXES.get(kind, f"set it to {_example(field)}")
    key = "".join(f"[{p}]" for p in loc[1:])
    value = "" if field in SECRET else "=" + repr(first.get("input"))[:60]
    if field in given:
        return ConfigError(f"{field}{key}{value} is not valid{problem}: {fix} (setting {variable})")
    return ConfigError(f"{variable}{key}{value} is not valid{problem}: {fix}, or unset {variable}")
