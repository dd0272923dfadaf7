"""A capacity search as tables and lines (``cephbench capacity``, ``--format md``), from its
``cephbench.capacity/1`` document. Pure."""

from __future__ import annotations

from typing import Any

from cephbench.capacity import at_knee
from cephbench.tables.table import Table, fmt_change, fmt_figure, fmt_ms

OUTCOMES = {
    "pass": "meets",
    "behind": "behind",
    "slow": "too slow",
    "unknown": "unknown",
}


def headline(doc: dict[str, Any]) -> list[str]:
    """What the search found, in a sentence or two."""
    r, rule = doc["result"], doc["rule"]
    what = (
        f"{doc['workload']['rw']} {doc['workload']['bs']} at p{rule['percentile']:g} <= "
        f"{fmt_ms(rule['target_us'])} ms" + (f", while {doc['while']}" if doc["while"] else "")
    )
    if doc["workload"].get("generators"):
        w = doc["workload"]
        what += f", offered from {w['generators']} {w['spread']} (an equal share each)"
    if r["capacity_iops"] is None:
        lines = [f"Capacity of {what}: inconclusive ({r['reason']})."]
    else:
        ci = r["ci95_iops"]
        band = (
            f", 95 % CI {fmt_figure(ci[0], 'IO/s')}-{fmt_figure(ci[1], 'IO/s')} "
            f"(±{r['ci_pct']:.1f} %)"
            if ci
            else ""
        )
        lines = [
            f"Capacity of {what}: {fmt_figure(r['capacity_iops'], 'IO/s')} IOPS{band} over "
            f"{r['repeats']} repeat(s): {r['verdict']} ({r['reason']})."
        ]
    if doc.get("cross_check"):
        lines.append(cross_check_line(doc["cross_check"], rule["percentile"]))
    if doc["knee"]:
        k = doc["knee"]
        lines.append(
            f"Knee: {fmt_figure(k['offered_iops'], 'IO/s')} IOPS offered, "
            f"p{rule['percentile']:g} {fmt_ms(k['latency_us'])} ms."
        )
    if doc.get("part_at_knee"):
        lines.append(at_knee.line(doc["part_at_knee"]))
    return lines


LEGEND = (
    "Step: 'meets' kept up (achieved within the tolerance of offered) with the percentile "
    "under the target; 'behind' fell short of the offered rate; 'too slow' kept up over the "
    "target."
)


def cross_check_line(found: dict[str, Any], percentile: float) -> str:
    """What fio's latency_target mode found, said as a cross-check of the capacity. fio
    resets its figures at each depth it tries and stops once settled, so its IOPS and
    percentile are those of its last window, at the depth found."""
    p = found["percentile_us"]
    at = f" and p{percentile:g} {fmt_ms(p)} ms" if p is not None else ""
    deepest = " (the deepest allowed)" if found["depth"] >= found["max_depth"] else ""
    return (
        f"Cross-check, fio's latency_target mode (a closed loop): depth {found['depth']} of "
        f"{found['max_depth']}{deepest}, {fmt_figure(found['iops'], 'IO/s')} IOPS{at} in its "
        f"last {found['window_s']:g} s window (run {found['run_id']})."
    )


def steps_table(doc: dict[str, Any]) -> Table:
    """Every step in the order run: offered against achieved, the percentiles, the outcome."""
    background = sorted({k for s in doc["steps"] for k in s["background"]})
    schedulers = {s.get("scheduler") for s in doc["steps"]} - {None}
    varied = len(schedulers) > 1  # a column only when it changed between steps
    rows = []
    for s in doc["steps"]:
        rows.append(
            (
                str(s["repeat"] + 1),
                fmt_figure(s["offered_iops"], "IO/s"),
                fmt_figure(s["achieved_iops"], "IO/s"),
                fmt_ms(s["p50_us"]),
                fmt_ms(s["p99_us"]),
                fmt_ms(s["p999_us"]),
                *(fmt_figure(s["background"].get(k), "") for k in background),
                *((s.get("scheduler") or "-",) if varied else ()),
                OUTCOMES[s["outcome"]],
                str(s["run_id"]),
            )
        )
    same = (
        (f"The OSDs' scheduler in every step: {next(iter(schedulers))}.",)
        if (len(schedulers) == 1)
        else ()
    )
    return Table(
        (
            "Repeat",
            "Offered IOPS",
            "Achieved IOPS",
            "p50 (ms)",
            "p99 (ms)",
            "p99.9 (ms)",
            *background,
            *(("Scheduler",) if varied else ()),
            "Step",
            "Run",
        ),
        tuple(rows),
        title=f"Capacity search {doc['capacity']}: steps",
        notes=(LEGEND, *same, *doc["notes"]),
        align=("r",) * (6 + len(background)) + ("l",) * varied + ("l", "r"),
    )


def comparison_table(doc: dict[str, Any]) -> Table:
    """Two searches side by side: each one's capacity, CI, repeats and verdict."""
    rows = []
    for side in ("a", "b"):
        d = doc[side]
        r = d["result"]
        ci = r["ci95_iops"]
        rows.append(
            (
                str(d["capacity"]),
                d["target"] or "-",
                d["while"] or "healthy",
                fmt_figure(r["capacity_iops"], "IO/s"),
                f"{fmt_figure(ci[0], 'IO/s')}-{fmt_figure(ci[1], 'IO/s')}" if ci else "-",
                str(r["repeats"]),
                r["verdict"],
            )
        )
    return Table(
        ("Search", "Target", "While", "Capacity (IOPS)", "95 % CI", "Repeats", "Verdict"),
        tuple(rows),
        title="Capacity searches compared",
        align=("r", "l", "l", "r", "r", "r", "l"),
    )


def comparison_line(doc: dict[str, Any]) -> str:
    """B's difference from A, its CI and the verdict."""
    change = fmt_change(doc["diff_pct"], doc["diff_ci95_pct"])
    return (
        f"Search {doc['b']['capacity']} against {doc['a']['capacity']}: {change}: "
        f"{doc['verdict']} ({doc['reason']})."
    )
