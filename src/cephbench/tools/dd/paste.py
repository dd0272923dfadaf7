"""GNU dd's summary as people paste it, every form coreutils has printed: a pure function.

::

    $ dd if=/dev/zero of=/dev/vdb bs=4M count=1024 conv=fdatasync
    1024+0 records in
    1024+0 records out
    4294967296 bytes (4.3 GB, 4.0 GiB) copied, 22.2571 s, 193 MB/s

Before coreutils 8.24 the parentheses held one size (``(4.3 GB)``); under 1 kB there are
none (``512 bytes copied``); some locales print ``22,2571 s``. The rate is the bytes over the
seconds, exactly: dd's ``193 MB/s`` is rounded to 3 figures and in decimal units, so it is
never read. The command line, when pasted above its summary (in the block, or in the text
above it), gives the direction and the parameters: ``of=/dev/null`` is a read (of whatever
``if=`` names), ``if=/dev/zero``/``/dev/urandom`` a write; ``bs=`` (or ``obs=``/``ibs=``) the
block size; ``iflag``/``oflag``/``conv`` (direct, dsync, fdatasync) are kept as they were.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cephbench.model import Result

SUMMARY = re.compile(
    r"^\s*(?P<bytes>\d+) bytes?(?: \([^)\n]*\))? copied, "
    r"(?P<sec>\d+(?:[.,]\d+)?(?:e[-+]?\d+)?) s, [\d.,]+ ?[kMGTPE]?i?B/s\s*$",
    re.MULTILINE,
)
RECORDS = re.compile(r"^\s*(?P<full>\d+)\+(?P<partial>\d+) records out\s*$", re.MULTILINE)
COMMAND = re.compile(r"(?:^|[\s;|&$#>])dd\s+(?P<operands>(?:\S+=\S*\s*)+)$", re.MULTILINE)
SIZE = re.compile(r"^(?P<n>\d+)(?P<unit>[a-zA-Z]*)$")
UNITS = {"": 1, "c": 1, "w": 2, "b": 512, "k": 1024, "K": 1024}
UNITS |= {f"{p}B": 1000**i for i, p in enumerate("kMGTPE", 1)}
UNITS |= {p: 1024**i for i, p in enumerate("KMGTPE", 1)}
UNITS |= {f"{p}iB": 1024**i for i, p in enumerate("KMGTPE", 1)}
READ_FROM_NOTHING = ("/dev/zero", "/dev/urandom", "/dev/random")
PARAMETERS = ("if", "of", "bs", "ibs", "obs", "count", "iflag", "oflag", "conv")


@dataclass(frozen=True)
class Copy:
    """One dd copy in pasted text: its figures, its command's operands when pasted."""

    result: Result
    operands: dict[str, str]
    warnings: tuple[str, ...] = ()


def size(text: str | None) -> int | None:
    """A dd size operand (``4M``, ``1k``, ``512``, ``1MB``) in bytes; None if it is none."""
    m = SIZE.match(text or "")
    if m is None or m["unit"] not in UNITS:
        return None
    return int(m["n"]) * UNITS[m["unit"]]


def operands(line: str) -> dict[str, str]:
    """The ``key=value`` operands of a dd command line, those cephbench keeps."""
    pairs = (word.split("=", 1) for word in line.split() if "=" in word)
    return {k: v for k, v in pairs if k in PARAMETERS}


def _direction(ops: dict[str, str]) -> tuple[str, list[str]]:
    if not ops:
        return "write", ["no command line: stored as a write (what dd copies into of=)"]
    if ops.get("of") == "/dev/null":
        return "read", []
    if ops.get("if") in READ_FROM_NOTHING or "of" in ops:
        return "write", []
    return "read", []  # no of=: dd writes to its stdout, what it measures is the read


def _copy(summary: re.Match, above: str) -> Copy:
    commands = list(COMMAND.finditer(above))
    ops = operands(commands[-1]["operands"]) if commands else {}
    op, warnings = _direction(ops)
    records = list(RECORDS.finditer(above))
    total = int(records[-1]["full"]) + int(records[-1]["partial"]) if records else None
    written, seconds = int(summary["bytes"]), float(summary["sec"].replace(",", "."))
    bs = size(ops.get("bs") or ops.get("obs" if op == "write" else "ibs"))
    return Copy(
        Result(
            workload=op,
            repeat=0,
            op=op,  # type: ignore[arg-type]
            rw=op,
            bs=bs if ops else None,
            iodepth=1,
            numjobs=1,
            runtime_s=seconds,
            bw_bytes_per_s=written / seconds if seconds > 0 else None,
            io_bytes=written,
            total_ios=total,
        ),
        ops,
        tuple(warnings),
    )


def parse_all(text: str, before: str = "") -> list[Copy]:
    """Every dd summary in ``text``, in order, each with the command line and records lines
    since the previous summary (for the first, from ``before`` too)."""
    out: list[Copy] = []
    start = 0
    for m in SUMMARY.finditer(text):
        above = text[start : m.start()]
        if not out and not COMMAND.search(above):
            above = before + "\n" + above
        out.append(_copy(m, above))
        start = m.end()
    return out
