"""fio's log files (``write_lat_log``, ``write_iops_log``, ``write_bw_log``) as time series.

A log line is ``time, value, direction, block size, offset[, priority]`` (fio 3.x, see LOG
FILE FORMATS in ``man fio``): time in ms since the job started (unix-epoch ms with
``log_unix_epoch=1``); value in ns for ``_lat``/``_clat``/``_slat`` logs, KiB/s for ``_bw``,
I/O per second for ``_iops``; direction 0 read, 1 write, 2 trim. With ``log_avg_msec=N`` each
line is one window of N ms (its mean, or its max with ``log_max_value=1``; block size and
offset are then 0), else one line per I/O. ``numjobs`` clones write one file each
(``<prefix>_lat.<N>.log``, N fio's thread number) unless ``per_job_logs=0`` puts them one after
another into ``<prefix>_lat.log``. fio 3.33 writes integers only; anything else is refused.

Reading is vectorised, chunk by chunk; no Python code runs per line. Measured on this 2-core
machine (numpy 2, no AVX2) on a per-I/O latency log of 10 M lines (210 MB, ``bench/latlog.py``):
``np.loadtxt`` parses ~65 MB/s, ``np.fromstring(sep=",")`` ~120 MB/s (and checks nothing of
a line's shape), a digit-matrix gather per field (one column per digit, then a dot product)
~90 MB/s; the way chosen here ~180 MB/s on one thread. A file is read in 4 MiB chunks cut at
the last newline, into a few reused buffers (fresh memory per chunk cost more in page faults
than the parsing). In a chunk, ``np.flatnonzero`` finds the newlines and commas, which gives
every field's end; a field is then read as the 8 bytes that end it, one little-endian uint64
gathered from an unaligned view of the chunk, and turned into its integer with SWAR
arithmetic: mask the bytes before the field, check each is a digit, then three
multiply-shift steps join digit pairs, quads and the octet; 9-16 digit fields take a second
word. Time and block size repeat line after line, so each run of equal fields is converted
once. Two threads parse chunks side by side (numpy releases the GIL in these loops). Only time,
value, direction and block size are kept (int64, int64, int8, int32: 21 bytes a line); offset
and priority are counted as columns but not read. The whole ingest of the 10 M-line log
(read, per-second series, exact percentiles; Python start included) takes 1.2-1.5 s here
(2.1 s of CPU over both threads) and ~300 MB peak RSS, where fio-plot took ~265 s and 5 GB to
draw its graph of the same file.

Summaries: exact percentiles with one ``np.partition`` (O(n) for all of them). Per-interval
figures follow the log's own order: one job's per-I/O log is in completion order, so
``np.searchsorted`` finds the interval bounds, ``np.add/maximum.reduceat`` the sums and maxima,
and a per-interval p99 is one ``np.partition`` of that interval's samples. A log not in time
order (``per_job_logs=0``: the clones one after another) is split where time goes back, or
sorted.

Modules: ``log`` (the :class:`Log` columns, what the others share of them), ``reader`` (a file
in chunks, in threads), ``fields`` (a chunk's lines into integers, SWAR), ``files`` (a
workload's logs), ``timeseries`` with ``per_io`` and ``averaged`` (per-interval figures),
``summary`` (exact percentiles).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cephbench.registry import lazy_api

if TYPE_CHECKING:
    from cephbench.model import Series
    from cephbench.tools.fio.logs.files import collect
    from cephbench.tools.fio.logs.log import Log
    from cephbench.tools.fio.logs.names import (
        EPOCH_MS,
        KINDS,
        OPS,
        find_logs,
        job_options,
        kind_and_clone,
    )
    from cephbench.tools.fio.logs.per_io import MAX_INTERVALS
    from cephbench.tools.fio.logs.reader import _read_columns, parse_log, read_log
    from cephbench.tools.fio.logs.summary import PERCENTILES, LatencySummary, latency_summary, rank
    from cephbench.tools.fio.logs.timeseries import series

_WHERE = {
    "Series": "cephbench.model",
    "collect": "cephbench.tools.fio.logs.files",
    "find_logs": "cephbench.tools.fio.logs.names",
    "job_options": "cephbench.tools.fio.logs.names",
    "kind_and_clone": "cephbench.tools.fio.logs.names",
    "EPOCH_MS": "cephbench.tools.fio.logs.names",
    "KINDS": "cephbench.tools.fio.logs.names",
    "OPS": "cephbench.tools.fio.logs.names",
    "Log": "cephbench.tools.fio.logs.log",
    "MAX_INTERVALS": "cephbench.tools.fio.logs.per_io",
    "_read_columns": "cephbench.tools.fio.logs.reader",
    "parse_log": "cephbench.tools.fio.logs.reader",
    "read_log": "cephbench.tools.fio.logs.reader",
    "PERCENTILES": "cephbench.tools.fio.logs.summary",
    "LatencySummary": "cephbench.tools.fio.logs.summary",
    "latency_summary": "cephbench.tools.fio.logs.summary",
    "rank": "cephbench.tools.fio.logs.summary",
    "series": "cephbench.tools.fio.logs.timeseries",
}
"""Where each name lives: imported on first use (PEP 562), so that asking for logs
(:mod:`.names`) does not load numpy and the readers before a workload has run."""


__getattr__ = lazy_api(__name__, _WHERE)


# CHUNK_BYTES is not re-exported: it is read in .reader, so set it there (a copy here would
# change nothing).
__all__ = [
    "EPOCH_MS",
    "KINDS",
    "MAX_INTERVALS",
    "OPS",
    "PERCENTILES",
    "LatencySummary",
    "Log",
    "Series",
    "_read_columns",
    "collect",
    "find_logs",
    "job_options",
    "kind_and_clone",
    "latency_summary",
    "parse_log",
    "rank",
    "read_log",
    "series",
]
