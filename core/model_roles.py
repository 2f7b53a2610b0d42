"""Which roles use the model's judgement and which their code fallback: the probe's record.

``caim models probe`` puts each probed role of the configured model beside its code fallback on
labelled probes and writes what it measured to ``<data dir>/model_roles.json``::

    {"models": {"local:SmolLM2-135M-Instruct.Q4_1.gguf": {
        "measured": "2026-11-23T21:00:00+00:00",
        "roles": {"key_events": {"model": 0.0, "code": 5.0, "items": 5, "use": "code"}, ...}}}}

A role is kept by the model only where it scores **above** its code fallback (a tie goes to code:
the call costs time and adds nothing measured). Which roles skip the model, in order:

1. ``CAIM_USE_MODEL_FOR`` (a JSON list of probed roles, or ``["all"]``): the deployment decides;
2. the data dir's record for the role's model;
3. the record shipped with caim for its bundled models (``model_roles.json`` beside this module,
   written by ``benchmarks/local_models.py``);
4. otherwise the model keeps every role (an endpoint nobody probed is trusted).

A skipped role returns the caller's fallback at once (``caim.core.llm.LLM``), so every node runs
its code path: the ranked candidates, verbatim capture of fact-stating turns, maintenance by code.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, TypedDict, get_args

from caim.core.files import write_private
from caim.core.types import PROBED, SERVED_BY, Probed, Role

Use = Literal["model", "code"]

RECORD = "model_roles.json"
SHIPPED = Path(__file__).with_name(RECORD)


class RoleResult(TypedDict):
    """One probed role's scores in the record, and which side the role uses."""

    model: float  # points the model scored on the role's probes
    code: float  # points its code fallback scored on the same probes
    items: int  # points possible
    use: Use


def decide(model: float, code: float) -> Use:
    """The model keeps a role only where it is measured to beat code."""
    return "model" if model > code else "code"


def read(path: Path) -> dict[str, Any]:
    """A record file's ``models`` map; an absent or unreadable file is an empty one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    models = data.get("models") if isinstance(data, dict) else None
    return models if isinstance(models, dict) else {}


def write(path: Path, model_id: str, roles: Mapping[str, RoleResult], when: datetime | None = None) -> None:
    """Add (or replace) one model's results in the record at ``path``, keeping the others."""
    models = read(path)
    models[model_id] = {"measured": (when or datetime.now(UTC)).isoformat(timespec="seconds"), "roles": dict(roles)}
    write_private(path, json.dumps({"models": models}, indent=2, sort_keys=True) + "\n")


def recorded_use(model_id: str | None, role: Role, data_dir: Path) -> tuple[Use, str] | None:
    """What the records say for ``role`` of ``model_id``, and which record said it."""
    if model_id is None:
        return None
    for where, path in (("probe record", data_dir / RECORD), ("shipped probe record", SHIPPED)):
        entry = read(path).get(model_id, {}).get("roles", {}).get(role)
        if isinstance(entry, dict) and entry.get("use") in get_args(Use):
            return entry["use"], where
    return None


def role_uses(
    model_ids: Callable[[Role], str | None], data_dir: Path, override: Iterable[str] | None
) -> dict[Probed, tuple[Use, str]]:
    """Per probed role: model or code, and why (the setting, a record, or no record); a role another
    role's model serves (``SERVED_BY``) is looked up under that model."""
    chosen = set(override) if override is not None else None
    out: dict[Probed, tuple[Use, str]] = {}
    for role in PROBED:
        if chosen is not None:
            use: Use = "model" if role in chosen or "all" in chosen else "code"
            out[role] = (use, "CAIM_USE_MODEL_FOR")
            continue
        out[role] = recorded_use(model_ids(SERVED_BY.get(role, role)), role, data_dir) or ("model", "not probed")
    return out


def code_roles(uses: Mapping[Probed, tuple[Use, str]]) -> frozenset[Role]:
    """The roles of ``uses`` (``role_uses``) that skip the model for their code fallback."""
    return frozenset(role for role, (use, _) in uses.items() if use == "code")
