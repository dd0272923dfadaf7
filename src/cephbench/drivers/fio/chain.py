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

The ordering is guaranteed by construction, not by timing. fio runs the hooks through
``system()`` in its working directory (it also writes ``<job>.<hook>.txt`` there), so fio
runs in the chain's private directory and every path in a hook is a fixed relative name.
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from .jobfile import JobFile

EVENTS = "events"
POLL = 0.005


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
        with open(self.workdir / EVENTS) as events:
            pending = ""
            while not self._stop.wait(POLL):
                pending += events.read()
                *lines, pending = pending.split("\n")
                for token in (ln.strip() for ln in lines):
                    if token.isdigit() and int(token) < len(self.links):
                        reported[int(token)] += 1
                        if reported[int(token)] == self.links[int(token)].numjobs:
                            self.current = int(token) + 1
                            self._open_gate(int(token) + 1)

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

