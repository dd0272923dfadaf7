"""An A/B experiment as JSON (``cephbench.ab/1``) and as tables: the verdicts and the smallest
change each could detect, the changes applied and reverted, every round's points (drift shows
there) and the summary line. Figures, percentages and CIs are formatted as ``compare`` and
``show`` format them (:mod:`cephbench.tables.table`)."""

from __future__ import annotations

from typing import Any

from cephbench.analysis.equivalence import SAME_WITHIN
from cephbench.contracts import AB as SCHEMA
from cephbench.store import Store, experiments
from cephbench.tuning.analyze import analyze, row_json, summary_line
from cephbench.tuning.experiment import played_rounds
from cephbench.tuning.rounds import drift_weight
from cephbench.tuning.verdict import ALPHA

TEST = "paired t-test on per-block log ratios ln(B/A), Benjamini-Hochberg across cells"
SEQUENTIAL = "union-bound (alpha-spending) confidence sequence, alpha/(n(n-1)) at block n"


def to_json(store: Store, exp_id: int) -> dict[str, Any]:
    exp = experiments.get(store, exp_id)
    played = played_rounds(store, exp)
    sequential = exp.spec.get("target_ci_pct") is not None
    same_within = exp.spec.get("same_within_pct", SAME_WITHIN)
    rows = analyze(played, sequential=sequential, same_within=same_within)
    sides = exp.spec["sides"]
    runs = {s: [r["run_id"] for r in exp.rounds if r["side"] == s.upper()] for s in "ab"}
    return {
        "schema": SCHEMA,
        "experiment": exp.id,
        "suite": exp.suite,
        "status": exp.status,
        "error": exp.error,
        "started_at": exp.started_at,
        "ended_at": exp.ended_at,
        "columns": [{"key": k, "name": sides[k]["label"], "runs": runs[k]} for k in ("a", "b")],
        "changes": {k: [c["text"] for c in sides[k]["changes"]] for k in ("a", "b")},
        "applied": exp.log.get("applied", []),
        "reverted": exp.log.get("reverted", []),
        "order": "".join(r["side"] for r in exp.rounds),
        "rounds": exp.rounds,
        "stopped": exp.log.get("stopped"),
        "target_ci_pct": exp.spec.get("target_ci_pct"),
        "same_within_pct": same_within,
        "test": TEST,
        "sequential": SEQUENTIAL if sequential else None,
        "alpha": ALPHA,
        "rows": [row_json(r) for r in rows],
        "summary": summary_line(rows, sides["b"]["label"]),
    }


def tables(doc: dict[str, Any]) -> tuple[list, list[str]]:
    """Report tables (verdicts per metric, per-round points) and the lines after them."""
    from cephbench.analysis.compare import METRICS
    from cephbench.tables.table import Table, fmt_change, fmt_figure, fmt_pct

    a, b = (c["name"] for c in doc["columns"])
    by_metric: dict[str, list[dict]] = {}
    for row in doc["rows"]:
        by_metric.setdefault(row["metric"], []).append(row)
    out = []
    for m in METRICS:
        rows = by_metric.get(m.key, [])
        if not rows:
            continue
        body = []
        for r in rows:
            mde = r.get("mde_pct")
            values = [
                None if v is None else v * m.scale for v in (r["values"]["a"], r["values"]["b"])
            ]
            body.append(
                (
                    _label(r),
                    *(fmt_figure(v, m.unit) for v in values),
                    # two lines on a terminal; one, as compare prints it, in Markdown and HTML
                    fmt_change(r["pct_diff"]["b"], r["pct_diff_ci95"]["b"], sep="\n"),
                    r["verdict"],
                    "n/a" if mde is None else "±" + fmt_pct(mde, signed=False),
                )
            )
        out.append(
            Table(
                ("Workload", a, b, "Δ [95 % CI]", "Verdict", "Smallest detectable"),
                tuple(body),
                title=f"{m.title} ({m.unit}): {b} vs {a}, {rows[0]['blocks']} blocks",
            )
        )
    iops = [r for r in doc["rows"] if r["metric"] == "iops"]
    if iops:
        names = [_label(r) for r in iops]
        points = []
        for k, rd in enumerate(doc["rounds"]):
            label = a if rd["side"] == "A" else b
            vals = [
                fmt_figure(r["points"][k]["value"], "IO/s") if k < len(r["points"]) else "n/a"
                for r in iops
            ]
            points.append((str(rd["round"]), label, f"#{rd['run_id']}", *vals))
        out.append(Table(("Round", "Side", "Run", *names), tuple(points), title="IOPS per round"))
    lines = []
    for key, name in (("a", a), ("b", b)):
        changes = doc["changes"][key] or ["(the configuration as found)"]
        lines.append(f"{name}: " + "; ".join(changes))
    for r in doc["reverted"]:
        lines.append(f"restored {r['setting']} = {r['value']} (verified)")
    lines.append(f"Order: {doc['order']}; test: {doc['test']}")
    lines.append(legend(doc))
    complete = doc["order"][: len(doc["order"]) // 2 * 2]
    weight = drift_weight(complete) if complete else 0.0
    if weight:
        lines.append(
            f"Note: with {len(complete) // 2} blocks a steady drift does not cancel: "
            f"{abs(weight):.2f} of one round's drift stays in the difference "
            "(a multiple of 4 rounds cancels it)"
        )
    if doc["sequential"]:
        lines.append(f"Sequential: {doc['sequential']}; stopped: {doc['stopped']}")
    lines.append(doc["summary"])
    return out, lines


def _label(row: dict[str, Any]) -> str:
    return row["workload"] if row["op"] in ("read", "write") else f"{row['workload']} ({row['op']})"


def legend(doc: dict[str, Any]) -> str:
    """What the verdicts and the smallest detectable change mean."""
    band = f"±{doc.get('same_within_pct', SAME_WITHIN):g} %"
    return (
        f"Verdict: better or worse when significant; same when the whole 95 % CI is within "
        f"{band} (--same-within); inconclusive when neither. Smallest detectable: the CI's "
        "half-width, the least difference this experiment could tell from none."
    )
