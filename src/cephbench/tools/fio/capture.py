"""fio's bandwidth, IOPS and latency logs for every workload a run starts: asked for in the
job file, read back into time series once the fio process ends, then deleted.

The logs are averaged by fio over short intervals (``log_avg_msec``): a tenth of a second for
short workloads, a second from 30 s up, so a point has tens of samples at least and a long
run stays small. With ``per_io`` fio logs every I/O's latency instead (~21 bytes an I/O in
the run's work directory until it is read), and the series get exact per-interval p99 and
max latency. A job that already writes its own logs (a user's job file) is left as it is:
its logs are the user's, and cephbench does not read them.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from cephbench.errors import ParseError
from cephbench.model import Series
from cephbench.tools.fio.jobfile import JobFile
from cephbench.tools.fio.logs.names import job_options
from cephbench.tools.fio.plan import time_based_runtime

LOG_OPTIONS = ("write_bw_log", "write_iops_log", "write_lat_log", "write_hist_log")
LOG_PREFIX = "cblog"
"""Each job's logs are named ``cblog<job index>_<kind>.<clone>.log`` in fio's directory."""


def interval_ms(options: dict[str, str | None]) -> int:
    """Averaging interval: ~30 samples over the runtime, between 100 ms and 1 s."""
    runtime = time_based_runtime(options)
    if runtime is None:
        return 1000
    return int(min(1000, max(100, round(runtime * 1000 / 30, -2))))


class Logged(NamedTuple):
    """The logs asked of one job: their names' prefix (relative to fio's cwd), and the window
    they are averaged over (``log_avg_msec``; None when every I/O is logged)."""

    prefix: str
    interval_ms: int | None


def with_logs(jobfile: JobFile, per_io: bool = False) -> tuple[JobFile, dict[str, Logged]]:
    """The job file with logs asked for, and what was asked of each job."""
    jobs, logged = [], {}
    for i, job in enumerate(jobfile.jobs):
        merged = jobfile.merged(job)
        if any(k in merged for k in LOG_OPTIONS):
            jobs.append(job)
            continue
        prefix, window = f"{LOG_PREFIX}{i}", interval_ms(merged)
        logged[job.name] = Logged(prefix, None if per_io else window)
        jobs.append(
            job.with_options(job_options(prefix, interval_ms=window, per_io_latency=per_io))
        )
    return JobFile(jobfile.global_, tuple(jobs)), logged


def workload_series(workdir: Path, logged: Logged, workload: str, repeat: int) -> list[Series]:
    """The series of one workload's logs (none when fio wrote none), the log files removed.
    Averaged logs are read over the window fio was asked for: guessed from the lines, it
    would be two windows when most of them held no I/O."""
    from cephbench.tools.fio.logs.files import collect  # numpy: once there are logs to read

    try:
        found = collect(
            workdir,
            logged.prefix,
            workload=workload,
            repeat=repeat,
            interval_ms=logged.interval_ms,
        )
    except ParseError:
        found = []  # a log cut short (fio killed) loses the series, never the run's figures
    finally:
        for path in workdir.glob(f"{logged.prefix}_*.log"):
            path.unlink(missing_ok=True)
    return found
