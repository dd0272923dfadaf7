"""One fio log file's columns (:class:`Log`) and the views of them the readers, series and
summaries share: which directions a log has, one direction's lines, runs of rising time."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from itertools import pairwise

import numpy as np

from cephbench.tools.fio.logs.names import EPOCH_MS


@dataclass(frozen=True, eq=False)
class Log:
    """The columns of one fio log file, as fio wrote them (units in the package docstring)."""

    name: str
    """The file's name, for messages."""
    kind: str
    """lat, clat, slat, iops or bw; '' when the file name does not say."""
    clone: int
    """N of ``<prefix>_<kind>.N.log`` (fio's thread number); 0 for ``<prefix>_<kind>.log``."""
    t_ms: np.ndarray
    """int64: ms since the job started, or since 1970 (``log_unix_epoch``)."""
    value: np.ndarray
    """int64: ns (latency logs), KiB/s (bw), I/O per second (iops)."""
    ddir: np.ndarray
    """int8: 0 read, 1 write, 2 trim."""
    bs: np.ndarray
    """int32: the I/O's size in bytes; 0 in averaged logs."""

    def __len__(self) -> int:
        return len(self.t_ms)

    @cached_property
    def lines_per_direction(self) -> tuple[int, int, int]:
        # (bincount: 8x the memory)
        read, write, trim = (int(np.count_nonzero(self.ddir == d)) for d in range(3))
        return read, write, trim

    @property
    def averaged(self) -> bool:
        """Windowed (``log_avg_msec``): fio writes block size 0 there, an I/O's size otherwise."""
        return len(self) > 0 and int(self.bs[0]) == 0

    @property
    def epoch(self) -> bool:
        """Times are unix-epoch ms (``log_unix_epoch=1``)."""
        return len(self) > 0 and int(self.t_ms[0]) >= EPOCH_MS


def _mixed(log: Log) -> bool:
    return sum(n > 0 for n in log.lines_per_direction) > 1


def _has(log: Log, d: int) -> bool:
    return log.lines_per_direction[d] > 0


def _direction(log: Log, d: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Time, value and block size of the lines of direction d."""
    if not _mixed(log):
        return log.t_ms, log.value, log.bs
    sel = log.ddir == d
    return log.t_ms[sel], log.value[sel], log.bs[sel]


def _runs(t: np.ndarray) -> list[slice]:
    """Stretches of nondecreasing time: one per clone when ``per_job_logs=0`` wrote the clones
    one after another into one file; one for a clone's own file."""
    backs = np.flatnonzero(t[1:] < t[:-1]) + 1
    bounds = [0, *backs.tolist(), len(t)]
    return [slice(a, b) for a, b in pairwise(bounds)]
