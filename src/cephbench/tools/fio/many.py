"""fio from many clients at once (``--clients``): one ``fio --client`` process per workload.

fio's own client/server mode does the work: ``fio --client=ADDR,PORT JOB0 --client=... JOB1``
sends each client (a ``fio --server`` on that host) its job file and starts them together;
the report comes back with one entry per client (clients.py turns it into each client's
results and the aggregate). Each workload is a process of its own: the chain's gates
(chain.py) are local files, and stonewall groups on several servers do not wait for one
another, so one workload per ``fio --client`` is what starts every client at once.

How close together the clients started is measured, not assumed: each client's job logs its
IOPS with wall-clock timestamps (``log_unix_epoch``, 100 ms intervals; fio sends the log back
to the client side); the spread of the clients' first samples is the workload's start skew,
kept as the aggregate's ``start_skew_ms`` metric (the hosts' clocks are taken as in sync).
"""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from cephbench.errors import ParseError
from cephbench.model import RawOutput, WorkloadOutcome, now
from cephbench.planning.plan import Batch
from cephbench.planning.schedule import MIN_REPEATS
from cephbench.system.process import ProcessInterrupted, ProcessResult, run
from cephbench.tools.base import RunContext, Step
from cephbench.tools.fio import command as fio_command
from cephbench.tools.fio import parse as fio_parse
from cephbench.tools.fio.capture import LOG_OPTIONS
from cephbench.tools.fio.jobfile import JobFile

START_LOG = "cbstart"
START_LOG_MSEC = 100
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

    @property
    def hosts(self) -> dict[str, str]:
        return {s.key: s.name for s in self.servers}


def with_start_logs(jobfile: JobFile, client: int) -> JobFile:
    """Each job logs its IOPS with wall-clock times (unless it already writes logs)."""
    jobs = []
    for job in jobfile.jobs:
        if any(k in jobfile.merged(job) for k in LOG_OPTIONS):
            jobs.append(job)
            continue
        jobs.append(
            job.with_options(
                {
                    "write_iops_log": f"{START_LOG}{client}",
                    "log_avg_msec": str(START_LOG_MSEC),
                    "log_unix_epoch": "1",
                }
            )
        )
    return JobFile(jobfile.global_, tuple(jobs))


def start_times(work: Path, clients: int) -> dict[int, float]:
    """Each client's first logged sample, ms since the epoch (the log files removed)."""
    out: dict[int, float] = {}
    for k in range(clients):
        for path in sorted(work.glob(f"{START_LOG}{k}_iops.*.log*")):
            try:
                first = path.read_text().split(",", 1)[0].strip()
                if first.isdigit():
                    out[k] = min(out.get(k, float("inf")), float(first))
            finally:
                path.unlink(missing_ok=True)
    return out


def start_skew_ms(starts: dict[int, float], clients: int) -> float | None:
    """The spread of the clients' start times; None unless every client logged one."""
    if clients < 2 or len(starts) < clients:
        return None
    return max(starts.values()) - min(starts.values())


def client_argv(servers: Sequence[FioServer], jobfiles: Sequence[str]) -> list[str]:
    argv = [fio_command.fio_path(), f"--output-format={fio_command.OUTPUT_FORMAT}"]
    for server, name in zip(servers, jobfiles, strict=True):
        argv += [server.client_option, name]
    return argv


def clients_steps(ctx: RunContext, clients: Clients) -> Iterator[Step]:
    """Repeat by repeat, the workloads the schedule asks for, each on every client at once."""
    plan, schedule = ctx.plan, ctx.schedule
    seconds = {w.name: w.seconds for w in plan.workloads}
    planned_repeats = min(schedule.repeats, MIN_REPEATS) if schedule.adaptive else schedule.repeats
    todo = [n for r in range(planned_repeats) for n in schedule.pending(r)]
    ctx.progress.start(sum(seconds[n] for n in todo) if None not in seconds.values() else None)
    t0 = time.monotonic()
    for repeat in range(schedule.repeats):
        names = [
            n for n in schedule.pending(repeat, time.monotonic() - t0) if n not in schedule.broken
        ]
        if not names:
            continue
        selected = plan.only(names)
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
    for k, batch in enumerate(batches):
        text = with_start_logs(batch.jobfile, k).render()
        names.append(f"client{k}.fio")
        (work / names[-1]).write_text(text)
        texts.append(f"# client {clients.servers[k].name} ({clients.servers[k].key})\n{text}")
    interrupted = False
    try:
        result = run(
            client_argv(clients.servers, names),
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
    skew = start_skew_ms(start_times(work, len(batches)), len(batches))
    outcomes = _outcomes(result, repeat, batches[0], clients, interrupted, skew)
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


def _outcomes(
    result: ProcessResult,
    repeat: int,
    batch: Batch,
    clients: Clients,
    interrupted: bool,
    skew: float | None,
) -> list[WorkloadOutcome]:
    from cephbench.tools.fio.steps import _finished

    try:
        jobs = fio_parse.parse(result.stdout, repeat, result.stderr, clients.hosts)
    except ParseError:
        if interrupted:
            return []
        message = f"fio failed: {result.last_error_line()}"
        return [WorkloadOutcome(j.name, error=message) for j in batch.jobfile.jobs]
    if interrupted:
        jobs = _finished(jobs, batch.jobfile)
    outcomes = []
    for j in jobs:
        o = j.outcome()
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
