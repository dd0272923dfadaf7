"""The table users post in their write-ups, for one stored run."""

from __future__ import annotations

import re
from collections import Counter

from cephbench.model import Run, flag_text
from cephbench.tables.clients import client_notes
from cephbench.tables.table import Table, fmt_ms, fmt_number, minute

KINDS_DIFFER = "p99_clat"
"""Not a stored flag: marks a row whose average and percentile are of different kinds."""
HEADERS = (
    "Workload",
    "IOPS",
    "Bandwidth (MiB/s)",
    "Avg Latency (ms)",
    "99th Percentile Latency (ms)",
)
KINDS_DIFFER_TEXT = (
    "Avg Latency is fio's total latency (lat); the 99th percentile is of completion "
    "latency (clat), the only percentiles fio recorded (lat_percentiles=1 records "
    "total-latency ones, fio >= 3.9)"
)


def note_text(flag: str) -> str:
    """A table footnote: a flag's text, or the marker of differing latency kinds."""
    return KINDS_DIFFER_TEXT if flag == KINDS_DIFFER else flag_text(flag)


def run_table(run: Run) -> Table:
    """One row per workload and direction (mixed workloads get a read and a write row)."""
    repeats = len({r.repeat for r in run.results}) > 1
    directions = Counter((r.workload, r.repeat) for r in run.results)
    mixed = {key for key, n in directions.items() if n > 1}
    headers = (HEADERS[0], "Repeat", *HEADERS[1:]) if repeats else HEADERS
    rows = []
    flags_seen: list[str] = []
    row_flags = [(*r.flags, *_kinds_differ(r)) for r in run.results]
    everywhere = _on_every_row(row_flags)
    for r, flags in zip(run.results, row_flags, strict=True):
        name = f"{r.workload} ({r.op})" if (r.workload, r.repeat) in mixed else r.workload
        marks = "".join(_mark(f, flags_seen) for f in flags if f not in everywhere)
        cells = [name + marks]
        if repeats:
            cells.append(str(r.repeat + 1))
        cells += [
            fmt_number(r.iops),
            fmt_number(None if r.bw_bytes_per_s is None else r.bw_bytes_per_s / 2**20, 2),
            fmt_ms(r.lat_mean_us),
            fmt_ms(r.lat_p99_us),
        ]
        rows.append(tuple(cells))
    notes = [f"Every row: {note_text(f)}" for f in everywhere]
    notes += [f"[{i + 1}] {note_text(f)}" for i, f in enumerate(flags_seen)]
    notes += schedule_notes(run)
    notes += client_notes(run)
    for f in run.failures:
        notes.append(f"FAILED {f.workload} (repeat {f.repeat + 1}): {f.error}")
    if not run.results and not run.failures and run.error:  # why the table is empty
        notes.append(f"No results: {run.error}")
    notes += import_notes(run)
    which = f"Run {run.id}" if run.id is not None else "Not stored (dry run)"
    title = (
        which
        + (f" — {run.label}" if run.label else "")
        + f" — {run.suite} on {run.target} ({run.status})"
    )
    return Table(headers, tuple(rows), title=title, notes=tuple(notes))


FLAG_WARNING = re.compile(r"\(flag (\w+)\)$")
"""The end of an import warning about a flag (``... (flag no_latency)``): the table's own
footnote of that flag says it already."""


def import_notes(run: Run) -> list[str]:
    """What an imported run's table says of its import: what the import warned about, the
    outputs it skipped beside the run's (cut off), and when the run ran and was imported.

    A cut-off paste stored with what is complete stays ``complete`` (its figures are whole);
    these notes are what tells the reader, wherever the run is shown."""
    imported = run.environment.get("import")
    notes = []
    if isinstance(imported, dict):
        flags = {f for r in run.results for f in r.flags}
        for warning in imported.get("warnings") or ():
            flag = FLAG_WARNING.search(warning)
            if flag is None or flag.group(1) not in flags:
                notes.append(f"Imported with a warning: {warning}")
        notes += [f"Skipped at import: {s}" for s in imported.get("skipped") or ()]
    if run.imported_at is not None:
        if run.imported_at == run.started_at:
            notes.append(
                f"Imported {minute(run.imported_at)} UTC; its output gives no time of its "
                "own, so the run is dated by its import."
            )
        else:
            notes.append(
                f"Ran {minute(run.started_at)} UTC (its output's own time), imported "
                f"{minute(run.imported_at)} UTC."
            )
    return notes


def schedule_notes(run: Run) -> list[str]:
    """How a run's repeats and steady state went: what --target-ci and --steady-state asked for."""
    notes = []
    adaptive = run.params.get("adaptive")
    if adaptive:
        target = run.params.get("target_ci") or 0
        parts = [
            f"{name} {a['repeats']}"
            + (f" (±{a['ci_half_width'] * 100:.1f} %)" if a["ci_half_width"] is not None else "")
            + ("" if a["reached"] else " not reached")
            for name, a in adaptive.items()
        ]
        notes.append(
            f"Repeats to a 95 % CI within ±{target * 100:g} % of the mean IOPS: "
            + ", ".join(parts)
            + "."
        )
    steady = run.params.get("steady_state")
    if steady:
        results = [r for r in run.results if r.op != "trim"]
        reached = sorted({r.workload for r in results if dict(r.metrics).get("ss_attained") == 1.0})
        notes.append(
            f"Steady state ({steady['criterion']} over {steady['duration']:g} s): reached by "
            f"{len(reached)} of {len({r.workload for r in results})} workload(s)."
        )
    return notes


def _kinds_differ(r) -> tuple[str, ...]:
    """The mark of a row whose mean is total latency and whose p99 is completion latency."""
    differ = (
        r.lat_kind == "clat"
        and "clat_mean" not in r.flags
        and r.lat_mean_us is not None
        and r.lat_p99_us is not None
    )
    return (KINDS_DIFFER,) if differ else ()


def _on_every_row(row_flags: list[tuple[str, ...]]) -> list[str]:
    """The flags every row of a table of several rows has: one note says so, and no row is
    marked (a marker on every row tells the reader nothing about any one of them)."""
    if len(row_flags) < 2:
        return []
    return [f for f in dict.fromkeys(row_flags[0]) if all(f in flags for flags in row_flags)]


def _mark(flag: str, seen: list[str]) -> str:
    if flag not in seen:
        seen.append(flag)
    return f" [{seen.index(flag) + 1}]"
