"""``ceph tell osd.* bench`` as people paste it, every release: a pure function of the text.

- What ``ceph tell 'osd.*' bench`` prints: ``osd.0: {`` and the OSD's JSON over several lines
  (``-f json``: on one line), one block per OSD; an OSD that did not answer is a line
  ``Error ENXIO: problem getting command descriptions from osd.2`` (``osd.2: Error ...``
  in older releases).
- One OSD's JSON without a prefix (``ceph tell osd.3 bench``): named from the command line
  when it was pasted, else ``osd``.
- The text form old releases logged (``ceph -w``): ``osd.0 [INF] bench: wrote 1024 MB in
  blocks of 4096 KB in 6.204518 sec at 165 MB/sec``; Ceph's ``KB``/``MB`` are binary, like
  its ``KiB``/``MiB``. IOPS, when not printed, is derived as writes / seconds and flagged.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from cephbench.errors import ParseError
from cephbench.model import Result
from cephbench.tools.osd_bench.driver import from_data

_NUM = r"\d+(?:\.\d+)?"
PREFIXED = re.compile(r"^\s*(?P<osd>osd\.\d+):\s*(?P<rest>\S.*)$")
TEXT = re.compile(
    rf"bench: wrote (?P<count>{_NUM})\s*(?P<cu>[KMGT]?i?B) in blocks of "
    rf"(?P<bs>{_NUM})\s*(?P<bu>[KMGT]?i?B) in (?P<sec>{_NUM}) sec at (?P<rate>{_NUM})\s*(?P<ru>[KMGT]?i?B)/sec"
    rf"(?:\s+(?P<iops>{_NUM}) IOPS)?"
)
ERROR = re.compile(
    r"(?P<error>Error E[A-Z]+: problem getting command descriptions from (?P<osd>osd\.\d+))"
)
OSD = re.compile(r"\bosd\.\d+\b")
SINGLE = re.compile(r"\bceph\b.*?\btell\s+'?(?P<osd>osd\.\d+)'?\s+bench\b")
POWER = {"": 0, "K": 1, "M": 2, "G": 3, "T": 4}


@dataclass(frozen=True)
class OsdBench:
    """One OSD's bench in pasted text: its figures, or why it has none."""

    name: str
    result: Result | None
    error: str | None = None
    cut: str | None = None
    """Why it was not read: its JSON stops before it is complete (a paste cut off)."""


def parse_all(text: str) -> list[OsdBench]:
    """Every OSD bench in ``text``, in order; ParseError when there is none."""
    found: list[OsdBench] = []
    decoder, offset, skip_to = json.JSONDecoder(), 0, 0
    for line in text.splitlines(keepends=True):
        start, offset = offset, offset + len(line)
        if start < skip_to:
            continue
        prefixed = PREFIXED.match(line)
        if prefixed and prefixed["rest"].startswith("{"):
            brace = start + line.index("{")
            try:
                data, skip_to = decoder.raw_decode(text, brace)
            except (ValueError, RecursionError):  # the lines after it are read again
                cut = f"{prefixed['osd']}: its bench output is cut off (not complete JSON)"
                found.append(OsdBench(prefixed["osd"], None, cut=cut))
                continue
            found.append(OsdBench(prefixed["osd"], from_data(data, prefixed["osd"])))
        elif (m := TEXT.search(line)) and (osd := OSD.findall(line[: m.start()])):
            found.append(OsdBench(osd[-1], _from_text(m, osd[-1])))
        elif m := ERROR.search(line):
            found.append(OsdBench(m["osd"], None, m["error"]))
    return found or _single(text, decoder)


def _single(text: str, decoder: json.JSONDecoder) -> list[OsdBench]:
    """Each OSD's JSON with no ``osd.N:`` before it (``ceph tell osd.3 bench``, one OSD a
    command), named from the last such command line above it."""
    found, end = [], 0
    for m in re.finditer(r"^\s*\{", text, re.MULTILINE):
        if m.start() < end:
            continue  # inside the previous document
        try:
            data, stop = decoder.raw_decode(text, m.end() - 1)
        except (ValueError, RecursionError):
            continue
        if isinstance(data, dict) and ("bytes_written" in data or "osd_bench_results" in data):
            commands = list(SINGLE.finditer(text, end, m.start()))
            name = commands[-1]["osd"] if commands else "osd"
            found.append(OsdBench(name, from_data(data, name)))
            end = stop
    if not found:
        raise ParseError("no ceph tell osd bench output (osd.N: {...}, or bench: wrote ...) found")
    return found


def _bytes(number: str, unit: str) -> float:
    return float(number) * 1024 ** POWER[unit[:-1].rstrip("i")]


def _from_text(m: re.Match, name: str) -> Result:
    written, bs = int(_bytes(m["count"], m["cu"])), int(_bytes(m["bs"], m["bu"]))
    seconds = float(m["sec"])
    iops = float(m["iops"]) if m["iops"] else None
    flags: tuple[str, ...] = ()
    if iops is None and bs and seconds > 0:
        iops, flags = written / bs / seconds, ("iops_derived",)
    return Result(
        workload=name,
        repeat=0,
        op="write",
        rw="write",
        bs=bs or None,
        iodepth=1,
        numjobs=1,
        runtime_s=seconds,
        iops=iops,
        bw_bytes_per_s=_bytes(m["rate"], m["ru"]),
        io_bytes=written,
        total_ios=written // bs if bs else None,
        flags=flags,
    )
