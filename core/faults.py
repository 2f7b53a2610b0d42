"""Fault-injection points: places where a test can make the process die, to prove nothing is lost.

``hit("name")`` does nothing unless ``CAIM_FAULT_POINT`` names this point; then the process kills
itself with SIGKILL on the spot - no cleanup, no flush, as a crash or an out-of-memory kill would.
Post-thinking calls it between its writes; the crash tests arm each point in turn and check that
starting again stores everything exactly once.
"""

from __future__ import annotations

import os
import signal

#: The armed points, in the order post-thinking reaches them.
POINTS = ("after_key_events", "after_store_thoughts", "after_maintain_write", "before_session_reset")


def hit(name: str) -> None:
    """Kill this process with SIGKILL when ``CAIM_FAULT_POINT`` names ``name``; otherwise do nothing."""
    if os.environ.get("CAIM_FAULT_POINT") == name:
        os.kill(os.getpid(), signal.SIGKILL)
