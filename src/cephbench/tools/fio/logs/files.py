"""Reading the log files fio wrote for a workload back into series (finding them, and the
options that ask for them: :mod:`.names`)."""

from __future__ import annotations

import os
from pathlib import Path

from cephbench.model import Series
from cephbench.tools.fio.logs.log import Log
from cephbench.tools.fio.logs.names import _NAME, KINDS, find_logs
from cephbench.tools.fio.logs.reader import parse_log, read_log
from cephbench.tools.fio.logs.timeseries import series


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
