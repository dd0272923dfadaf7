"""`cephbench capacity` on a file target with real fio: the search's steps, its brackets and
its result hold to the rule it was given, whatever the machine's other load made of them (the
search's arithmetic on every kind of data is the pure tests' job,
tests/unit/test_capacity_search.py). 1 MiB writes keep the file's ceiling at a few thousand
IOPS, so the bracket needs few steps. A search killed mid-step leaves nothing `cleanup` does
not remove."""

from __future__ import annotations

import math
import os
import sqlite3
import subprocess
from pathlib import Path

from tests.helpers import CEPHBENCH, needs_fio, wait_for

STEP_S = 2


def most(offered: float) -> float:
    """The most a step offered ``offered`` can achieve: Poisson arrivals count five standard
    deviations over the rate at most, and fio's rate control catches up on a deficit by a few
    percent."""
    return offered * 1.05 + 5 * math.sqrt(offered / STEP_S)


@needs_fio
def test_capacity_search_brackets_its_result_with_steps_that_meet_the_rule(
    invoke, invoke_json, bench_dir: Path, tmp_path: Path
):
    args = ["capacity", "--target", f"file:{bench_dir}", "--p99", "50ms", "--bs", "1m"]
    args += ["--size", "64m", "--iodepth", "32", "--step-time", f"{STEP_S}s", "--ramp", "1s"]
    args += ["--start", "250", "--ci", "50%", "--max-repeats", "3"]
    doc = invoke_json(*args)
    rule, result = doc["rule"], doc["result"]
    assert doc["status"] == "complete" and rule["percentile"] == 99.0
    assert rule["target_us"] == 50_000
    steps = doc["steps"]
    assert steps and {s["repeat"] for s in steps} == {r["repeat"] for r in doc["repeats"]}
    for s in steps:
        assert 0 < s["achieved_iops"] <= most(s["offered_iops"])
        meets = (
            s["achieved_iops"] >= s["offered_iops"] * (1 - rule["tolerance_pct"] / 100)
            and s["percentile_us"] <= rule["target_us"]
        )
        assert (s["outcome"] == "pass") == meets
        assert s["p50_us"] <= s["p99_us"] <= s["p999_us"]
    capacities = []
    for r in doc["repeats"]:
        mine = [s for s in steps if s["repeat"] == r["repeat"]]
        assert r["steps"] == len(mine)
        if r["status"] != "found":
            capacities.append(None)
            continue
        passing = [s["offered_iops"] for s in mine if s["outcome"] == "pass"]
        failing = [s["offered_iops"] for s in mine if s["outcome"] != "pass"]
        # the steps' offered rates bracket the repeat's capacity, within the resolution
        assert r["capacity_iops"] in passing and r["failing_iops"] == min(failing)
        assert r["capacity_iops"] < r["failing_iops"]
        assert r["failing_iops"] <= max(r["capacity_iops"] * 1.05, r["capacity_iops"] + 1)
        assert r["capacity_iops"] == max(p for p in passing if p < min(failing))
        capacities.append(r["capacity_iops"])
    if None in capacities:
        assert result["verdict"] == "inconclusive" and result["capacity_iops"] is None
    else:
        assert math.isclose(result["capacity_iops"], sum(capacities) / len(capacities))
        low, high = result["ci95_iops"]
        assert low <= result["capacity_iops"] <= high
        if result["verdict"] == "converged":
            assert result["ci_pct"] <= 50 and result["repeats"] >= 3
        else:
            assert result["verdict"] == "inconclusive" and len(capacities) == 3
    # every step is a stored run; the search reads back as printed
    run = invoke_json("show", str(steps[0]["run_id"]))
    assert run["label"] == "capacity" and run["results"][0]["rw"] == "randwrite"
    assert invoke_json("capacity", "--show", "last") == doc
    # its report: the curve of the real steps, and the run of the step at the capacity
    invoke("report", "--capacity", str(doc["capacity"]), "-o", str(tmp_path / "cap.html"))
    html = (tmp_path / "cap.html").read_text()
    assert 'aria-label="Achieved IOPS and latency against offered load"><svg' in html
    last = [s for s in steps if s["repeat"] == steps[-1]["repeat"]]
    passed = [s for s in last if s["outcome"] == "pass"]
    shown = max(passed, key=lambda s: s["offered_iops"]) if passed else last[-1]
    assert f"search {doc['capacity']} (healthy) (#{shown['run_id']})" in html


def _open(db: Path) -> list[tuple[str, str]]:
    try:
        with sqlite3.connect(db) as conn:
            query = "SELECT kind, name FROM resources WHERE removed_at IS NULL"
            return conn.execute(query).fetchall()
    except sqlite3.OperationalError:  # not created yet
        return []


@needs_fio
def test_cleanup_removes_what_a_killed_search_left(invoke, db: Path, bench_dir: Path):
    args = ["capacity", "--target", f"file:{bench_dir}", "--p99", "50ms", "--bs", "1m"]
    args += ["--size", "16m", "--step-time", "30s", "--ramp", "1s"]
    proc = subprocess.Popen(
        [*CEPHBENCH, *args],
        env={**os.environ, "CEPHBENCH_DB": str(db)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # the step's suite directory, its run's work directory and data file: all recorded
        left = wait_for(
            lambda: len(_open(db)) >= 3 and _open(db), "the first step running", timeout=120
        )
    finally:
        proc.kill()
        proc.communicate(timeout=60)
    (step_dir,) = [name for kind, name in left if "cephbench-capacity-" in name]
    assert Path(step_dir).is_dir() and (Path(step_dir) / "capacity-step.yaml").exists()
    out = invoke("cleanup")
    assert f"removed dir {step_dir}" in out.output, out.output
    assert not Path(step_dir).exists() and _open(db) == []
    assert not list(bench_dir.iterdir())


@needs_fio
def test_the_cross_check_runs_fios_latency_target_mode(db: Path, bench_dir: Path):
    """Its depth is one fio tried (1..4), and its figures those fio reported for it."""
    from cephbench.capacity.steps import StepSpec, latency_depth, run_cross_check
    from cephbench.store import Store

    spec = StepSpec("randwrite", "1m", iodepth=4, seconds=2, ramp=1, size="16m")
    with Store(db) as store:
        found = run_cross_check(store, spec, 50_000, target=f"file:{bench_dir}", label="x")
        outputs = store.outputs(found["run_id"])
        (result,) = store.get_run(found["run_id"]).results
    assert 1 <= found["depth"] <= 4 and found["max_depth"] == 4
    assert found["depth"] == latency_depth(outputs) and found["window_s"] == 1.0
    assert found["iops"] == result.iops > 0
    assert found["percentile_us"] == dict(result.percentiles)[99.0]
    assert not list(bench_dir.iterdir())
