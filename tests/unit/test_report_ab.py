"""`cephbench report --experiment N`: an A/B experiment's report opens with its paired
verdict, the changes applied and reverted, and a chart of every round's IOPS in the order run
(the drift both sides share shows there); the comparison of the pooled rounds follows. The
experiment is stored as `cephbench ab` stores one: eight rounds A B B A A B B A, each an
ordinary run, side B 10 % lower on random writes, with a drift of 2 % per round on top."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cephbench.planning.request import RunRequest
from cephbench.store import Store, experiments
from cephbench.tables.table import fmt_pct, fmt_pct_ci
from cephbench.tuning.changes import make_side
from cephbench.tuning.experiment import AbPlan
from cephbench.tuning.report import to_json
from cephbench.tuning.rounds import order
from tests.helpers import store_run

CHANGE = "ceph config set client rbd_cache false"
BASE = (1000.0, 2000.0, 30000.0, 12000.0)
NOISE = (1.0, 0.99, 1.01, 1.0, 0.995, 1.0, 1.005, 0.99)


@pytest.fixture
def experiment(db: Path) -> int:
    plan = AbPlan(
        "quick",
        make_side("A", ()),
        make_side("nocache", (CHANGE,)),
        RunRequest(suite="quick"),
        rounds=8,
    )
    with Store(db) as store:
        exp = experiments.start(store, "quick", plan.spec())
    for i, side in enumerate(order(8)):
        drift = 1 + 0.02 * i
        effect = (1, 1, 1, 0.9) if side == "B" else (1, 1, 1, 1)
        iops = [[v * drift * e * NOISE[i] for v, e in zip(BASE, effect, strict=True)]]
        run = store_run(db, "A" if side == "A" else "nocache", iops)
        with Store(db) as store:
            experiments.add_round(store, exp, side, run)
    with Store(db) as store:
        applied = [{"setting": "config client rbd_cache", "original": "true", "times_applied": 2}]
        reverted = [{"setting": "config client rbd_cache", "value": "true", "verified": True}]
        experiments.save_log(
            store, exp, {"applied": applied, "reverted": reverted, "stopped": "rounds"}
        )
        experiments.finish(store, exp, "complete", None)
    return exp


def test_html_opens_with_the_paired_verdict_and_the_rounds_chart(invoke, db, experiment, tmp_path):
    out = tmp_path / "ab.html"
    invoke("report", "--experiment", str(experiment), "-o", str(out))
    html = out.read_text()
    head = html[: html.index('<h2 id="summary">')]
    assert f"A/B experiment {experiment}: nocache against A" in head
    # the paired test sees the 10 % through the drift: 4 blocks, every one close to -10 %
    assert "nocache is worse on 1 of 4 workloads (-10 % rand_wr ±2 %)" in head
    assert "the same within ±5 % on seq_wr, seq_rd, rand_rd" in head
    assert "restored config client rbd_cache = true (verified)" in head
    assert "Order: ABBAABBA" in head
    assert head.count("<svg") == 1 and 'aria-label="IOPS per round"' in head
    chart = head[head.index("<svg") : head.index("</svg>")]
    titles = [t for t in re.findall(r"<text[^>]*>([^<]*)</text>", chart) if ": " in t]
    with Store(db) as store:  # each panel's title is that workload's paired verdict
        rows = [r for r in to_json(store, experiment)["rows"] if r["metric"] == "iops"]
    assert titles == [
        f"{r['workload']}: {fmt_pct(r['pct_diff']['b'])} (95 % CI "
        f"{fmt_pct_ci(r['pct_diff_ci95']['b'])}), {r['verdict']}"
        for r in rows
    ]
    assert [r["verdict"] for r in rows] == ["same", "same", "same", "worse"]
    assert not re.search(r'(src|href)="(https?:)?//', html)
    # the ordinary comparison of the pooled rounds follows, baseline side A
    assert "Baseline: <strong>A</strong>" in html
    assert html.index('<h2 id="ab">') < html.index('<h2 id="summary">')


def test_markdown_report_has_the_section_and_its_png(invoke, experiment, tmp_path):
    out = tmp_path / "ab.md"
    invoke("report", "--experiment", str(experiment), "-o", str(out))
    md = out.read_text()
    assert f"## A/B experiment {experiment}: nocache against A" in md
    assert "![IOPS per round](ab_files/ab-rounds.png)" in md
    assert (tmp_path / "ab_files" / "ab-rounds.png").stat().st_size > 0
    assert md.index("## A/B experiment") < md.index("## Summary")


def test_an_unknown_or_one_sided_experiment_is_one_line(invoke, db, experiment, tmp_path):
    out = invoke("report", "--experiment", "9", "-o", str(tmp_path / "x.html"), expect=2)
    assert "no A/B experiment 9" in out.output and "Traceback" not in out.output
    out = invoke("report", "1", "--experiment", "1", "-o", str(tmp_path / "x.html"), expect=2)
    assert "--experiment picks the runs itself" in out.output
    with Store(db) as store:  # an experiment stopped during its first round
        plan = AbPlan("quick", make_side("A", ()), make_side("B", (CHANGE,)), RunRequest("quick"))
        lone = experiments.start(store, "quick", plan.spec())
        experiments.finish(store, lone, "aborted", "interrupted")
    out = invoke("report", "--experiment", str(lone), "-o", str(tmp_path / "x.html"), expect=2)
    assert "has no round of side A (aborted)" in out.output
    assert not (tmp_path / "x.html").exists()
