"""The per-client spread of a run from many clients (``--clients``, ``--pods``), as notes under
its table: the rows stay the aggregate, as for a run from one machine; the notes say how the
clients differed and which one was slowest (by IOPS), and how far apart they started, in
lines that fit 80 columns. A run from one client (one pod) has no spread to show. ``compare``
and ``report`` show the same spread as a table of its own beside the aggregate's."""

from __future__ import annotations

import re
import textwrap
from typing import TYPE_CHECKING

from cephbench.model import Result, Run
from cephbench.tables.table import MISSING, Table, fmt_ms, fmt_number

if TYPE_CHECKING:
    from cephbench.analysis.clients import ClientSpread
    from cephbench.analysis.compare import Comparison


WIDTH = 80
"""The per-client block's lines fit this many columns (a terminal's, a pipe's): none wraps."""


def client_notes(run: Run) -> list[str]:
    """The per-client block: how the clients differed, a line or two per workload and
    direction; none for a run from one machine or one client (one pod), whose figures are the
    table's own. Every line fits :data:`WIDTH` columns, a client's name never split."""
    with_clients = [r for r in run.results if r.clients]
    hosts = list(dict.fromkeys(str(c.host) for r in with_clients for c in r.clients))
    if len(hosts) < 2:
        return []
    notes = _wrapped(
        [f"Aggregate of {len(hosts)} clients ({', '.join(hosts)});", "per client:"], "  "
    )
    repeats = len({r.repeat for r in run.results}) > 1
    for r in with_clients:
        name, parts = _spread_parts(r, repeats)
        notes += _wrapped([f"{name}: {parts[0]}", *parts[1:]], "    ", glue=True) if parts else []
    return notes


def _spread_parts(r: Result, repeats: bool) -> tuple[str, list[str]]:
    """A workload's name and the parts of its spread: IOPS slowest (named) - fastest, the
    99th percentiles best - worst (the worst named), the start skew."""
    name = f"{r.workload} ({r.op})" + (f" repeat {r.repeat + 1}" if repeats else "")
    measured = [c for c in r.clients if c.iops is not None]
    parts = []
    if measured:
        slow = min(measured, key=lambda c: c.iops or 0.0)
        fast = max(measured, key=lambda c: c.iops or 0.0)
        parts.append(
            f"IOPS {fmt_number(slow.iops)} ({slow.host}, slowest) - {fmt_number(fast.iops)}"
        )
    p99 = [c for c in r.clients if c.lat_p99_us is not None]
    if p99:
        worst = max(p99, key=lambda c: c.lat_p99_us or 0.0)
        best = min(p99, key=lambda c: c.lat_p99_us or 0.0)
        parts.append(
            f"99th pct latency {fmt_ms(best.lat_p99_us)} - {fmt_ms(worst.lat_p99_us)} ms "
            f"({worst.host}, worst)"
        )
    skew = dict(r.metrics).get("start_skew_ms")
    if skew is not None:
        parts.append(f"start skew {skew:.0f} ms")
    return name, parts


GLUE = "\x00"
"""Stands for a space no line may break at while wrapping (textwrap breaks at ASCII spaces)."""


def _wrapped(parts: list[str], indent: str, glue: bool = False) -> list[str]:
    """``parts`` joined by ``; `` (a part ending in ``;`` or ``:`` by a space) into lines of
    at most :data:`WIDTH` columns; a part that does not fit where it would go starts a line
    of its own after ``indent``, and one longer than a line is wrapped between words (with
    ``glue``: never inside parentheses, ``(host, slowest)`` stays on one line)."""
    lines: list[str] = []
    for part in parts:
        if lines:
            sep = " " if lines[-1].endswith((";", ":")) else "; "
            if len(lines[-1]) + len(sep) + len(part) <= WIDTH:
                lines[-1] += sep + part
                continue
            lines[-1] += "" if lines[-1].endswith((";", ":")) else ";"
            part = indent + part
        glued = (
            re.sub(r"\([^()]*\)", lambda m: m.group(0).replace(" ", GLUE), part) if glue else part
        )
        wrapped = textwrap.wrap(
            glued,
            WIDTH,
            subsequent_indent=indent,
            break_long_words=False,
            break_on_hyphens=False,
        )
        lines += [line.replace(GLUE, " ") for line in wrapped or [glued]]
    return lines


def spread_table(cmp: Comparison) -> Table | None:
    """``compare`` and ``report``: per workload and column, the clients' IOPS lowest - highest
    and the slowest client named; None unless a compared run came from many clients (a run
    from one client, one pod, has its figures in its own column: n/a here)."""
    many = [s for s in cmp.clients if len(s.iops) > 1]
    if not many:
        return None
    cells = {(s.workload, s.op, s.column): s for s in many}
    keys = list(dict.fromkeys((s.workload, s.op) for s in many))
    rows = tuple(
        (
            f"{w} ({op})",
            *(spread_cell(cells.get((w, op, c.key))) for c in cmp.columns),
        )
        for w, op in keys
    )
    notes = (
        "The tables above show each run's aggregate (the sum of its clients); this one how "
        "the clients differed: their IOPS, lowest - highest, and the slowest client"
        " (each client's mean over a column's repeats and runs).",
    )
    return Table(
        ("Workload", *(c.name for c in cmp.columns)),
        rows,
        title="Per-client IOPS (runs from many clients)",
        notes=notes,
    )


def spread_cell(spread: ClientSpread | None) -> str:
    """``34616 - 36053 (4 clients, slowest node2)``; n/a for a column from one machine."""
    if spread is None:
        return MISSING
    (slow, low), (_, high) = spread.slowest, spread.fastest
    return f"{fmt_number(low)} - {fmt_number(high)} ({len(spread.iops)} clients, slowest {slow})"
