"""Finding the log files fio wrote for a workload, the options that ask for them, and
reading them back into series."""

from __future__ import annotations

import os
import re
from pathlib import Path

from cephbench.model import Series
from cephbench.tools.fio.logs.log import _NAME, KINDS, Log
from cephbench.tools.fio.logs.reader import parse_log, read_log
from cephbench.tools.fio.logs.timeseries import series


def find_logs(workdir: str | os.PathLike[str], prefix: str) -> list[Path]:
    """The log files fio wrote for ``write_*_log=<prefix>``, by kind then clone number."""
    pattern = re.compile(re.escape(prefix) + _NAME.pattern)
    found = []
    for path in Path(workdir).iterdir():
        m = pattern.fullmatch(path.name)
        if m:
            found.append((KINDS.index(m.group(1)), int(m.group(2) or 0), path))
    return [p for _, _, p in sorted(found)]


def kind_and_clone(name: str) -> tuple[str, int] | None:
    """A log file's kind and clone number (``x_bw.2.log`` -> ("bw", 2); 0 without one)."""
    m = _NAME.search(name)
    return None if m is None else (m.group(1), int(m.group(2) or 0))


def job_options(
    prefix: str, *, interval_ms: int = 1000, per_io_latency: bool = False
) -> dict[str, str]:
    """The fio options that make fio write the logs :func:`collect` reads back.

    Averaged (default): IOPS, bandwidth and latency logs with one ``interval_ms`` window a line.
    ``per_io_latency``: one latency line per I/O instead (large at high IOPS: ~21 bytes an I/O)
    from which IOPS, bandwidth and exact per-interval percentiles are all derived.
    """
    if per_io_latency:
        return {"write_lat_log": prefix, "log_avg_msec": "0"}
    return {
        "write_lat_log": prefix,
        "write_iops_log": prefix,
        "write_bw_log": prefix,
        "log_avg_msec": str(interval_ms),
    }


def collect(
    workdir: str | os.PathLike[str],
    prefix: str,
    *,
    workload: str | None = None,
    repeat: int = 0,
    interval_ms: int | None = None,
    max_values: bool = False,
) -> list[Series]:
    """The time series of one workload from the logs fio wrote in ``workdir`` for ``prefix``.

    See :func:`series`; ``workload`` defaults to ``prefix``. Only the files the series come
    from are read: ``_lat`` (else ``_clat``); ``_iops`` and ``_bw`` unless the latency logs
    are per-I/O (they give IOPS and bandwidth then); never ``_slat``.
    """
    paths = [p for p in find_logs(workdir, prefix) if p.stat().st_size]
    # find_logs gives only names _NAME matches
    kinds = {
        k: [p for p in paths if (m := _NAME.search(p.name)) and m.group(1) == k] for k in KINDS
    }
    latency = kinds["lat"] or kinds["clat"]
    rates = kinds["iops"] + kinds["bw"]
    if latency and not _first_line(latency[0]).averaged:
        rates = []
    logs = [read_log(p) for p in latency + rates]
    return series(
        logs,
        workload=workload or prefix,
        repeat=repeat,
        interval_ms=interval_ms,
        max_values=max_values,
    )


def _first_line(path: Path) -> Log:
    with open(path, "rb") as f:
        return parse_log(f.readline(), path.name)
