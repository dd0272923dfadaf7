"""The per-client spread of a run from many clients (``--clients``), as notes under its table:
the rows stay the aggregate, as for a run from one machine; the notes say how the clients
differed and which one was slowest (by IOPS), and how far apart they started. ``compare``
and ``report`` show the same spread as a table of its own beside the aggregate's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cephbench.model import Result, Run
from cephbench.tables.table import MISSING, Table, fmt_ms, fmt_number

if TYPE_CHECKING:
    from cephbench.analysis.clients import ClientSpread
    from cephbench.analysis.compare import Comparison


def client_notes(run: Run) -> list[str]:
    """One line per workload and direction with clients; none for a run from one machine."""
    with_clients = [r for r in run.results if r.clients]
    if not with_clients:
        return []
    hosts = list(dict.fromkeys(c.host for r in with_clients for c in r.clients))
    notes = [f"Aggregate of {len(hosts)} clients ({', '.join(str(h) for h in hosts)}); per client:"]
    repeats = len({r.repeat for r in run.results}) > 1
    for r in with_clients:
        notes.append(spread_line(r, repeats))
    return notes


def spread_line(r: Result, repeats: bool = False) -> str:
    """``seq_wr (write): IOPS 120 (host1, slowest) - 179 (host0); p99 ...; start skew ...``"""
    name = f"{r.workload} ({r.op})" + (f" repeat {r.repeat + 1}" if repeats else "")
    measured = [c for c in r.clients if c.iops is not None]
    parts = []
    if measured:
        slow = min(measured, key=lambda c: c.iops or 0.0)
        fast = max(measured, key=lambda c: c.iops or 0.0)
        parts.append(
            f"IOPS {fmt_number(slow.iops)} ({slow.host}, slowest) - "
            f"{fmt_number(fast.iops)} ({fast.host})"
        )
    p99 = [c for c in r.clients if c.lat_p99_us is not None]
    if p99:
        worst = max(p99, key=lambda c: c.lat_p99_us or 0.0)
        best = min(p99, key=lambda c: c.lat_p99_us or 0.0)
        parts.append(
            f"99th pct latency {fmt_ms(best.lat_p99_us)} - {fmt_ms(worst.lat_p99_us)} ms "
            f"({worst.host})"
        )
    skew = dict(r.metrics).get("start_skew_ms")
    if skew is not None:
        parts.append(f"start skew {skew:.0f} ms")
    return f"{name}: " + "; ".join(parts)


def spread_table(cmp: Comparison) -> Table | None:
    """``compare`` and ``report``: per workload and column, the clients' IOPS lowest - highest
    and the slowest client named; None unless a compared run came from many clients."""
    if not cmp.clients:
        return None
    cells = {(s.workload, s.op, s.column): s for s in cmp.clients}
    keys = list(dict.fromkeys((s.workload, s.op) for s in cmp.clients))
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
