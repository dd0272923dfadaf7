"""The network table: iperf3 between host pairs, Gbit/s as received, retransmits."""

from __future__ import annotations

from cephbench.model import Run
from cephbench.report.table import MISSING, Table, fmt_number


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
                fmt_number(r.runtime_s, 1),
            )
        )
    notes = [f"FAILED {f.workload}: {f.error}" for f in run.failures]
    notes.append("iperf3, one TCP stream; Gbit/s as received.")
    title = (
        f"Run {run.id}" + (f" — {run.label}" if run.label else "") + f" — network ({run.status})"
    )
    return Table(
        ("Hosts", "Gbit/s", "Retransmits", "Seconds"), tuple(rows), title=title, notes=tuple(notes)
    )
