"""caim's public API: ``CaimAgent`` (facade), ``Settings``, and errors."""

from caim.agent.errors import CaimError, ConfigError, EndpointError
from caim.agent.facade import CaimAgent, Reply, SessionSummary, Turn
from caim.agent.settings import Settings

__all__ = ["CaimAgent", "Reply", "SessionSummary", "Turn", "Settings", "CaimError", "ConfigError", "EndpointError"]
