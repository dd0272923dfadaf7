"""``rados bench`` outputs as people paste them: several in one text, with or without their
command lines, from any release. A pure function of the text.

Each output ends with its summary (``Total time run:`` ... ``Min latency:``); whatever comes
after one summary and before the next (prompts, the next command, its per-second table) is
the next output's preamble. The mode comes from the command line when it was pasted
(``rados bench -p rbd 60 write``, ``rados -p x bench 10 rand -t 16``), else from the output
itself: ``Maintaining N concurrent writes`` or ``Total writes made`` is a write; a read
without its command line is ``read``, since nothing in the output tells seq from rand.
Write-ups often put the command in its own block above the output (``before``): the last
command line there is used, with a warning saying so.

An output cut off before its summary (a per-second table that stops) is never imported: its
figures are incomplete. ``truncated`` names each one so the importer can say it skipped it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from cephbench.errors import ParseError
from cephbench.model import Result
from cephbench.tools.found import printed_time
from cephbench.tools.rados_bench import driver as rados_bench
from cephbench.tools.rados_bench.driver import BenchOutput

COMMAND = re.compile(r"\brados\b.*?\bbench\b(?P<args>.*)$")
MODE = re.compile(r"(?<![-\w])\d+\s+(?P<mode>write|seq|rand)\b")
CONCURRENT = re.compile(r"(?:^|\s)(?:-t\s*|--concurrent-ios[= ]\s*)(?P<n>\d+)\b")
MAINTAINING = re.compile(r"Maintaining (?P<n>\d+) concurrent writes")
STAMP = re.compile(
    r"^\s*(?P<at>\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d)(?:\.\d+)?(?P<zone>[+-]\d\d:?\d\d|Z)?",
    re.MULTILINE,
)
"""A time opening a line: ``--show-time``'s ``2026-11-21T13:20:38.395823+0000``, or the
``2014-05-13 10:21:32.540958`` old releases print over the per-second table."""


@dataclass(frozen=True)
class Pasted:
    """One rados bench output found in pasted text."""

    output: BenchOutput
    concurrent: int | None
    """``-t`` (ops in flight) when the command line or the output says it; else None."""
    warnings: tuple[str, ...] = ()
    started_at: str | None = None
    """The first time the output prints (``--show-time``, old releases' table headers)."""

    def result(self) -> Result:
        return rados_bench.to_result(self.output, 0, self.concurrent)


def split(text: str) -> list[str]:
    """The text of each output: its preamble, per-second table and summary."""
    return _split(text)[0]


def _split(text: str) -> tuple[list[str], str]:
    """Each output's text, and what follows the last summary."""
    parts: list[str] = []
    current: list[str] = []
    in_summary = False
    for line in text.splitlines():
        is_summary = rados_bench.summary_line(line) is not None
        if in_summary and not is_summary and line.strip():
            parts.append("\n".join(current))
            current, in_summary = [], False
        current.append(line)
        in_summary = in_summary or is_summary
    if in_summary:
        parts.append("\n".join(current))
        current = []
    return parts, "\n".join(current)


def _tables(text: str) -> list[int]:
    """The last second of each per-second table in ``text`` (a table starts again at second 0
    or 1, or when the second goes back)."""
    tables: list[int] = []
    last = None
    for line in text.splitlines():
        row = rados_bench.row(line)
        if row is None:
            continue
        if last is None or row <= last or row == 0:
            tables.append(row)
        else:
            tables[-1] = row
        last = row
    return tables


def truncated(text: str) -> list[str]:
    """One line for each output in ``text`` cut off before its summary (a per-second table
    with no summary after it) or inside it (a summary without its last line, ``Min
    latency``): those are skipped, never half-imported."""
    parts, tail = _split(text)
    cut = [s for part in parts for s in _tables(part)[:-1]] + _tables(tail)
    return [f"a rados bench output cut off at second {s}, before its summary" for s in cut] + [
        f"a rados bench output cut off in its summary, after {last}"
        for last in map(_cut_summary, parts)
        if last
    ]


def _summary(part: str) -> dict[str, str]:
    """The summary lines of one output: our key -> the line."""
    lines = ((rados_bench.summary_line(ln), ln) for ln in part.splitlines())
    return {found[0]: line.strip() for found, line in lines if found}


def _cut_summary(part: str) -> str | None:
    """The last summary line of an output whose summary stops before ``Min latency`` (every
    release ends its summary with it), else None."""
    summary = _summary(part)
    if not summary.keys() & {"total_time", "ops"} or "lat_min" in summary:
        return None
    return f"'{list(summary.values())[-1][:60]}'"


def _commands(part: str) -> list[tuple[str, str]]:
    """(line, mode) of each ``rados ... bench SECONDS MODE`` command line in ``part``."""
    out = []
    for line in part.splitlines():
        if len(line) > 500 or "rados" not in line:  # command lines are short
            continue
        command = COMMAND.search(line)
        mode = MODE.search(command["args"]) if command else None
        if mode:
            out.append((line, mode["mode"]))
    return out


def _mode(part: str, kind: str | None, lines: list[tuple[str, str]]) -> tuple[str, list[str]]:
    commands = [mode for _, mode in lines]
    if commands and (commands[-1] == "write") == (kind == "write"):
        return commands[-1], []
    warnings = (
        [f"the command line says {commands[-1]} but the output is a {kind}: read as {kind}"]
        if commands
        else []
    )
    if kind == "write" or MAINTAINING.search(part):
        return "write", warnings
    return "read", [*warnings, 'no command line: seq or rand is unknown, stored as rw "read"']


def _concurrent(part: str, commands: list[tuple[str, str]]) -> int | None:
    found = (CONCURRENT.search(commands[-1][0]) if commands else None) or MAINTAINING.search(part)
    return int(found["n"]) if found else None


def _started(part: str) -> str | None:
    m = STAMP.search(part)
    if m is None:
        return None
    at = m["at"].replace(" ", "T")
    return printed_time(at + (m["zone"] or ""), "%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%dT%H:%M:%S")


def parse_pasted(text: str, before: str = "") -> list[Pasted]:
    """Every rados bench output in ``text``, in order; ParseError when there is none.

    ``before``: the text above the block ``text`` came from (prose, a fenced command line);
    its last command line stands for the first output's, when that has none of its own."""
    out = []
    above = _commands(before)[-1:]
    for part in split(text):
        keys = _summary(part).keys()
        if not keys & {"total_time", "ops"} or _cut_summary(part):
            continue  # figures quoted in prose, a summary cut above its first lines or inside
        bench = rados_bench.parse(part, "output")
        commands, note = _commands(part), []
        if not commands and above:
            commands = above
            note = [f"command line taken from above the output: {above[0][0].strip()[:120]}"]
        mode, warnings = _mode(part, bench.kind, commands)
        bench = replace(bench, mode=mode)
        out.append(
            Pasted(bench, _concurrent(part, commands), tuple(note + warnings), _started(part))
        )
        above = []
    if not out:
        raise ParseError("no rados bench summary (Total time run:, Total writes/reads made:) found")
    return out
