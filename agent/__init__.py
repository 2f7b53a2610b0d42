"""caim's public API: ``CaimAgent`` (facade), ``Settings``, and errors."""

from caim.agent.facade import CaimAgent, Reply, SessionSummary, Turn
from caim.core.errors import CaimError, ConfigError, EndpointError
from caim.core.settings import Settings

__all__ = ["CaimAgent", "CaimError", "ConfigError", "EndpointError", "Reply", "SessionSummary", "Settings", "Turn"]
