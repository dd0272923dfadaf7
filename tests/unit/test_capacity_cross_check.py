"""`capacity --cross-check` (issue 33): fio's own latency_target mode run once after the
search, its depth read from fio's JSON, stored with the search and said beside the capacity.
The suite and the parsing are pure, the JSON a recorded real one
(tests/data/capacity/README.source.md); the real run is the fio tier's
(tests/fio/test_capacity_file.py)."""

from __future__ import annotations

from pathlib import Path

from cephbench.capacity.driver import load, run_capacity
from cephbench.capacity.model import Spec
from cephbench.capacity.output import headline
from cephbench.capacity.search import Rule, Step
from cephbench.capacity.steps import StepSpec, latency_depth
from cephbench.store import Store
from tests.contract import validate
from tests.helpers import DATA

RECORDED = (DATA / "capacity" / "file_latency_target.json").read_text()


def test_the_suite_asks_fio_for_the_deepest_queue_under_the_target():
    spec = StepSpec("randwrite", "1m", 16, seconds=2, ramp=1, size="64m", percentile=99.9)
    doc = spec.cross_check_suite(50_000)
    (workload,) = doc["workloads"]
    assert workload["iodepth"] == 16 and workload["rw"] == "randwrite" and workload["bs"] == "1m"
    assert workload["options"] == {
        "latency_target": "50000us",
        "latency_window": "1000000us",  # a fifth of a step, at least a second
        "latency_percentile": "99.9",
        "percentile_list": "50:90:99:99.9:99.99",
    }  # no rate: a closed loop
    # depths 1..16: four doublings, twice, and two more windows
    assert doc["global"]["runtime"] == "10s" and doc["global"]["ramp_time"] == "1s"
    assert StepSpec(seconds=10, iodepth=128).cross_check_suite(5000)["global"]["runtime"] == "32s"


def test_the_depth_is_read_from_fios_own_report():
    fio = {"tool": "fio", "stdout": RECORDED}
    assert latency_depth([{"tool": "k8s-volumes", "stdout": "{}"}, fio]) == 16
    without = RECORDED.replace('"latency_depth"', '"other"')
    assert latency_depth([{"tool": "fio", "stdout": without}]) is None
    assert latency_depth([{"tool": "fio", "stdout": "fio: error"}]) is None


def test_a_cross_check_is_stored_with_the_search_and_said_beside_it(db: Path):
    def measure(rate: float, repeat: int) -> Step:
        p99 = 2000.0 if rate <= 3000 else 9000.0
        return Step(rate, rate, ((50.0, 500.0), (99.0, p99), (99.9, 2 * p99)), repeat)

    found = {
        "tool": "fio latency_target",
        "depth": 16,
        "max_depth": 16,
        "iops": 1547.452547,
        "percentile_us": 31588.352,
        "window_s": 1.0,
        "run_id": 19,
    }
    notes: list[str] = []
    with Store(db) as store:
        cap_id = run_capacity(
            store,
            Spec(Rule(5000.0), StepSpec(), 1000),
            "file:/x",
            measure,
            notes.append,
            cross_check=lambda: found,
        )
        doc = validate(load(store, cap_id).to_json())
    assert doc["cross_check"] == found
    line = (
        "Cross-check, fio's latency_target mode (a closed loop): depth 16 of 16 (the deepest "
        "allowed), 1547 IOPS and p99 31.59 ms in its last 1 s window (run 19)."
    )
    assert line in headline(doc) and notes[-1] == line


def test_without_a_cross_check_the_document_says_none(db: Path):
    def measure(rate: float, repeat: int) -> Step:
        return Step(rate, rate, ((99.0, 2000.0 if rate <= 3000 else 9000.0),), repeat)

    with Store(db) as store:
        cap_id = run_capacity(store, Spec(Rule(5000.0), StepSpec(), 1000), None, measure)
        doc = validate(load(store, cap_id).to_json())
    assert doc["cross_check"] is None
    assert not any(line.startswith("Cross-check") for line in headline(doc))


def test_a_cross_check_while_recovering_is_refused(invoke):
    out = invoke("capacity", "--p99", "5ms", "--while", "recovery", "--cross-check", expect=2)
    assert "--cross-check runs on a healthy cluster" in out.output
    assert "Traceback" not in out.output
