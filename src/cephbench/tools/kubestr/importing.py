"""kubestr's ``fio`` output (Kasten's Kubernetes storage checker, ``kubestr fio -s CLASS``) as
people paste it: a pure function.

::

    Running FIO test (default-fio) on StorageClass (ceph-block) with a PVC of Size (10Gi)
    Elapsed time- 31.005216056s
    FIO test results:

    FIO version - fio-3.36
    Global options - ioengine=libaio verify=0 direct=1 gtod_reduce=1

    JobName: read_iops
      blocksize=4K filesize=2G iodepth=64 rw=randread
    read:
      IOPS=4516.090332 BW(KiB/s)=18081
      iops: min=3948 max=5351 avg=4545.344727
      bw(KiB/s): min=15792 max=21405 avg=18182.035156
    ...
    Disk stats (read/write):
      rbd0: ios=146995/45202 merge=0/12 ticks=1862837/2004973 in_queue=3867810, util=...
      -  OK

One output is one run, a workload per ``JobName`` with a result per side printed (``read:``,
``write:``): IOPS as printed, ``BW(KiB/s)`` x 1024 in bytes/s (fio's KiB, exact), the job's
``blocksize``/``iodepth``/``rw`` as the result's parameters and the per-second ``iops:`` and
``bw(KiB/s):`` min/max/avg as metrics. kubestr prints no latency (its jobs run with
``gtod_reduce=1``): latency is absent, flagged ``no_latency``, never 0. The StorageClass,
PVC size, fio version, global options, each job's options and the disk stats are the run's
params (``params["kubestr"]``).

A job cut off before its figures is skipped, named; jobs whole but no ``Disk stats`` line
after them, or lines that belong to no job (a garbled paste), are stored with a warning
naming them, as fio's normal output is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from cephbench.errors import ParseError
from cephbench.model import Result, WorkloadOutcome
from cephbench.tools.found import Found

RESULTS = re.compile(r"^[ \t]*FIO test results:", re.M)
RUNNING = re.compile(
    r"Running FIO test \((?P<test>[^)]*)\) on StorageClass \((?P<sc>[^)]*)\)"
    r" with a PVC of Size \((?P<size>[^)]*)\)"
)
ELAPSED = re.compile(r"Elapsed time- *(\S+)")
PVC = re.compile(r"^[ \t]*(PVC|Pod) created (\S+)", re.M)
OPTIONS = re.compile(r"^(?:\w+=\S+)(?: +\w+=\S+)*$")
IOPS = re.compile(r"^IOPS=(?P<iops>\d+(?:\.\d+)?) BW\(KiB/s\)=(?P<bw>\d+)$")
STAT = re.compile(
    r"^(?P<kind>iops|bw\(KiB/s\)): min=(?P<min>\d+) max=(?P<max>\d+) avg=(?P<avg>\d+(?:\.\d+)?)$"
)
DISK = re.compile(r"^(?P<dev>[^\s:]+): ios=\S+.*$")
SIZE = re.compile(r"^(?P<n>\d+)(?P<unit>[kKmMgG]?)$")
UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}


def looks_like(text: str) -> bool:
    return "JobName:" in text and bool(RESULTS.search(text)) and "FIO version - " in text


@dataclass
class _Side:
    op: Literal["read", "write"]
    iops: float | None = None
    bw_kib: int | None = None
    stats: dict[str, tuple[int, int, float]] = field(default_factory=dict)

    def whole(self) -> bool:
        return self.iops is not None and len(self.stats) == 2


@dataclass
class _Job:
    name: str
    options: dict[str, str] | None = None
    sides: list[_Side] = field(default_factory=list)

    def missing(self) -> str | None:
        """What of the job was not printed, or None when it is whole."""
        if self.options is None:
            return "its options line (blocksize=... rw=...)"
        if not self.sides:
            return "its figures (read:/write:)"
        for s in self.sides:
            if s.iops is None:
                return f"its {s.op} IOPS line"
            for kind in ("iops", "bw(KiB/s)"):
                if kind not in s.stats:
                    return f"its {s.op} {kind}: line"
        return None


def _options(line: str) -> dict[str, str]:
    return dict(pair.split("=", 1) for pair in line.split())


def _bytes(size: str | None) -> int | None:
    m = SIZE.match(size or "")
    return int(m.group("n")) * UNITS[m.group("unit").lower()] if m else None


def _int(text: str | None) -> int | None:
    return int(text) if text and text.isdigit() else None


def _result(job: _Job, side: _Side, flags: tuple[str, ...]) -> Result:
    opts = job.options or {}
    assert side.iops is not None and side.bw_kib is not None
    metrics = [
        (f"{'iops' if kind == 'iops' else 'bw_kib_per_s'}_{what}", float(value))
        for kind, (low, high, avg) in side.stats.items()
        for what, value in (("min", low), ("max", high), ("avg", avg))
    ]
    return Result(
        workload=job.name,
        repeat=0,
        op=side.op,
        rw=opts.get("rw"),
        bs=_bytes(opts.get("blocksize")),
        iodepth=_int(opts.get("iodepth")),
        iops=side.iops,
        bw_bytes_per_s=float(side.bw_kib * 1024),
        flags=flags,
        metrics=tuple(metrics),
    )


def parse_output(block: str, above: str) -> Found:
    """One output: the text from its ``FIO test results:`` line to the next one's (``above``:
    the text before it since the previous output's, whose last ``Running FIO test`` line,
    ``Elapsed time`` and ``PVC created`` are its own)."""
    params: dict[str, Any] = {}
    head = ([None, *RUNNING.finditer(above)])[-1]
    if head:
        params.update(fio_test=head["test"], storage_class=head["sc"], pvc_size=head["size"])
    for elapsed in ELAPSED.finditer(above):
        params["elapsed"] = elapsed.group(1)
    for kind, obj in PVC.findall(above):
        params[kind.lower()] = obj
    lines = block.replace("\r", "").split("\n")
    stray: list[str] = []
    rest = RESULTS.sub("", lines[0], count=1).strip()
    if rest:
        stray.append(lines[0].strip())
    jobs: list[_Job] = []
    disks: list[str] | None = None
    for raw in lines[1:]:
        line = raw.strip()
        if not line or line.startswith("-  OK") or line == "- OK":
            continue
        if disks is not None:
            if DISK.match(line):
                disks.append(line)
                continue
            break  # the output ends with its disk stats: what follows is the post's
        job = jobs[-1] if jobs else None
        side = job.sides[-1] if job and job.sides else None
        if line.startswith("FIO version - ") and job is None:
            params["fio_version"] = line.removeprefix("FIO version - ").strip()
        elif (
            line.startswith("Global options - ")
            and job is None
            and OPTIONS.match(options := line.removeprefix("Global options - ").strip())
        ):
            params["global_options"] = _options(options)
        elif line.startswith("JobName:"):
            jobs.append(_Job(line.removeprefix("JobName:").strip()))
        elif line == "Disk stats (read/write):":
            disks = []
        elif job and job.options is None and not job.sides and OPTIONS.match(line):
            job.options = _options(line)
        elif job and job.options is not None and line in ("read:", "write:"):
            job.sides.append(_Side(line[:-1]))  # type: ignore[arg-type]
        elif side and side.iops is None and (m := IOPS.match(line)):
            side.iops, side.bw_kib = float(m["iops"]), int(m["bw"])
        elif side and side.iops is not None and (m := STAT.match(line)):
            if m["kind"] in side.stats:
                stray.append(line)
            else:
                side.stats[m["kind"]] = (int(m["min"]), int(m["max"]), float(m["avg"]))
        else:
            stray.append(line)
    if disks is not None:
        params["disk_stats"] = disks
    params["jobs"] = {j.name: j.options for j in jobs if j.options is not None}
    whole = [j for j in jobs if j.missing() is None]
    where = f" on StorageClass {head['sc']}" if head else ""
    skipped = tuple(
        f"kubestr job {j.name}{where} cut off: {j.missing()} not in the output"
        for j in jobs
        if j.missing() is not None
    )
    warnings: list[str] = []
    if stray:
        shown = "; ".join(repr(s) for s in stray[:3]) + (" ..." if len(stray) > 3 else "")
        warnings.append(
            f"{len(stray)} line{'s' * (len(stray) != 1)} belonging to no job (a garbled "
            f"paste?), not read: {shown}"
        )
    if whole and disks is None:
        warnings.append("the output ends before kubestr's 'Disk stats' line: cut off there?")
    gtod = params.get("global_options", {}).get("gtod_reduce") == "1"
    flags = ("no_latency",)
    if not gtod:
        warnings.append("kubestr prints no latency: none stored")
    outcomes = tuple(
        WorkloadOutcome(j.name, tuple(_result(j, s, flags) for s in j.sides)) for j in whole
    )
    return Found(
        "kubestr",
        None,
        outcomes,
        block,
        tuple(warnings) if outcomes else (),
        skipped,
        params={"kubestr": params},
    )


def from_text(text: str, before: str = "") -> list[Found]:
    starts = [m.start() for m in RESULTS.finditer(text)]
    if not starts:
        raise ParseError("no kubestr fio output ('FIO test results:') found")
    found = []
    for previous, start, end in zip([0, *starts], starts, [*starts[1:], len(text)], strict=False):
        found.append(parse_output(text[start:end], text[previous:start]))
    if not any(f.outcomes or f.skipped for f in found):
        raise ParseError("kubestr output without any job (JobName: ...) in it")
    return [f for f in found if f.outcomes or f.skipped]
