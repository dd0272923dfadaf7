"""`cephbench capacity`'s refusals (one line, no traceback) and a search stored by the driver
reading back through `--show` as the same `cephbench.capacity/1` document, on hand-made steps
(the real steps are the fio tier's: tests/fio/test_capacity_file.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cephbench.capacity.driver import load, run_capacity
from cephbench.capacity.model import Spec
from cephbench.capacity.search import Rule, Step
from cephbench.capacity.steps import StepSpec
from cephbench.errors import CephbenchError
from cephbench.store import Store
from tests.contract import validate


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "a latency target is required"),
        (["--p99", "fast"], "--p99 fast: a latency above 0"),
        (["--p99", "5ms", "--percentile", "99.9"], "not both"),
        (["--percentile", "100", "--target-ms", "2"], "--percentile 100: above 0"),
        (["--p99", "5ms", "--step-time", "1s"], "--step-time 1s: at least 2 s"),
        (["--p99", "5ms", "--ci", "0"], "--ci 0: a percentage"),
        (["--p99", "5ms", "--max-repeats", "2"], "--max-repeats 2: at least 3"),
        (["--p99", "5ms", "--allow", "degrade"], "--allow degrade goes with --while"),
        (["--p99", "5ms"], "--target is required"),
        (["--show", "last"], "no capacity search stored yet"),
        (["--show", "x"], "--show x: a capacity search's number"),
        (["--p99", "5ms", "--clients", "lab", "--pods", "2"], "give --clients or --pods"),
        (["--p99", "5ms", "--image", "fio:1"], "--image is the pods' image"),
        (["--p99", "5ms", "--pods", "2", "--cross-check"], "latency_target mode from this"),
    ],
)
def test_bad_input_is_one_line(invoke, args, message):
    result = invoke("capacity", *args, expect=2)
    assert message in result.output and "Traceback" not in result.output


@pytest.mark.parametrize(
    ("target", "message"),
    [
        (
            "file:/nowhere",
            "are for Ceph targets (and pvc:, the cluster behind its class), not file:",
        ),
        ("rbd:p/i", "no Ceph configuration at /nowhere/ceph.conf"),
    ],
)
def test_a_cluster_named_is_checked_before_the_search_stores_anything(
    invoke, db: Path, target, message
):
    """``-c`` (as for ``run``) on a target that reaches no Ceph cluster, or naming a cluster
    that cannot be reached: one line before any step, no search stored."""
    result = invoke("capacity", "--target", target, "--p99", "5ms", "-c", "/nowhere/ceph.conf",
                    expect=2)  # fmt: skip
    assert message in " ".join(result.output.split()) and "Traceback" not in result.output
    with Store(db) as store:
        assert store.conn.execute("SELECT count(*) FROM capacities").fetchone()[0] == 0


def test_a_stored_search_reads_back_as_printed(invoke, invoke_json, db: Path):
    capacity = 3000.0

    def measure(rate: float, repeat: int) -> Step:
        p99 = 2000.0 if rate <= capacity + repeat * 50 else 9000.0
        return Step(rate, rate, ((50.0, 500.0), (99.0, p99), (99.9, 2 * p99)), repeat)

    spec = Spec(Rule(5000.0), StepSpec(), start=1000, ci=0.10)
    notes: list[str] = []
    with Store(db) as store:
        cap_id = run_capacity(store, spec, "file:/nowhere", measure, notes.append)
        doc = validate(load(store, cap_id).to_json())
    assert doc["result"]["verdict"] == "converged" and doc["result"]["repeats"] == 3
    found = [r["capacity_iops"] for r in doc["repeats"]]
    for repeat, (r, value) in enumerate(zip(doc["repeats"], found, strict=True)):
        assert value <= capacity + repeat * 50 < r["failing_iops"] <= value * 1.05
    assert found == [2953, 2988, 3058]
    assert doc["steps"][0]["offered_iops"] == 1000 and doc["steps"][0]["outcome"] == "pass"
    # the second repeat starts near the estimate so far (+1.2 %) and brackets by 25 %
    assert [s["offered_iops"] for s in doc["steps"] if s["repeat"] == 1][:2] == [2988, 3735]
    assert notes[-1].startswith("after repeat 3: converged")
    assert invoke_json("capacity", "--show", str(cap_id)) == doc
    table = invoke("capacity", "--show", "last", "--format", "md").output
    assert "| 1 | 1000 | 1000 | 0.500 | 2.00 | 4.00 | meets |" in table
    assert "Capacity of randwrite 4k at p99 <= 5.00 ms: 3000 IOPS" in table


def _search(store: Store, capacity: float, spread: float, rule: Rule | None = None) -> int:
    """A search whose repeats find ``capacity``, ``capacity + spread``, ``+ 2 spread``..."""

    def measure(rate: float, repeat: int) -> Step:
        p99 = 2000.0 if rate <= capacity + repeat * spread else 9000.0
        return Step(rate, rate, ((50.0, 500.0), (99.0, p99), (99.9, 2 * p99)), repeat)

    spec = Spec(rule or Rule(5000.0), StepSpec(), start=1000, ci=0.10)
    return run_capacity(store, spec, "file:/nowhere", measure)


def test_compare_two_searches(invoke, invoke_json, db: Path):
    with Store(db) as store:
        healthy = _search(store, 3000, 50)
        degraded = _search(store, 1500, 30)
        again = _search(store, 3000, 50)
        other = _search(store, 3000, 50, Rule(9000.0))
    lower = invoke_json("capacity", "--compare", str(healthy), str(degraded))
    assert lower["verdict"] == "lower" and lower["diff_ci95_pct"][1] < 0
    assert -55 < lower["diff_pct"] < -45
    same = invoke_json("capacity", "--compare", str(healthy), str(again))
    assert same["verdict"] == "same" and same["diff_pct"] == 0
    text = invoke("capacity", "--compare", str(healthy), str(degraded), "--format", "md").output
    assert f"Search {degraded} against {healthy}: -" in text and ": lower (p = " in text
    refused = invoke("capacity", "--compare", str(healthy), str(other), expect=2).output
    assert "p99 under 5000 us, search" in refused


def test_repeats_start_off_one_grid_within_the_resolution():
    from cephbench.capacity.driver import offset

    starts = [offset(r, 0.05) for r in range(1, 6)]
    assert len({round(s, 6) for s in starts}) == 5
    assert all(-0.05 <= s <= 0.05 for s in starts)


def test_a_step_behind_is_judged_without_a_percentile_and_one_that_kept_up_is_not(db: Path):
    """At a few I/Os per second a generator can complete none in its window: the merged
    percentiles are then unknown. A step that fell behind is behind whatever its latency, so
    the search goes on; one that kept up cannot be judged, and the search says so."""

    def behind(rate: float, repeat: int) -> Step:
        return Step(rate, rate / 2, (), repeat)  # half the offered rate, no percentiles

    spec = Spec(Rule(5000.0), StepSpec(), start=4, ci=0.10)
    with Store(db) as store:
        doc = load(store, run_capacity(store, spec, "file:/nowhere", behind)).to_json()
        assert [s["outcome"] for s in doc["steps"]] == ["behind"] * 3  # 4, 2, 1: the minimum
        assert doc["status"] == "complete" and doc["result"]["verdict"] == "inconclusive"

        def kept_up(rate: float, repeat: int) -> Step:
            return Step(rate, rate, (), repeat)

        with pytest.raises(CephbenchError, match="recorded no p99: the search cannot judge"):
            run_capacity(store, spec, "file:/nowhere", kept_up)


def test_a_search_stops_when_the_recovery_it_measures_ends(db: Path):
    """Steps after the recovery measured a healthy cluster: the search stops at the step
    the background work was seen over, and its figure comes from the repeats ended before."""
    capacity, ends_after = 3000.0, 14

    def measure(rate: float, repeat: int) -> Step:
        p99 = 2000.0 if rate <= capacity else 9000.0
        return Step(rate, rate, ((50.0, 500.0), (99.0, p99), (99.9, 2 * p99)), repeat)

    taken = 0

    def background() -> tuple[tuple[str, float], ...]:
        nonlocal taken
        taken += 1
        return (("pgs_recovering", float(taken <= ends_after)),)

    def ended() -> str | None:
        return f"over at step {taken}" if taken > ends_after else None

    spec = Spec(Rule(5000.0), StepSpec(), start=1000, ci=0.10)
    with Store(db) as store:
        args = (store, spec, "file:/nowhere", measure, lambda _: None, background, ended)
        doc = validate(load(store, run_capacity(*args, stop_when_ended=True)).to_json())
        kept_on = validate(load(store, run_capacity(*args)).to_json())
    assert len(doc["steps"]) == ends_after + 1  # the step that saw it over is the last
    ended_repeats = [r for r in doc["repeats"] if r["status"] != "stopped"]
    assert [r["steps"] for r in doc["repeats"]] == [7, 5, 3]
    assert doc["result"]["repeats"] == len(ended_repeats) == 2
    assert doc["repeats"][-1]["status"] == "stopped"
    assert doc["result"]["verdict"] == "inconclusive"
    assert doc["result"]["capacity_iops"] == (2953 + 2988) / 2  # not the unfinished third's
    assert "stopped after 2 ended repeat" in doc["result"]["reason"]
    assert doc["notes"] == [f"over at step {ends_after + 1}"]
    assert kept_on["result"]["verdict"] == "converged"  # without the stop: it runs on


def _fingerprint(version: str) -> dict:
    """A cluster fingerprint with every OSD's scheduler as recorded on a lab of ``version``."""
    from cephbench.ceph import scheduler
    from tests.helpers import DATA

    raw = (DATA / "ceph" / version / "config-show-with-defaults-osd.0.json").read_text()
    entries = scheduler.keep(json.loads(raw))
    return {
        "osd_metadata": [{"id": i, "rotational": "1"} for i in range(3)],
        "osd_scheduler": {"osds_total": 3, **{f"osd.{i}": entries for i in range(3)}},
        "config": [],
    }


def test_each_step_says_the_osds_scheduler_its_run_recorded(invoke, db: Path):
    """Tentacle's mClock in every step: one note; a step on wpq among them: a column."""
    versions = iter(["20.2.4"] * 3 + ["16.2.15"] + ["20.2.4"] * 40)

    def measure(rate: float, repeat: int) -> Step:
        run_id = store.start_run(label=None, suite="capacity", target="rbd:p/i", environment={},
                                 params={})  # fmt: skip
        store.save_fingerprint(run_id, _fingerprint(next(versions)))
        p99 = 2000.0 if rate <= 3000 else 9000.0
        return Step(rate, rate, ((50.0, 500.0), (99.0, p99), (99.9, 2 * p99)), repeat, run_id)

    spec = Spec(Rule(5000.0), StepSpec(), start=1000, ci=0.10)
    mclock = "mclock_scheduler, balanced, 315 IOPS (hdd, built-in default)"
    with Store(db) as store:
        doc = validate(load(store, run_capacity(store, spec, "rbd:p/i", measure)).to_json())
    found = [s["scheduler"] for s in doc["steps"]]
    assert found[:5] == [mclock, mclock, mclock, "wpq", mclock]
    table = invoke("capacity", "--show", "last", "--format", "md").output
    assert "| Scheduler |" in table and "| wpq |" in table
    versions = iter(["20.2.4"] * 40)
    with Store(db) as store:
        run_capacity(store, spec, "rbd:p/i", measure)
    table = invoke("capacity", "--show", "last", "--format", "md").output
    assert "Scheduler" not in table
    assert f"The OSDs' scheduler in every step: {mclock}." in table
