"""What the probes of one diagnosis share: the run's context, its options, the evidence so
far, and the configuration to restore (Ctrl-C included)."""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any

from cephbench.ceph.commands import ceph
from cephbench.ceph.counters import per_osd
from cephbench.diagnose.together import together
from cephbench.model import RawOutput, WorkloadOutcome, now
from cephbench.system.process import ProcessInterrupted
from cephbench.tools.base import RunContext, Step, Stopped, raw_output


@dataclass(frozen=True)
class DiagnoseOptions:
    quick: bool = False
    osd_bench: bool = True

    @property
    def qd1_seconds(self) -> float:
        """The QD1 writes (the latency budget's, with their own counter window)."""
        return 1.5 if self.quick else 10.0

    def seconds(self, workload: str) -> float:
        """Each of the other workloads: with ``--quick``, the QD32 writes (the load that
        shows a starved or slow OSD) longest."""
        if not self.quick:
            return 10.0
        return 2.0 if workload.startswith("write") else 1.0

    @property
    def own_read_seconds(self) -> float:
        """Each OSD's own reads (one OSD after another, so not the load's 10 s each)."""
        return 1.0 if self.quick else 3.0

    @property
    def bench_small_bytes(self) -> int:
        """4 KiB osd bench total: Ceph's cap of bs x 30 s x 100 IOPS (3,000 writes), long
        enough for the OSDs benched at once to overlap, and for an OSD held by a CPU quota to
        run out of it: 1,024 writes took a lab OSD at 15 % of a core 24 ms, with its quota
        (15 ms per 100 ms) left whole, and showed nothing (2026-11-30)."""
        return 3000 * 4096

    @property
    def bench_large_bytes(self) -> int:
        return (16 << 20) if self.quick else (128 << 20)

    @property
    def bench_large_seconds(self) -> float:
        """The 4 MiB bench's time bound: an OSD writes the rest of its bytes after its first
        quarter only if the whole would end within it (healthy lab OSDs write 16 MiB in under
        0.1 s; a disk held to 150 IOPS takes 2 s)."""
        return 1.0 if self.quick else 10.0

    @property
    def iperf_seconds(self) -> int:
        return 1 if self.quick else 3

    def to_json(self) -> dict[str, Any]:
        return {"quick": self.quick, "osd_bench": self.osd_bench}


@dataclass
class Session:
    ctx: RunContext
    options: DiagnoseOptions
    restore: ExitStack
    evidence: dict[str, Any] = field(default_factory=dict)
    osds: list[int] = field(default_factory=list)
    pending: list[tuple[WorkloadOutcome, tuple[float, float]]] = field(default_factory=list)
    early: dict[tuple[str, ...], tuple[Step, Any] | None] = field(default_factory=dict)
    """The probes' :attr:`Probe.reads`: None until the first batch made them, then each
    (its step, its JSON)."""
    shared: dict[str, Any] = field(default_factory=dict)
    """What a probe made ready for itself in :meth:`Probe.begin` (the network's ssh)."""
    _background: list[Future[Any]] = field(default_factory=list)

    def background(self, fn: Callable[[], Any]) -> None:
        """``fn`` in a thread of its own, now; :meth:`settle` waits for it."""
        pool = ThreadPoolExecutor(1, thread_name_prefix="diagnose-begin")
        self._background.append(pool.submit(fn))
        pool.shutdown(wait=False)

    def settle(self) -> None:
        """Wait for what :meth:`background` started (before a measurement: nothing of ours
        runs beside it); Ctrl-C waits for it too, then stops the diagnosis. An error there
        is the probe's to meet when it uses what failed to get ready."""
        started, self._background = self._background, []
        try:
            while wait(started, timeout=0.2).not_done:
                pass
        except KeyboardInterrupt:
            wait(started)
            raise Stopped from None

    @property
    def conn(self):
        return self.ctx.conn

    def ceph(
        self, *args: str, json_out: bool = True, timeout: float | None = None
    ) -> tuple[Step, Any]:
        """Run ``ceph ARGS``; (its step, its JSON or None when it failed or printed none)."""
        argv = [*args, "-f", "json"] if json_out else list(args)
        started = now()
        try:
            result = ceph(self.conn, *argv, timeout=timeout, check=False)
        except ProcessInterrupted:
            raise Stopped from None
        data = None
        if result.returncode == 0 and json_out:
            data = parse_loose(result.stdout)
        return Step(0, raw_output("ceph", result, started), []), data

    def tell_all(self, *args: str, json_out: bool = True) -> tuple[Step, dict[str, Any]]:
        """``ceph tell osd.* ARGS`` in one process; (its step, OSD id -> its JSON)."""
        fmt = ["-f", "json"] if json_out else []
        step, _ = self.ceph("tell", "osd.*", *args, *fmt, json_out=False)
        return step, per_osd(step.raw.stdout if step.raw else "")

    def ceph_many(self, *commands: tuple[str, ...]) -> list[tuple[Step, Any]]:
        """Independent ``ceph`` commands at once; ("tell", "osd.*", ...) reads per OSD."""

        def one(args: tuple[str, ...]) -> Callable[[], tuple[Step, Any]]:
            if args[:2] == ("tell", "osd.*"):
                return lambda: self.tell_all(*args[2:])
            return lambda: self.ceph(*args)

        return together([one(c) for c in commands])

    def read(self, *commands: tuple[str, ...]) -> list[tuple[Step | None, Any]]:
        """Each command's (step, JSON): made in the first batch (no step: recorded there
        already), else now, at once."""
        made = {c: self.early.pop(c, None) for c in commands}
        now_ = [c for c, got in made.items() if got is None]
        fresh = dict(zip(now_, self.ceph_many(*now_), strict=True)) if now_ else {}
        out: list[tuple[Step | None, Any]] = []
        for c in commands:
            got = made[c]
            out.append((None, got[1]) if got is not None else fresh[c])
        return out

    def measured(self, step: Step) -> Step:
        """A step with workloads: its raw output now; its workloads kept for the last step
        (the runner samples the cluster's health once per step with workloads)."""
        self.pending.extend(zip(step.outcomes, step.windows, strict=True))
        return Step(step.repeat, step.raw, [])


def parse_loose(text: str) -> Any:
    """The first JSON value in ``text`` (``ceph tell`` may print a second line); None if none."""
    text = text.strip()
    if not text:
        return None
    try:
        return json.JSONDecoder().raw_decode(text)[0]
    except ValueError:
        return None


def record(tool: str, stdout: str, argv: list[str] | None = None) -> RawOutput:
    """A raw output cephbench wrote itself (the evidence and the diagnosis, as JSON)."""
    return RawOutput(tool, argv or [], None, stdout, "", 0, now(), 0.0)
