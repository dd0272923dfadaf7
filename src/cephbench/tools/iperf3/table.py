"""The network tables: every directed pair (bits per second as received, retransmits, ping's
RTT, the MTU check), then the N×N matrix of it (sender row, receiver column) with the pairs
far below the others named. Figures in Gbit/s or Mbit/s by size, as everywhere
(:func:`cephbench.system.units.bits_unit`)."""

from __future__ import annotations

from cephbench.model import Run
from cephbench.system.units import BITS_UNITS, bits_unit, format_bits
from cephbench.tables.run_table import import_notes
from cephbench.tables.table import MISSING, Table, fmt_number
from cephbench.tools.iperf3.matrix import Matrix, Outlier, matrix, outliers

DIAGONAL = "—"


def network_table(run: Run) -> Table:
    unit = bits_unit(max((b for r in run.results if (b := _bits(r)) is not None), default=None))
    rows = []
    for r in run.results:
        m = dict(r.metrics)
        bits = _bits(r)
        rows.append(
            (
                r.workload + (" [" + ", ".join(r.flags) + "]" if r.flags else ""),
                MISSING if bits is None else format_bits(bits, unit),
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
    protocols = "/".join(sorted({r.rw.upper() for r in run.results if r.rw in ("tcp", "udp")}))
    notes.append(
        f"iperf3 {protocols or 'TCP'}, {each}; {unit[0]} as received. RTT: ping's average. "
        "MTU: the sender's, sent unfragmented (ok) or not (FAILS)."
    )
    notes += import_notes(run)
    which = f"Run {run.id}" if run.id is not None else "Not stored (dry run)"
    title = which + (f" — {run.label}" if run.label else "") + f" — network ({run.status})"
    return Table(
        ("Hosts", unit[0], "Retransmits", "RTT ms", "MTU", "Seconds"),
        tuple(rows),
        title=title,
        notes=tuple(notes),
    )


def _bits(r) -> float | None:
    return dict(r.metrics).get("bits_per_second")


def _mtu(m: dict[str, float]) -> str:
    if "mtu" not in m:
        return MISSING
    return f"{m['mtu']:.0f} " + ("ok" if m.get("mtu_ok") else "FAILS")


def matrix_table(run: Run) -> Table | None:
    """Bits per second over sender × receiver (the mean of repeats); None without host pairs."""
    mx = matrix(run.results)
    if not mx.hosts:
        return None
    unit = bits_unit(max(mx.cells.values(), default=None))
    rows = tuple((a, *(_cell(mx, a, b, unit) for b in mx.hosts)) for a in mx.hosts)
    return Table(
        ("from \\ to", *mx.hosts),
        rows,
        title=f"{unit[0]} received, sender (row) to receiver (column)",
        notes=tuple(outlier_notes(outliers(mx.cells), unit)),
    )


def _cell(mx: Matrix, a: str, b: str, unit: tuple[str, float]) -> str:
    if a == b:
        return DIAGONAL
    value = mx.cells.get((a, b))
    return MISSING if value is None else format_bits(value, unit)


def outlier_notes(found: list[Outlier], unit: tuple[str, float] | None = None) -> list[str]:
    """One line per outlier, or one saying there is none; in ``unit`` (default Gbit/s: the
    report's heatmap is in Gbit/s)."""
    if not found:
        return ["No pair far below the median of all pairs (3 scaled MADs and 10 %)."]
    unit = unit or BITS_UNITS[0]
    return [
        f"Outlier {o.pair[0]}->{o.pair[1]}: {format_bits(o.value, unit)} {unit[0]}, "
        f"{o.below_pct:.0f} % below the median of all pairs ({format_bits(o.median, unit)})"
        + (f", {abs(o.robust_z):.1f} scaled MADs" if o.robust_z is not None else "")
        + "."
        for o in found
    ]
