"""Talking to a Ceph cluster: connection options, the cluster's fingerprint, its health
during a run, pools and OSD flags cephbench creates (and undoes), and the network suite.

Every module that creates something registers its undo function; :func:`load_undo` imports
them all so ``cephbench cleanup`` knows every kind.
"""

from __future__ import annotations

import importlib

UNDO_MODULES = (
    "cephbench.ceph.pools",
    "cephbench.ceph.quiesce",
    "cephbench.ceph.objects",
    "cephbench.tools.iperf3.steps",
    "cephbench.diagnose.facts",
    "cephbench.tuning.apply",
)


def load_undo() -> None:
    """Import every module that registers an undo function (``cephbench cleanup``)."""
    for name in UNDO_MODULES:
        importlib.import_module(name)
