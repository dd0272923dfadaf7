"""Each OSD's op latencies over a capacity step: its perf counters read before the step and
after it (one ``ceph tell osd.* perf dump`` each), the difference averaged per op
(:func:`cephbench.ceph.counters.window`). What :mod:`.at_knee` reads to say which part's
latency grows first at the knee.

Read on Ceph targets only (``rbd:``, ``cephfs:``, the lab's default image), through the
connection the lab or the Ceph options give; a step's window includes its ramp, which runs
at the step's rate too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from cephbench.capacity.search import Step
from cephbench.ceph.commands import ceph
from cephbench.ceph.connection import Connection
from cephbench.ceph.counters import per_osd, window
from cephbench.errors import CephbenchError

CEPH_TARGETS = ("rbd:", "cephfs:")

Dumps = dict[str, Any]
"""OSD id -> its ``perf dump``."""


def on_ceph(target: str | None) -> bool:
    """Whether a step on ``target`` loads Ceph OSDs this machine can ask (None: the lab's)."""
    return target is None or target.startswith(CEPH_TARGETS)


def dumps(conn: Connection) -> Dumps:
    """Every OSD's perf counters now; an OSD that does not answer is left out."""
    return per_osd(ceph(conn, "tell", "osd.*", "perf", "dump", "-f", "json").stdout)


def latencies(before: Dumps, after: Dumps) -> tuple[tuple[str, str, float], ...]:
    """(OSD id, figure, mean ms) for every figure with ops in the window. Pure."""
    out = []
    for osd in sorted(after, key=lambda o: (len(o), o)):
        if osd in before:
            for figure, w in window(before[osd], after[osd]).items():
                out.append((osd, figure, w["ms"]))
    return tuple(out)


def measured(
    measure: Callable[[float, int], Step], conn: Connection
) -> Callable[[float, int], Step]:
    """``measure`` with each step's OSD latencies recorded on it (a step whose counters
    cannot be read is kept without them)."""

    def step(rate: float, repeat: int) -> Step:
        try:
            before = dumps(conn)
        except CephbenchError:
            before = {}
        done = measure(rate, repeat)
        if not before:
            return done
        try:
            after = dumps(conn)
        except CephbenchError:
            return done
        return replace(done, osd_latency=latencies(before, after))

    return step
