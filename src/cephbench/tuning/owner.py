"""Which A/B experiment owns a recorded change, and whether it still runs.

Every setting an experiment changes is recorded with its owner; ``cephbench cleanup`` must
not revert a change under an experiment that is still running (it restores the setting
itself when it ends). Both kinds of change (Ceph settings, host sysctls) ask here.
"""

from __future__ import annotations

import os
import socket
from typing import Any

from cephbench.errors import CephbenchError


def owner(exp_id: int) -> dict[str, Any]:
    """The owner recorded with each change experiment ``exp_id`` makes."""
    return {"experiment": exp_id, "pid": os.getpid(), "host": socket.gethostname()}


def owner_running(detail: dict[str, Any]) -> bool:
    """True if the experiment recorded in ``detail`` still runs (on this host, not us)."""
    own = detail.get("owner") or {}
    if own.get("host") != socket.gethostname() or not own.get("pid"):
        return False
    try:
        os.kill(int(own["pid"]), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return own["pid"] != os.getpid()


def refuse_while_running(detail: dict[str, Any]) -> None:
    """Raise when the experiment that recorded ``detail`` still runs (cleanup leaves it)."""
    if owner_running(detail):
        own = detail["owner"]
        raise CephbenchError(
            f"A/B experiment {own['experiment']} (pid {own['pid']}) is still "
            "running; it restores the setting itself when it ends"
        )
