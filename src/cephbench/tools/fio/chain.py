"""Run the groups of a job file back to back in one fio process, without fio's pauses.

fio pays ~0.3 s between stonewall groups (its main loop polls job start-up and reaping in
100 ms sleeps): as much as starting a new fio process. Here the stonewalls are taken out, so
fio forks and initialises every job at once, and each job then waits in its ``exec_prerun``
(which fio runs before the job's runtime clock starts, and before ``pre_read`` and the cache
invalidation of opening its files) until the group before it has finished:

* group i's prerun is ``flock --shared gate.i true``: it blocks, using no CPU, while
  cephbench holds an exclusive lock on ``gate.i``;
* each job's and clone's ``exec_postrun`` (run after its last I/O completed) appends ``i``
  to the file ``events``; a cephbench thread follows it and, once every job and clone of
  group i reported, unlocks ``gate.i+1``. A plain file, not a FIFO: a hook never blocks, so
  fio still ends if cephbench is killed (its locks go with it, and fio gets SIGTERM).

A job with its own hooks keeps them: its prerun runs once its gate opens, and the report
runs after its postrun, from an exit trap (fio appends ``> JOB.postrun.txt 2>&1`` to the
command, so the user's command must come last to keep its output there; and fio cuts an
option's value at ``;``, so commands are joined with ``&&``).

Each stonewall becomes ``new_group``, which starts a new reporting group without waiting:
fio numbers the groups and reports them (``group_reporting`` included) exactly as it would
the file as written. A suite is the case of one job per group.

The ordering is guaranteed by construction, not by timing. fio skips ``exec_postrun`` for
a job that fails while setting up (its engine cannot start, say), which would leave the next
gate shut for ever; so the thread also watches the chain's processes, and when every live
fio job is blocked at a gate that is still shut, nothing is doing I/O: the group waited
for is dead, and the lowest shut gate opens. That needs every job forked from the start and
one process each: :func:`refusal` says which job files cannot be gated (``startdelay``,
``wait_for``, ``thread`` ...); those run as written. fio runs the hooks through
``system()`` in its working directory (it also writes ``<job>.<hook>.txt`` there), so fio
runs in the chain's private directory and every path in a hook is a fixed relative name.

Whoever runs the chain hears of each group's end before the next gate opens (``ended``): the
runner reads there what is behind the target, so each workload's reads are counted alone.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from cephbench.tools.fio.jobfile import STONEWALL, Job, JobFile, is_set, phases

EVENTS = "events"
POLL = 0.005
WATCH_EVERY = 40  # polls: the process check runs every 0.2 s
_GATE_WAIT = re.compile(r"^flock\x00--shared\x00gate\.(\d+)\x00")


REFUSED = {
    "startdelay": "startdelay (a job not yet started looks like a dead one to the gate)",
    "wait_for": "wait_for (a job not yet started looks like a dead one to the gate)",
    "thread": "thread (the gate watches one process per job)",
    "exitall": "exitall (it would end jobs still waiting for their group)",
    "exitall_on_error": "exitall_on_error (it would end jobs still waiting for their group)",
    "steadystate": "steadystate (fio would judge a waiting job steady at 0 IOPS)",
    "ss": "steadystate (fio would judge a waiting job steady at 0 IOPS)",
    "ioscheduler": "ioscheduler (every job would switch it when fio starts)",
}
"""Options with which a job file runs as written, and why."""


@dataclass(frozen=True)
class Link:
    """One group: its first job's name, and how many jobs and clones must report."""

    name: str
    numjobs: int


class Chain:
    """Gates between consecutive groups of one fio process; a context manager."""

    def __init__(
        self,
        links: Sequence[Link],
        workdir: Path,
        ended: Callable[[int], None] = lambda group: None,
    ):
        """``workdir``: an empty directory of the run's; fio must run with it as its cwd.
        ``ended``: called with a group's index once it is over, before the next one starts."""
        self.links = list(links)
        self.ended = ended
        self.workdir = workdir
        self.current = 0
        """Index of the group running now (for progress display)."""
        self.polls = 0
        """Times the follower has read the events file (tests wait on it, not on the clock)."""
        self.events_seen = 0
        """Clone reports read so far."""
        self._gates: dict[int, int] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def running(self) -> str:
        """The first job's name of the group running now (for progress display)."""
        return self.links[min(self.current, len(self.links) - 1)].name

    def jobfile(self, jobfile: JobFile) -> JobFile:
        """``jobfile`` with its stonewalls replaced by gates (see the module's docstring)."""
        jobs = []
        for i, phase in enumerate(phases(jobfile)):
            for job in phase:
                merged = jobfile.merged(job)
                hooks = _hooks(i, merged.get("exec_prerun"), merged.get("exec_postrun"))
                group = job is not jobfile.jobs[0] and any(
                    k in merged and is_set(merged[k]) for k in (*STONEWALL, "new_group")
                )
                gated = job.without(*STONEWALL, "wait_for").with_options(hooks)
                jobs.append(gated.with_options({"new_group": None}) if group else gated)
        global_ = jobfile.global_.without(*STONEWALL, "exec_prerun", "exec_postrun")
        return JobFile(global_, tuple(jobs))

    def __enter__(self) -> Chain:
        (self.workdir / EVENTS).write_text("")  # never follow another chain's events
        for i in range(1, len(self.links)):
            fd = os.open(self.workdir / f"gate.{i}", os.O_CREAT | os.O_RDWR, 0o600)
            fcntl.flock(fd, fcntl.LOCK_EX)
            self._gates[i] = fd
        self._thread = threading.Thread(target=self._follow, name="fio-chain", daemon=True)
        self._thread.start()
        return self

    def _follow(self) -> None:
        reported = [0] * len(self.links)
        stuck_seen = 0
        with open(self.workdir / EVENTS) as events:
            pending = ""
            while not self._stop.wait(POLL):
                if self.polls % WATCH_EVERY == WATCH_EVERY - 1 and self._gates:
                    stuck_seen = stuck_seen + 1 if self._all_blocked() else 0
                    if stuck_seen >= 2:  # seen twice, 0.2 s apart: not a gate just opening
                        self.current = min(self._gates)
                        self._ended(self.current - 1)
                        self._open_gate(self.current)
                        stuck_seen = 0
                pending += events.read()
                *lines, pending = pending.split("\n")
                for token in (ln.strip() for ln in lines):
                    if token.isdigit() and int(token) < len(self.links):
                        self.events_seen += 1
                        reported[int(token)] += 1
                        if reported[int(token)] == self.links[int(token)].numjobs:
                            self._ended(int(token))
                            self.current = int(token) + 1
                            self._open_gate(int(token) + 1)
                self.polls += 1

    def _all_blocked(self) -> bool:
        """Every live fio job of this chain waits at a gate that is still shut."""
        fio_processes, blocked = 0, 0
        for proc in Path("/proc").iterdir():
            try:
                if not proc.name.isdigit() or os.readlink(proc / "cwd") != str(self.workdir):
                    continue
                comm = (proc / "comm").read_text().strip()
                cmdline = (proc / "cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if comm == "fio":
                fio_processes += 1
            elif (m := _GATE_WAIT.match(cmdline)) and int(m.group(1)) in self._gates:
                blocked += 1
        jobs = fio_processes - 1  # fio's own main process does no I/O
        return jobs > 0 and blocked == jobs

    def _ended(self, i: int) -> None:
        """Say group ``i`` ended; whatever the listener does, the next gate opens after it."""
        with contextlib.suppress(Exception):  # a gate left shut would hold fio for ever
            self.ended(i)

    def _open_gate(self, i: int) -> None:
        fd = self._gates.pop(i, None)
        if fd is not None:
            os.close(fd)  # closing drops the exclusive lock: the waiting jobs start

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        for i in list(self._gates):
            self._open_gate(i)


def _hooks(group: int, prerun: str | None, postrun: str | None) -> dict[str, str | None]:
    report = f"echo {group} | tee -a {EVENTS}"
    hooks: dict[str, str | None] = {
        "exec_postrun": f"trap 'echo {group} >> {EVENTS}' EXIT && {postrun}" if postrun else report
    }
    gate = f"flock --shared gate.{group} true" if group else None
    if gate or prerun:
        hooks["exec_prerun"] = " && ".join(c for c in (gate, prerun) if c)
    return hooks


def links_of(jobfile: JobFile) -> list[Link]:
    """One link per group fio runs after the one before (see jobfile.phases)."""
    return [Link(p[0].name, sum(_clones(jobfile, j) for j in p)) for p in phases(jobfile)]


def _clones(jobfile: JobFile, job: Job) -> int:
    return int(jobfile.merged(job).get("numjobs") or 1)


def refusal(jobfile: JobFile) -> str | None:
    """Why this job file's groups cannot be gated and must run as written; None if they can.

    With one group there is nothing to gate (and nothing to refuse): the caller decides.
    """
    for job in jobfile.jobs:
        merged = jobfile.merged(job)
        for key, why in REFUSED.items():
            if key in merged and is_set(merged[key]):
                return f"{job.name} sets {why}"
        if not is_set(merged.get("create_serialize", "1")):
            return f"{job.name} sets create_serialize=0 (every job would lay out its files at once)"
    return None
