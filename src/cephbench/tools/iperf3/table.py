"""The network tables: every directed pair (Gbit/s as received, retransmits, ping's RTT,
the MTU check), then the N×N matrix of Gbit/s (sender row, receiver column) with the pairs
far below the others named."""

from __future__ import annotations

from cephbench.model import Run
from cephbench.tables.table import MISSING, Table, fmt_number
from cephbench.tools.iperf3.matrix import Matrix, Outlier, matrix, outliers

DIAGONAL = "—"


def network_table(run: Run) -> Table:
    rows = []
    for r in run.results:
        m = dict(r.metrics)
        bits = m.get("bits_per_second")
        rows.append(
            (
                r.workload + (" [" + ", ".join(r.flags) + "]" if r.flags else ""),
                MISSING if bits is None else f"{bits / 1e9:.2f}",
                MISSING if "retransmits" not in m else f"{m['retransmits']:.0f}",
                MISSING if "rtt_ms" not in m else f"{m['rtt_ms']:.3f}",
                _mtu(m),
                fmt_number(r.runtime_s, 1),
            )
        )
    notes = [f"FAILED {f.workload}: {f.error}" for f in run.failures]
    procs = {int(dict(r.metrics).get("processes", 1)) for r in run.results}
    each = (
        f"{max(procs)} iperf3 processes per pair, summed"
        if max(procs, default=1) > 1
        else ("one iperf3 process per pair")
    )
    notes.append(
        f"iperf3 TCP, {each}; Gbit/s as received. RTT: ping's average. "
        "MTU: the sender's, sent unfragmented (ok) or not (FAILS)."
    )
    title = (
        f"Run {run.id}" + (f" — {run.label}" if run.label else "") + f" — network ({run.status})"
    )
    return Table(
        ("Hosts", "Gbit/s", "Retransmits", "RTT ms", "MTU", "Seconds"),
        tuple(rows),
        title=title,
        notes=tuple(notes),
    )


def _mtu(m: dict[str, float]) -> str:
    if "mtu" not in m:
        return MISSING
    return f"{m['mtu']:.0f} " + ("ok" if m.get("mtu_ok") else "FAILS")


def matrix_table(run: Run) -> Table | None:
    """Gbit/s over sender × receiver (the mean of repeats); None without host pairs."""
    mx = matrix(run.results)
    if not mx.hosts:
        return None
    rows = tuple((a, *(_cell(mx, a, b) for b in mx.hosts)) for a in mx.hosts)
    return Table(
        ("from \\ to", *mx.hosts),
        rows,
        title="Gbit/s received, sender (row) to receiver (column)",
        notes=tuple(outlier_notes(outliers(mx.cells))),
    )


def _cell(mx: Matrix, a: str, b: str) -> str:
    if a == b:
        return DIAGONAL
    value = mx.cells.get((a, b))
    return MISSING if value is None else f"{value / 1e9:.2f}"


def outlier_notes(found: list[Outlier]) -> list[str]:
    """One line per outlier, or one saying there is none."""
    if not found:
        return ["No pair far below the median of all pairs (3 scaled MADs and 10 %)."]
    return [
        f"Outlier {o.pair[0]}->{o.pair[1]}: {o.value / 1e9:.2f} Gbit/s, {o.below_pct:.0f} % "
        f"below the median of all pairs ({o.median / 1e9:.2f})"
        + (f", {abs(o.robust_z):.1f} scaled MADs" if o.robust_z is not None else "")
        + "."
        for o in found
    ]
