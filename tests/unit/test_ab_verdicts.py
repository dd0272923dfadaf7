"""Verdicts that cannot mislead (issue 25, item 7), pure: "same" only when the whole CI lies in
the equivalence band, "inconclusive" when a not-significant CI is wider; `ab` prints the
smallest change it could detect and by default runs blocks until the CIs reach a target; one
number format in `ab`, `show` and `compare`."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from cephbench.analysis.compare import METRICS, Diff, Row, compare
from cephbench.analysis.equivalence import SAME_WITHIN, verdict
from cephbench.model import Result
from cephbench.planning.request import RunRequest
from cephbench.report.markdown import fmt_diff
from cephbench.report.sections.summary import summary
from cephbench.store import Store, experiments
from cephbench.tables.table import to_markdown
from cephbench.tuning import rounds
from cephbench.tuning.analyze import Round, analyze, row_json, summary_line
from cephbench.tuning.changes import make_side
from cephbench.tuning.experiment import AbPlan, stop_reason
from cephbench.tuning.report import tables
from cephbench.tuning.verdict import paired
from tests.helpers import store_run

IOPS = METRICS[0]
LATENCY = METRICS[2]


# -- the rule ------------------------------------------------------------------------------
def test_a_ci_that_says_nothing_is_inconclusive_not_same():
    # the issue's line: rand_wr 2,010.35 -> 1,675.49, -16.7 %, CI -97.1…+2275.3, "same"
    assert verdict(-16.7, (-97.1, 2275.3), False, True) == "inconclusive"
    assert verdict(0.5, (-5.5, 6.0), False, True) == "inconclusive"  # reaches past ±5 %


def test_same_only_when_the_whole_ci_is_inside_the_band():
    assert SAME_WITHIN == 5.0
    assert verdict(0.3, (-2.1, 2.8), False, True) == "same"
    assert verdict(0.3, (-5.0, 5.0), False, True) == "same"  # the band's edges count
    assert verdict(0.3, (-2.1, 2.8), False, True, same_within=2.5) == "inconclusive"
    assert verdict(0.3, (-9.0, 9.0), False, True, same_within=10) == "same"


def test_a_ci_excluding_zero_is_better_or_worse_by_the_metrics_direction():
    assert verdict(12.0, (9.0, 15.0), True, higher_is_better=True) == "better"
    assert verdict(-12.0, (-15.0, -9.0), True, higher_is_better=True) == "worse"
    assert verdict(-12.0, (-15.0, -9.0), True, higher_is_better=False) == "better"  # latency
    # significant and reaching past the band: a change worth acting on
    assert verdict(6.0, (3.0, 9.0), True, higher_is_better=True) == "better"


def test_a_significant_change_inside_the_band_is_the_same():
    # an A/A experiment with a paced workload: a tight CI calls +1 % significant; it is not a
    # change a benchmark can stand behind (criterion.rs: "change within noise threshold")
    assert verdict(1.0, (0.5, 1.5), True, higher_is_better=True) == "same"
    assert verdict(-4.0, (-5.0, -3.0), True, higher_is_better=True) == "same"
    assert verdict(1.0, (0.5, 1.5), True, higher_is_better=True, same_within=1.0) == "better"


def test_untested_and_missing_stay_as_they_were():
    assert verdict(3.0, None, None, True) == "unknown"
    assert verdict(None, None, None, True) == "missing"


def test_compare_applies_the_same_rule_to_its_welch_ci():
    def row(ci: tuple[float, float], significant: bool) -> Row:
        return Row("rand_wr", "write", IOPS, {}, {"2": Diff(1.0, ci, 0.4, 0.4, significant)})

    assert row((-40.0, 42.0), False).verdict("2") == "inconclusive"
    assert row((-2.0, 4.0), False).verdict("2") == "same"
    assert row((2.0, 9.0), True).verdict("2") == "better"
    assert row((2.0, 4.0), True).verdict("2") == "same"


def test_the_report_summary_counts_same_and_inconclusive_apart(db: Path):
    # seq_wr +50 % (significant); seq_rd the same within ±5 %; rand_rd and rand_wr noisy
    base = store_run(db, "a", [[1000, 2000, 30000, 12000], [1000, 2000, 20000, 8000]])
    new = store_run(db, "b", [[1500, 2000, 25000, 9000], [1500, 2001, 30000, 14000]])
    with Store(db) as s:
        cmp = compare([s.get_run(base), s.get_run(new)])
    iops = {r.workload: r.verdict("2") for r in cmp.rows if r.metric.key == "iops"}
    assert iops == {
        "seq_wr": "better",
        "seq_rd": "same",
        "rand_rd": "inconclusive",
        "rand_wr": "inconclusive",
    }
    (line,) = summary(cmp)
    assert "the same (95 % CI within ±5 %)" in line
    assert re.search(r"\d+ inconclusive \(not significant, but the CI reaches past ±5 %\)", line)


# -- ab: the verdict table and the smallest detectable change ------------------------------
def _result(workload: str, iops: float) -> Result:
    return Result(
        workload=workload,
        repeat=0,
        op="write",
        bs=4096,
        iodepth=16,
        numjobs=1,
        runtime_s=2.0,
        iops=iops,
        bw_bytes_per_s=iops * 4096,
        lat_mean_us=16e6 / iops,
    )


def _played(values: dict[str, list[float]]) -> list[Round]:
    """Rounds A B B A ... with each workload's IOPS per round."""
    n = len(next(iter(values.values())))
    return [
        Round(i, side, i + 1, tuple(_result(w, v[i]) for w, v in values.items()))
        for i, side in enumerate(rounds.order(n))
    ]


def _doc(played: list[Round], sequential: bool = False, same_within: float = SAME_WITHIN):
    rows = analyze(played, sequential=sequential, same_within=same_within)
    return {
        "columns": [{"key": "a", "name": "A"}, {"key": "b", "name": "capped"}],
        "rows": [row_json(r) for r in rows],
        "rounds": [{"round": i + 1, "side": r.side, "run_id": i + 1} for i, r in enumerate(played)],
        "changes": {"a": [], "b": ["ceph config set client rbd_qos_iops_limit 1500"]},
        "reverted": [],
        "order": "".join(r.side for r in played),
        "test": "paired",
        "sequential": "cs" if sequential else None,
        "same_within_pct": same_within,
        "summary": summary_line(rows, "capped"),
    }, rows


# the issue's shape: a wild workload (rand_wr) and a steady one (seq_rd, no change)
WILD = [2400.0, 400.0, 3900.0, 1500.0, 2100.0, 2300.0, 1200.0, 1900.0]
STEADY = [1000.0, 1004.0, 998.0, 1001.0, 1003.0, 999.0, 1002.0, 1000.0]


def test_ab_calls_a_wide_ci_inconclusive_and_prints_what_it_could_detect():
    doc, rows = _doc(_played({"rand_wr": WILD, "seq_rd": STEADY}))
    iops = {r.workload: r for r in rows if r.metric.key == "iops"}
    wild, steady = iops["rand_wr"], iops["seq_rd"]
    assert wild.significant is False and wild.verdict() == "inconclusive"
    assert steady.significant is False and steady.verdict() == "same"
    assert wild.test is not None and wild.test.ci95 is not None
    assert wild.mde == pytest.approx((wild.test.ci95[1] - wild.test.ci95[0]) / 2)
    assert wild.mde is not None and wild.mde > 50
    by_name = {r["workload"]: r for r in doc["rows"] if r["metric"] == "iops"}
    assert by_name["rand_wr"]["mde_pct"] == round(wild.mde, 2)
    assert by_name["rand_wr"]["verdict"] == "inconclusive"
    # the table: the verdict and, beside it, the smallest change it could have detected
    table = tables(doc)[0][0]
    assert table.headers == (
        "Workload",
        "A",
        "capped",
        "Δ [95 % CI]",
        "Verdict",
        "Smallest detectable",
    )
    md = to_markdown(table)
    assert re.search(
        rf"\| rand_wr \| \d+ \| \d+ \| [+-]\d+\.\d\d% \[[+-]\d+\.\d\d, [+-]\d+\.\d\d\] \| "
        rf"inconclusive \| ±{wild.mde:.2f}% \|",
        md,
    ), md
    assert re.search(rf"\| seq_rd \| 1001 \| 1001 \| .* \| same \| ±{steady.mde:.2f}% \|", md), md
    lines = tables(doc)[1]
    assert any("same when the whole 95 % CI is within ±5 %" in line for line in lines)
    assert re.search(
        r"the same within ±5 % on seq_rd, inconclusive on rand_wr \(resolves ±\d+ %\)",
        doc["summary"],
    )


def test_the_smallest_detectable_change_is_the_edge_of_significance():
    """A difference of the CI's half-width, at the same spread, is just significant; a little
    less is not: the half-width is the experiment's resolution."""
    spread = [0.03, -0.02, 0.01, -0.025, 0.02, -0.015]
    noise = paired(spread)
    assert noise is not None and noise.half_width is not None
    h = math.log1p(noise.half_width / 100)  # back to a log ratio: the t interval's half-width
    mean = sum(spread) / len(spread)
    for factor, significant in ((1.02, True), (0.98, False)):
        test = paired([x - mean + h * factor for x in spread])
        assert test is not None and test.p is not None
        assert (test.p <= 0.05) is significant, factor


def test_the_band_is_a_setting_of_the_experiment():
    # +1.0 %, CI -1.9…+3.9 %: not significant; inside ±5 %, not inside ±2 %
    played = _played({"seq_rd": [1000, 1030, 1000, 1000, 1000, 990, 1020, 1000]})
    for band, expected in ((5, "same"), (2, "inconclusive")):
        doc, _ = _doc(played, same_within=band)
        (row,) = [r for r in doc["rows"] if r["metric"] == "iops"]
        assert row["verdict"] == expected
        assert any(f"within ±{band} % (--same-within)" in line for line in tables(doc)[1])


# -- ab: the default stopping rule ---------------------------------------------------------
def _plan(**kw) -> AbPlan:
    return AbPlan(
        "quick",
        make_side("A", ()),
        make_side("B", ("sysctl vm.swappiness=10",)),
        RunRequest("quick"),
        **kw,
    )


DEFAULT = {
    "target_ci": rounds.DEFAULT_TARGET_CI,
    "max_rounds": rounds.DEFAULT_MAX_ROUNDS,
    "max_time": rounds.DEFAULT_MAX_TIME,
}


def test_by_default_blocks_run_until_the_ci_reaches_the_target():
    plan = _plan(**DEFAULT)
    wild = _played({"rand_wr": WILD})
    steady = _played({"seq_rd": STEADY})
    assert stop_reason(plan, wild[:4], 10.0) is None  # ±5 % not reached: another block
    assert stop_reason(plan, steady[:2], 10.0) is None  # one block has no CI yet
    # the confidence sequence at 2 blocks is ±8.9 %, at 3 blocks ±2.7 %
    assert stop_reason(plan, steady[:4], 10.0) is None
    assert stop_reason(plan, steady[:5], 10.0) is None  # never in the middle of a block
    assert stop_reason(plan, steady[:6], 10.0) == "target_ci"
    # every workload must reach it
    both = _played({"rand_wr": WILD, "seq_rd": STEADY})
    assert stop_reason(plan, both[:8], 10.0) is None


def test_by_default_max_rounds_or_max_time_ends_it():
    wild = _played({"rand_wr": WILD * 6})
    plan = _plan(**DEFAULT)
    assert stop_reason(plan, wild[:40], 10.0) == "max_rounds"
    assert stop_reason(plan, wild[:6], rounds.DEFAULT_MAX_TIME + 1) == "max_time"
    assert stop_reason(plan, wild[:5], rounds.DEFAULT_MAX_TIME + 1) is None  # the block ends
    assert stop_reason(_plan(**{**DEFAULT, "max_rounds": 6}), wild[:6], 1.0) == "max_rounds"


def test_rounds_n_is_still_a_fixed_n():
    plan = _plan(rounds=8)
    steady = _played({"seq_rd": STEADY})
    assert [stop_reason(plan, steady[:i], 1e9) for i in range(8)] == [None] * 8
    assert stop_reason(plan, steady, 1e9) == "rounds"


def test_the_cli_defaults_to_the_target_not_to_eight_rounds(invoke, db, monkeypatch, tmp_path):
    """`ab` without --rounds or --target-ci plans blocks to ±5 % within 40 rounds or 30 min
    (the experiment itself is faked: this is the plan the command makes)."""
    from cephbench.tuning import experiment

    plans: list[AbPlan] = []

    def fake_run_ab(store, plan, *args) -> int:
        plans.append(plan)
        exp = experiments.start(store, plan.suite, plan.spec())
        experiments.finish(store, exp, "complete", None)
        return exp

    monkeypatch.setattr(experiment, "run_ab", fake_run_ab)
    monkeypatch.setattr(RunRequest, "resolve", lambda self, note=None: None)
    args = ["ab", "quick", "--target", f"file:{tmp_path}", "--b", "sysctl vm.swappiness=10"]
    out = invoke(*args, "--format", "json")
    doc = json.loads(out.stdout)
    assert doc["target_ci_pct"] == 5 and doc["same_within_pct"] == 5
    assert (plans[-1].rounds, plans[-1].target_ci) == (None, 5.0)
    assert (plans[-1].max_rounds, plans[-1].max_time) == (40, 1800.0)
    assert "blocks until every workload's IOPS CI is within ±5 %" in out.stderr
    invoke(*args, "--rounds", "8", "--same-within", "2%")
    assert (plans[-1].rounds, plans[-1].target_ci, plans[-1].max_time) == (8, None, None)
    assert plans[-1].same_within == 2.0
    invoke(*args, "--max-time", "10m", "--max-rounds", "12")
    assert (plans[-1].max_time, plans[-1].max_rounds, plans[-1].target_ci) == (600.0, 12, 5.0)
    bad = invoke(*args, "--rounds", "8", "--max-time", "5m", expect=2)
    assert "--rounds fixes them" in bad.output
    bad = invoke(*args, "--same-within", "none", expect=2)
    assert "--same-within none: a percentage above 0" in bad.output


# -- one number format ---------------------------------------------------------------------
def test_ab_show_and_compare_print_the_same_figure_the_same_way(invoke, db):
    a = store_run(db, "A", [[12345.678, 2000, 400000, 812.4]])
    b = store_run(db, "B", [[13580.2458, 2000, 400000, 893.64]])
    show = invoke("show", str(a), "--format", "md").stdout
    cmp = invoke("compare", str(a), str(b), "--format", "md").stdout
    with Store(db) as s:
        runs = {side: s.get_run(i) for side, i in (("A", a), ("B", b))}
    played = [
        Round(i, side, runs[side].id or 0, runs[side].results)
        for i, side in enumerate(rounds.order(4))
    ]
    doc, _ = _doc(played)
    ab = "\n".join(to_markdown(t) for t in tables(doc)[0])
    # IOPS whole, no thousands separator; MiB/s two decimals; ms two (three below 1 ms)
    for figure in ("12346", "1543.21", "20.74", "0.640"):
        assert f"| {figure} |" in show, figure
        assert f"| {figure} |" in cmp, figure
        assert f"| {figure} |" in ab, figure
    assert "| seq_wr | 12346 | 13580 | +10.00% |" in cmp
    assert "| seq_wr | 12346 | 13580 | +10.00% [+10.00, +10.00] |" in ab
    assert not re.search(r"\d,\d{3}", show + cmp + ab)


def test_a_difference_and_its_ci_read_the_same_in_ab_and_compare():
    pct, ci = -16.654, (-97.1, 2275.3)
    compared = fmt_diff(Diff(pct, ci, 0.01, 0.01, True), tested=True)
    row = {
        "workload": "rand_wr",
        "op": "write",
        "metric": "iops",
        "values": {"a": 2010.35, "b": 1675.49},
        "pct_diff": {"b": pct},
        "pct_diff_ci95": {"b": list(ci)},
        "verdict": "inconclusive",
        "mde_pct": 1186.2,
        "blocks": 4,
    }
    doc = {
        "columns": [{"name": "A"}, {"name": "B"}],
        "rows": [row],
        "rounds": [],
        "changes": {"a": [], "b": []},
        "reverted": [],
        "order": "ABBAABBA",
        "test": "paired",
        "sequential": None,
        "summary": "",
    }
    md = to_markdown(tables(doc)[0][0])
    assert compared == "-16.65% [-97.10, +2275.30]"
    assert f"| rand_wr | 2010 | 1675 | {compared} | inconclusive | ±1186.20% |" in md
