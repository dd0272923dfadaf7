"""fio from many clients at once (``--clients``): one ``fio --client`` process per workload.

fio's own client/server mode does the work: ``fio --client=ADDR,PORT JOB0 --client=... JOB1``
sends each client (a ``fio --server`` on that host) its job file and starts them together;
the report comes back with one entry per client (clients.py turns it into each client's
results and the aggregate). Each workload is a process of its own: the chain's gates
(chain.py) are local files, and stonewall groups on several servers do not wait for one
another, so one workload per ``fio --client`` is what starts every client at once.

fio's servers do not wait for one another: each starts its job once it has set it up (for
RBD, once librbd has connected and opened the image), which takes each host its own time. So
every job waits, in its ``exec_prerun`` (which fio runs after that set-up and before the job's
clock starts), until one wall-clock instant cephbench chose a little ahead (``START_LEAD``),
and then prints the time it went on. The spread of those times over the clients is the
workload's start skew, kept as the aggregate's ``start_skew_ms`` metric; it is measured, not
assumed (a host whose set-up took longer than the lead shows in it), with the hosts' clocks
taken as in sync (Ceph's monitors need that too).
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from cephbench.ceph.tools import CephTools
from cephbench.errors import CephbenchError
from cephbench.model import RawOutput, WorkloadOutcome, now
from cephbench.system.process import ProcessInterrupted, ProcessResult, run
from cephbench.tools.base import RunContext, Step
from cephbench.tools.fio import command as fio_command
from cephbench.tools.fio.jobfile import JobFile
from cephbench.tools.fio.plan import Batch
from cephbench.tools.fio.steps import batch_outcomes, scheduled

START_LEAD = 3.0
"""Seconds from launching ``fio --client`` to the instant every job starts, at first: time for
fio to reach the servers and each server to set its job up (connect to Ceph, open the image;
~2.5 s in the lab). Later workloads use what the earlier ones took (:class:`StartGate`)."""
MAX_LEAD = 20.0
MIN_LEAD = 1.0


@dataclass
class StartGate:
    """How far ahead of launching fio the start instant is set: the slowest set-up seen so
    far and a margin, so every client is ready in time without idling long."""

    lead: float = START_LEAD

    @classmethod
    def after_reach(cls, seconds: float | None) -> StartGate:
        """The first lead for clients reached by a call that took ``seconds`` (a ``kubectl
        exec`` into a pod): launching a workload is one such call, and fio's set-up in the pod
        a fraction of another (0.4-0.7 s in the lab, where such a call took 0.3 s), so twice
        the call and half a second; :data:`START_LEAD` when no call was timed."""
        if seconds is None:
            return cls()
        return cls(min(MAX_LEAD, max(MIN_LEAD, 2 * seconds + 0.5)))

    def observe(self, launched: float, starts: Iterable[float]) -> None:
        """Learn from a workload's start times (seconds since the epoch)."""
        took = [t - launched for t in starts]
        if took:
            self.lead = min(MAX_LEAD, max(MIN_LEAD, max(took) * 1.2 + 0.3))


SKEW_METRIC = "start_skew_ms"


@dataclass(frozen=True)
class FioServer:
    """A ``fio --server`` listening for a client: the host's name (results carry it) and
    where it listens."""

    name: str
    address: str
    port: int

    @property
    def key(self) -> str:
        """How fio's report names the client: ``hostname:port``."""
        return f"{self.address}:{self.port}"

    @property
    def client_option(self) -> str:
        return f"--client={self.address},{self.port}"


@dataclass(frozen=True)
class Clients:
    """The clients of a run: a server on each, and the target options each one's jobs get
    (its own RBD image, or the same one with ``--shared-image``)."""

    servers: tuple[FioServer, ...]
    target_options: tuple[dict[str, str], ...]
    read_starts: Callable[[], dict[str, float]]
    """Each client's start time of the workload that just ran (host name -> seconds since
    the epoch), read from its server's directory and removed there."""
    gate: StartGate = field(default_factory=StartGate)
    tools: CephTools | None = None
    """Where the ``fio --client`` that drives the servers runs: the Ceph tools' fio when they
    reach one (a release lab's: the servers run that release's fio), else this machine's."""

    @property
    def hosts(self) -> dict[str, str]:
        return {s.key: s.name for s in self.servers}


def with_start_gate(jobfile: JobFile, at: float) -> JobFile:
    """Each job waits until ``at`` (seconds since the epoch) in its ``exec_prerun`` and then
    prints the time (fio writes it to ``JOB.prerun.txt`` in the server's directory); a job
    with its own ``exec_prerun`` is left as it is (it starts when it is set up)."""
    wait = (
        f"sleep $(date +%s.%N | awk '{{ d = {at:.3f} - $1 }} END {{ print (d > 0 ? d : 0) }}')"
        " && date +%s.%N"
    )
    jobs = [
        job if "exec_prerun" in jobfile.merged(job) else job.with_options({"exec_prerun": wait})
        for job in jobfile.jobs
    ]
    return JobFile(jobfile.global_, tuple(jobs))


def start_skew_ms(starts: dict[str, float], clients: int) -> float | None:
    """The spread of the clients' start times (seconds); None unless every client gave one."""
    if clients < 2 or len(starts) < clients:
        return None
    return (max(starts.values()) - min(starts.values())) * 1000.0


def read_start(text: str) -> float | None:
    """The time a job's start gate printed (the first line of ``JOB.prerun.txt``)."""
    first = text.strip().splitlines()[:1]
    try:
        return float(first[0]) if first else None
    except ValueError:
        return None


def client_argv(
    servers: Sequence[FioServer],
    jobfiles: Sequence[str],
    tools: CephTools | None = None,
    cwd: str | None = None,
) -> list[str]:
    fmt = f"--output-format={fio_command.OUTPUT_FORMAT}"
    if tools is not None and tools.reaches("fio"):
        argv = tools.argv("fio", fmt, cwd=cwd)
    else:
        argv = [fio_command.fio_path(), fmt]
    for server, name in zip(servers, jobfiles, strict=True):
        argv += [server.client_option, name]
    return argv


def clients_steps(ctx: RunContext, clients: Clients) -> Iterator[Step]:
    """Repeat by repeat, the workloads the schedule asks for, each on every client at once."""
    for repeat, names in scheduled(ctx):
        selected = ctx.plan.only(names)
        per_client = [selected.batches(opts, True) for opts in clients.target_options]
        for index, batches in enumerate(zip(*per_client, strict=True)):
            ctx.before_each()
            work = ctx.work / f"repeat{repeat}-batch{index}"
            work.mkdir()
            yield run_clients_batch(ctx, clients, repeat, batches, work)


def run_clients_batch(
    ctx: RunContext, clients: Clients, repeat: int, batches: Sequence[Batch], work: Path
) -> Step:
    """One workload (or a job file's group) on every client at once, as one step."""
    started, t0 = now(), time.monotonic()
    names, texts = [], []
    launched = time.time()
    gate = launched + clients.gate.lead
    for k, batch in enumerate(batches):
        text = with_start_gate(batch.jobfile, gate).render()
        names.append(f"client{k}.fio")
        (work / names[-1]).write_text(text)
        texts.append(f"# client {clients.servers[k].name} ({clients.servers[k].key})\n{text}")
    interrupted = False
    try:
        result = run(
            client_argv(clients.servers, names, clients.tools, str(work)),
            cwd=str(work),
            on_tick=lambda elapsed: ctx.progress.update(
                repeat, batches[0].jobfile.jobs[0].name, elapsed
            ),
            interrupt_signal=signal.SIGINT,
            grace=15.0,
            die_with_parent=True,
        )
    except ProcessInterrupted as e:
        result, interrupted = e.result, True
    try:
        starts = clients.read_starts()
        clients.gate.observe(launched, starts.values())
        skew = start_skew_ms(starts, len(batches))
    except CephbenchError:  # a host lost now fails the next step, not this one's figures
        skew = None
    outcomes = client_outcomes(result, repeat, batches[0], clients, interrupted, skew)
    raw = RawOutput(
        "fio",
        result.argv,
        "\n".join(texts),
        result.stdout,
        result.stderr,
        result.returncode,
        started,
        result.seconds,
    )
    window = (t0, time.monotonic())
    return Step(repeat, raw, outcomes, [window] * len(outcomes), interrupted=interrupted)


def client_outcomes(
    result: ProcessResult,
    repeat: int,
    batch: Batch,
    clients: Clients,
    interrupted: bool,
    skew: float | None,
) -> list[WorkloadOutcome]:
    """A batch's outcomes from fio's client/server document (hosts over ssh, or pods): a
    workload a client reported nothing for is a failure (its sum would be wrong), and each
    result carries the clients' start skew."""
    outcomes = []
    for o in batch_outcomes(result, repeat, batch, interrupted, clients.hosts):
        missing = [s.name for s in clients.servers if not _reported(o, s.name)]
        if o.results and missing:  # a client that did no I/O: the sum would be wrong
            o = WorkloadOutcome(
                o.name,
                error=f"client(s) {', '.join(missing)} reported no figures; see fio's output",
            )
        if skew is not None and o.results:
            o = replace(
                o,
                results=tuple(
                    replace(r, metrics=(*r.metrics, (SKEW_METRIC, skew))) for r in o.results
                ),
            )
        outcomes.append(o)
    return outcomes


def _reported(outcome: WorkloadOutcome, host: str) -> bool:
    return any(c.host == host for r in outcome.results for c in r.clients)
