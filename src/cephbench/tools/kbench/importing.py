"""kbench's summary (the Kubernetes storage benchmark Longhorn's author wrote) as people paste
it: a pure function.

::

    =========================
    FIO Benchmark Summary
    For: test_device
    CPU Idleness Profiling: disabled
    Size: 30G
    Quick Mode: disabled
    =========================
    IOPS (Read/Write)
            Random:             35,205 / 765
        Sequential:             39,286 / 867

    Bandwidth in KiB/sec (Read/Write)
            Random:       1,117,899 / 95,300
        Sequential:      1,178,934 / 107,599

    Latency in ns (Read/Write)
            Random:      120,223 / 6,361,935
        Sequential:       54,457 / 5,398,745

Each kind of figure comes from a fio job of its own (IOPS, bandwidth and latency runs with
their own block sizes and depths), so each is stored as a workload of its own, named for it:
``rand_read_iops``, ``seq_write_bw``, ``rand_read_lat``... with only the figure printed
(bandwidth KiB/s x 1024 in bytes/s, latency ns / 1000 in microseconds: exact). The summary's
header (the device, size, modes) is kept as the run's parameters. An older kbench printed
the same without thousands separators; a summary of a comparison (``cmp``) is not read.
"""

from __future__ import annotations

import re

from cephbench.errors import ParseError
from cephbench.model import Result, WorkloadOutcome
from cephbench.tools.found import Found

HEADER = re.compile(r"^=+\s*\nFIO Benchmark Summary\s*\n(?P<head>(?:[^=\n][^\n]*\n)*)=+\s*$", re.M)
SECTION = re.compile(
    r"^(?P<kind>IOPS|Bandwidth in KiB/sec|Latency in ns) \(Read/Write\)\s*\n"
    r"\s*Random:\s*(?P<rr>[\d,]+)\s*/\s*(?P<rw>[\d,]+)\s*\n"
    r"\s*Sequential:\s*(?P<sr>[\d,]+)\s*/\s*(?P<sw>[\d,]+)",
    re.M,
)
KINDS = {"IOPS": "iops", "Bandwidth in KiB/sec": "bw", "Latency in ns": "lat"}
PATTERNS = {"rand": ("randread", "randwrite"), "seq": ("read", "write")}


def looks_like(text: str) -> bool:
    return "FIO Benchmark Summary" in text and "(Read/Write)" in text


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def parse_summary(text: str) -> tuple[dict[str, str], list[WorkloadOutcome]]:
    """One summary: its header's fields, and a workload per figure printed."""
    head = HEADER.search(text)
    params: dict[str, str] = {}
    if head:
        for line in head.group("head").splitlines():
            key, sep, value = line.partition(":")
            if sep:
                params[key.strip()] = value.strip()
    out = []
    for m in SECTION.finditer(text):
        kind = KINDS[m.group("kind")]
        for pattern, prefix in (("rand", "r"), ("seq", "s")):
            for op, rw, group in (
                ("read", PATTERNS[pattern][0], f"{prefix}r"),
                ("write", PATTERNS[pattern][1], f"{prefix}w"),
            ):
                value = _number(m.group(group))
                figures: dict[str, float] = {}
                if kind == "iops":
                    figures["iops"] = float(value)
                elif kind == "bw":
                    figures["bw_bytes_per_s"] = float(value * 1024)
                else:
                    figures["lat_mean_us"] = value / 1000
                name = f"{pattern}_{op}_{kind}"
                result = Result(workload=name, repeat=0, op=op, rw=rw, **figures)  # type: ignore[arg-type]
                out.append(WorkloadOutcome(name, (result,)))
    return params, out


def from_text(text: str, before: str = "") -> list[Found]:
    starts = [m.start() for m in re.finditer(r"^=+\s*\nFIO Benchmark Summary", text, re.M)]
    if not starts:
        raise ParseError("no kbench summary (FIO Benchmark Summary) found")
    found = []
    for start, end in zip(starts, [*starts[1:], len(text)], strict=True):
        block = text[start:end]
        params, workloads = parse_summary(block)
        if not workloads:
            continue
        found.append(Found("kbench", None, tuple(workloads), block, params={"kbench": params}))
    if not found:
        raise ParseError("a kbench summary without figures (IOPS, Bandwidth, Latency)")
    return found
