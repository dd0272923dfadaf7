"""``rados bench``: argv builder and a pure parser of its text report.

The summary keys differ between releases: newer ones carry units (``Average Latency(s):``),
older ones do not (``Average Latency:``, ``Bandwidth (MB/sec): ``), Jewel's seq and rand
print ``Average IOPS`` without a colon, releases before Infernalis print no IOPS at all and
some print figures like ``1.03e+03``; ``--show-time`` puts a timestamp before some lines.
All of these are read. rados bench's "MB" is MiB (it divides bytes by 1024*1024).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal

from cephbench.errors import ParseError
from cephbench.model import Result

MODES = ("write", "seq", "rand")
_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_ROW = re.compile(
    rf"^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+({_NUM})\s+({_NUM})\s+(-|{_NUM})\s+({_NUM})\s*$"
)
_SUMMARY = re.compile(
    rf"^\s*(?P<key>[A-Za-z][A-Za-z ]*?(?:\s*\((?:s|MB/sec)\))?)\s*:?\s*(?P<value>{_NUM})\s*$"
)
_TIMESTAMP = re.compile(r"^\s*\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:\.\d+)?(?:[+-]\d\d:?\d\d|Z)?")
KEYS = {  # normalised key (lower case, units dropped) -> our name
    "total time run": "total_time",
    "total writes made": "ops",
    "total reads made": "ops",
    "write size": "op_size",
    "read size": "op_size",
    "object size": "object_size",
    "bandwidth": "bw",
    "stddev bandwidth": "bw_stddev",
    "max bandwidth": "bw_max",
    "min bandwidth": "bw_min",
    "average iops": "iops",
    "stddev iops": "iops_stddev",
    "max iops": "iops_max",
    "min iops": "iops_min",
    "average latency": "lat",
    "stddev latency": "lat_stddev",
    "max latency": "lat_max",
    "min latency": "lat_min",
}
MIB = 1 << 20


def argv(
    pool: str, mode: str, seconds: int, *, concurrent: int, object_size: int | None, run_name: str
) -> list[str]:
    """Arguments after ``rados`` for one mode; ``write`` keeps its objects for seq and rand."""
    args = ["-p", pool, "bench", str(seconds), mode, "-t", str(concurrent), "--run-name", run_name]
    if mode == "write":
        args.append("--no-cleanup")
        if object_size:
            args += ["-b", str(object_size)]
    return args


@dataclass(frozen=True)
class BenchOutput:
    """One ``rados bench`` run: its summary figures and the per-second table."""

    mode: str
    summary: dict[str, float]
    series: tuple[tuple[float, float, float, float | None], ...]
    """Per second: (sec, cur MiB/s, avg latency s, last latency s or None)."""
    kind: str | None = None
    """``write`` or ``read``: whether it printed ``Total writes made`` or ``Total reads made``."""


def _key(text: str) -> str | None:
    name = re.sub(r"\s*\((?:s|MB/sec)\)\s*", " ", text).strip().lower()
    return KEYS.get(re.sub(r"\s+", " ", name))


def summary_line(line: str) -> tuple[str, float] | None:
    """(our key, value) of one summary line such as ``Average Latency(s):   0.72``; else None."""
    if len(line) > 200:  # summary lines are short; a long one is something else (and slow to match)
        return None
    m = _SUMMARY.match(_TIMESTAMP.sub("", line))
    name = _key(m["key"]) if m else None
    if m is None or name is None:
        return None
    value = float(m["value"])
    return (name, value) if math.isfinite(value) else None


def row(line: str) -> int | None:
    """The second of a per-second table row (``  10  16  396  381  152.356 ...``), else None."""
    if len(line) > 300:
        return None
    m = _ROW.match(_TIMESTAMP.sub("", line))
    return int(m[1]) if m else None


def parse(text: str, mode: str) -> BenchOutput:
    """Summary and per-second rows of one run's stdout; ParseError when there is no summary."""
    summary: dict[str, float] = {}
    series = []
    kind = None
    for raw in text.splitlines():
        line = _TIMESTAMP.sub("", raw)
        row = _ROW.match(line)
        if row:
            sec, cur_mb, last, avg = int(row[1]), float(row[6]), row[7], float(row[8])
            if sec > 0:
                series.append((float(sec), cur_mb * MIB, avg, None if last == "-" else float(last)))
            continue
        found = summary_line(line)
        if found:
            summary[found[0]] = found[1]
            if found[0] == "ops":
                kind = "write" if "write" in line.lower() else "read"
    if "total_time" not in summary or "ops" not in summary:
        last = next((ln for ln in reversed(text.splitlines()) if ln.strip()), "no output")
        raise ParseError(f"rados bench {mode} printed no summary: {last.strip()[:200]}")
    return BenchOutput(mode, summary, tuple(series), kind)


def _micro(seconds: float) -> float:
    """Seconds as printed to µs without binary noise: 0.129699 s is 129699.0 µs."""
    return float(Decimal(repr(seconds)) * 1_000_000)


def to_result(out: BenchOutput, repeat: int, concurrent: int | None) -> Result:
    """The same row fio results use: op write/read, rw write/seq/rand; µs and bytes.

    Releases before Infernalis print no IOPS: it is then derived, as the ops made over the
    time run (what later releases print, before they round it down), and flagged
    ``iops_derived``.
    """
    s = out.summary
    size = int(s.get("op_size") or s.get("object_size") or 0) or None
    us = {k: _micro(s[k]) for k in ("lat", "lat_stddev", "lat_max", "lat_min") if k in s}
    metrics = {f"{k}_us": v for k, v in us.items() if k in ("lat_stddev", "lat_min")}
    metrics.update({k: s[k] for k in ("iops_stddev", "iops_max", "iops_min") if k in s})
    metrics.update(
        {f"{k}_bytes_per_s": s[k] * MIB for k in ("bw_stddev", "bw_max", "bw_min") if k in s}
    )
    iops = s.get("iops")
    flags: tuple[str, ...] = ()
    if iops is None and s["total_time"] > 0 and math.isfinite(s["ops"] / s["total_time"]):
        iops, flags = s["ops"] / s["total_time"], ("iops_derived",)
    return Result(
        workload=out.mode,
        repeat=repeat,
        op="write" if out.mode == "write" else "read",
        rw=out.mode,
        bs=size,
        iodepth=concurrent,
        numjobs=1,
        runtime_s=s["total_time"],
        iops=iops,
        bw_bytes_per_s=s["bw"] * MIB if "bw" in s else None,
        io_bytes=int(s["ops"]) * size if size else None,
        total_ios=int(s["ops"]),
        lat_mean_us=us.get("lat"),
        lat_max_us=us.get("lat_max"),
        lat_kind="lat" if "lat" in us else None,
        flags=flags,
        metrics=tuple(sorted(metrics.items())),
    )
