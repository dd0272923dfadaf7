"""A tune as tables: the attempts table a user would have typed by hand (each attempt's
IOPS per workload, the difference to the previous attempt and to the first with their CIs,
the verdict, kept or reverted), the remedies ``tune --list`` prints, and the plan of
``--dry-run``. Figures and CIs formatted as ``compare`` and ``ab`` format them."""

from __future__ import annotations

import textwrap
from typing import Any

from cephbench.tables.table import Table, fmt_change, fmt_figure
from cephbench.tuning.remedies.base import Remedy


def attempts_table(doc: dict[str, Any], sep: str = "\n") -> Table:
    rows = []
    for a in doc.get("attempts", []):
        what = (
            "final vs first"
            if a["final"]
            else (a["remedy"] or "as found")
            + ("".join(f"\n{c}" for c in a["changes"]) if sep == "\n" else "")
        )
        kept = "" if a["kept"] is None else ("kept" if a["kept"] else "reverted")
        for i, c in enumerate(a["cells"]):
            prev, first = c["to_previous"], c["to_first"]
            rows.append(
                (
                    str(a["attempt"]) if i == 0 else "",
                    what if i == 0 else "",
                    c["workload"],
                    fmt_figure(c["iops"], "IO/s"),
                    ""
                    if prev is None or a["final"]
                    else fmt_change(prev["pct"], prev["ci95"], sep),
                    "" if first is None else fmt_change(first["pct"], first["ci95"], sep),
                    c["verdict"] or "",
                    (f"{a['verdict']}, {kept}" if kept else a["verdict"] or "") if i == 0 else "",
                )
            )
    corr = doc.get("correction") or {}
    notes = (
        [
            f"IOPS; CIs at {(1 - corr['level']) * 100:.4g} % (Bonferroni over {corr['tests']} tests, alpha "
            f"{corr['alpha']:g}); a change is kept when better on its own workloads and no "
            f"workload is worse by more than the ±{doc['guard_pct']:g} % guard"
        ]
        if corr
        else []
    )
    notes += [
        f"attempt {a['attempt']}: {a['reason']}" for a in doc.get("attempts", []) if a["reason"]
    ]
    return Table(
        (
            "attempt",
            "change",
            "workload",
            "IOPS",
            "vs previous",
            "vs first",
            "verdict",
            "attempt verdict",
        ),
        tuple(rows),
        title=f"Tune {doc['tune']}: attempts",
        notes=tuple(notes),
        align=("r", "l", "l", "r", "r", "r", "l", "l"),
    )


def remedies_table(found: dict[str, Remedy]) -> Table:
    rows = [
        (
            r.name,
            ", ".join(r.answers),
            f"{', '.join(r.kinds)}: {', '.join(r.keys)}",
            f"{r.metric} {'up' if r.higher_is_better else 'down'} on {', '.join(r.workloads)}",
            r.cost.value,
        )
        for r in found.values()
    ]
    return Table(
        ("remedy", "answers", "changes", "should move", "cost"),
        tuple(rows),
        title="Remedies cephbench tune knows",
        notes=tuple(f"{r.name}: {r.summary}" for r in found.values()),
        align=("l", "l", "l", "l", "l"),
    )


def plan_table(doc: dict[str, Any]) -> Table:
    rows = [
        (
            str(c["attempt"]) if c.get("attempt") else "-",
            c["remedy"],
            c["finding"],
            "\n".join(c["changes"]),
            c["cost"],
            c.get("skipped") or "",
        )
        for c in doc.get("candidates", [])
    ]
    return Table(
        ("attempt", "remedy", "answers", "changes", "cost", "skipped"),
        tuple(rows),
        title="Tune plan",
        notes=tuple(doc.get("plan_notes", [])),
        align=("r", "l", "l", "l", "l", "l"),
    )


def kept_lines(doc: dict[str, Any]) -> list[str]:
    return [f"kept: {k['change']} (undo: {k['revert']})" for k in doc.get("kept", [])]


PLAN_NARROW = 100
"""Below this many columns ``--dry-run`` prints its plan as blocks (:func:`plan_blocks`): the
table's six columns, a change a line each, wrap a command over several lines at 80."""


def plan_blocks(doc: dict[str, Any], width: int) -> str:
    """The plan of ``--dry-run`` as blocks of at most ``width`` columns: per candidate, its
    attempt (or that it is not tried), the remedy, the finding it answers and its cost, then
    each change on a line of its own and why it is skipped; then the plan's notes."""
    lines = ["Tune plan", ""]
    for c in doc.get("candidates", []):
        head = f"attempt {c['attempt']}: " if c.get("attempt") else "not tried: "
        lines += _wrap(f"{head}{c['remedy']} (answers {c['finding']}; {c['cost']})", width, 4)
        for change in c["changes"]:
            lines += _wrap(f"    {change}", width, 6)
        if c.get("skipped"):
            lines += _wrap(f"    skipped: {c['skipped']}", width, 6)
        lines.append("")
    if not doc.get("candidates"):
        lines += ["No finding has a remedy cephbench knows (tune --list).", ""]
    for note in doc.get("plan_notes", []):
        lines += _wrap(note, width, 2)
    return "\n".join(lines)


def _wrap(text: str, width: int, indent: int) -> list[str]:
    """``text`` in lines of at most ``width`` columns, each after the first indented."""
    return textwrap.wrap(
        text, width, subsequent_indent=" " * indent, break_on_hyphens=False, drop_whitespace=True
    ) or [""]
