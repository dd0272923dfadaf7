"""Run a suite's workloads back to back in one fio process, without fio's per-group pauses.

fio pays ~0.3 s between stonewall groups (its main loop polls job start-up and reaping in
100 ms sleeps): as much as starting a new fio process. Here every workload is one job of a
single group, so fio forks and initialises all of them at once; each job then waits in its
``exec_prerun`` (which fio runs before the job's runtime clock starts) until the previous
workload has finished:

* workload i's prerun is ``flock --shared gate.i true``: it blocks, using no CPU, while
  cephbench holds an exclusive lock on ``gate.i``;
* each clone's ``exec_postrun`` (run after its last I/O completed) appends ``i`` to the
  file ``events``; a cephbench thread follows it and, once every clone of workload i
  reported, unlocks ``gate.i+1``. A plain file, not a FIFO: a hook never blocks, so fio
  still ends if cephbench is killed (its locks go with it, and fio gets SIGTERM).

The ordering is guaranteed by construction, not by timing. fio skips ``exec_postrun`` for
a job that fails while setting up (its engine cannot start, say), which would leave the next
gate shut for ever; so the thread also watches the chain's processes, and when every live
fio job is blocked at a gate that is still shut, nothing is doing I/O: the workload waited
for is dead, and the lowest shut gate opens. fio runs the hooks through
``system()`` in its working directory (it also writes ``<job>.<hook>.txt`` there), so fio
runs in the chain's private directory and every path in a hook is a fixed relative name.
"""

from __future__ import annotations

import fcntl
import os
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from cephbench.tools.fio.jobfile import JobFile

EVENTS = "events"
POLL = 0.005
WATCH_EVERY = 40  # polls: the process check runs every 0.2 s
_GATE_WAIT = re.compile(r"^flock\x00--shared\x00gate\.(\d+)\x00")


@dataclass(frozen=True)
class Link:
    name: str
    numjobs: int


class Chain:
    """Gates between consecutive workloads of one fio process; a context manager."""

    def __init__(self, links: Sequence[Link], workdir: Path):
        """``workdir``: an empty directory of the run's; fio must run with it as its cwd."""
        self.links = list(links)
        self.workdir = workdir
        self.current = 0
        """Index of the workload running now (for progress display)."""
        self._gates: dict[int, int] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def jobfile(self, jobfile: JobFile) -> JobFile:
        """``jobfile`` as one group whose jobs wait for each other through the gates."""
        jobs = []
        for i, job in enumerate(jobfile.jobs):
            hooks: dict[str, str | None] = {"exec_postrun": f"echo {i} | tee -a {EVENTS}"}
            if i > 0:
                hooks["exec_prerun"] = f"flock --shared gate.{i} true"
            jobs.append(job.without("stonewall", "new_group", "wait_for").with_options(hooks))
        return JobFile(jobfile.global_.without("group_reporting", "stonewall"), tuple(jobs))

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
        polls = stuck_seen = 0
        with open(self.workdir / EVENTS) as events:
            pending = ""
            while not self._stop.wait(POLL):
                polls += 1
                if polls % WATCH_EVERY == 0 and self._gates:
                    stuck_seen = stuck_seen + 1 if self._all_blocked() else 0
                    if stuck_seen >= 2:  # seen twice, 0.2 s apart: not a gate just opening
                        self.current = min(self._gates)
                        self._open_gate(self.current)
                        stuck_seen = 0
                pending += events.read()
                *lines, pending = pending.split("\n")
                for token in (ln.strip() for ln in lines):
                    if token.isdigit() and int(token) < len(self.links):
                        reported[int(token)] += 1
                        if reported[int(token)] == self.links[int(token)].numjobs:
                            self.current = int(token) + 1
                            self._open_gate(int(token) + 1)

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

    def _open_gate(self, i: int) -> None:
        fd = self._gates.pop(i, None)
        if fd is not None:
            os.close(fd)  # closing drops the exclusive lock: the waiting jobs start

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        for i in list(self._gates):
            self._open_gate(i)


def links_of(jobfile: JobFile) -> list[Link]:
    return [Link(j.name, int(jobfile.merged(j).get("numjobs") or 1)) for j in jobfile.jobs]

