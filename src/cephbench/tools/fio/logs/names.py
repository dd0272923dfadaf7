"""What names fio's logs and what asks fio for them: the log kinds, the file names, the job
options. Without numpy, so that a run asks for logs before anything reads one (the readers,
with numpy, are imported when the first workload's logs are read)."""

from __future__ import annotations

import os
import re
from pathlib import Path

KINDS = ("lat", "clat", "slat", "iops", "bw")
OPS = ("read", "write", "trim")
EPOCH_MS = 10**11
"""Log times from here on are unix-epoch ms (``log_unix_epoch=1``): 1973-03-03, or 3 years
after a job's start."""
_NAME = re.compile(r"_(lat|clat|slat|iops|bw)(?:\.(\d+))?\.log$")


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
