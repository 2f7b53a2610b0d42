"""``always``: ablation without the controller - every turn uses LTM and STM."""

from __future__ import annotations

from typing import Any

from caim.core.types import Route
from caim.graph.env import Env
from caim.graph.policies.caim import CaimPolicy
from caim.graph.state import State


class AlwaysPolicy(CaimPolicy):
    name = "always"
    description = "No controller: every turn retrieves from LTM and uses the whole STM."

    def route(self, state: State, env: Env) -> tuple[Route, dict[str, Any]]:
        return "ltm+stm", {"controller": "skipped (always)"}
