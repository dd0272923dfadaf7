"""The typed run request in real runs: a new run stores it as versioned JSON, and a run
stored by older cephbench resumes (``--resume``) from what it stored."""

from __future__ import annotations

from cephbench.planning.request import (
    SCHEMA,
    CaptureOptions,
    RunRequest,
)
from cephbench.store import Store
from cephbench.tools.fio.sweep import Axes
from cephbench.tools.plan import Overrides
from tests.helpers import needs_fio
from tests.unit.test_run_request import LEGACY

LEGACY_PARAMS = {
    "tool": "fio",
    "repeat": 1,
    "overrides": {"runtime": "1", "size": "16m"},
    "sweep": {"iodepth": [1, 2]},
    "request": LEGACY,
}
"""The rest of that run's params, as the old code stored them."""


def _legacy_run(db, bench_dir) -> int:
    """A run as the old code stored it, interrupted before any workload finished."""
    request = {**LEGACY, "target_spec": f"file:{bench_dir}"}
    with Store(db) as s:
        run_id = s.start_run(
            label="old",
            suite="matrix",
            target=f"file:{bench_dir}",
            environment={},
            params={**LEGACY_PARAMS, "request": request},
        )
        s.finish_run(run_id, "aborted", "interrupted")
    return run_id


@needs_fio
def test_a_run_stored_by_the_old_code_resumes(invoke, invoke_json, db, bench_dir):
    run_id = _legacy_run(db, bench_dir)
    invoke("run", "matrix", "--resume", str(run_id))
    run = invoke_json("show", str(run_id))
    assert run["status"] == "complete" and run["label"] == "old"
    assert [(r["workload"], r["iodepth"]) for r in run["results"]] == [
        ("randread-4k-qd1-nj1", 1),
        ("randread-4k-qd2-nj1", 2),
    ]  # the old --iodepth 1,2
    assert all(r["iops"] > 0 for r in run["results"])
    with Store(db) as s:
        (out,) = s.outputs(run_id)
        # the old --no-logs: no workload's time series (the run's own records, such as what
        # the device behind the target served, have no workload)
        assert [x for x in s.series(run_id) if x.workload] == []
    assert "runtime=1" in out["input_text"] and "size=16m" in out["input_text"]
    assert invoke_json("runs")["runs"][-1]["id"] == run_id  # no new run


@needs_fio
def test_a_new_run_stores_the_versioned_request(invoke, invoke_json, bench_dir):
    invoke(
        "run",
        "matrix",
        "--target",
        f"file:{bench_dir}",
        "--iodepth",
        "1,2",
        "--runtime",
        "1",
        "--size",
        "16m",
        "--no-logs",
        "--label",
        "new",
    )
    stored = invoke_json("show", "last")["params"]["request"]
    assert RunRequest.from_json(stored) == RunRequest(
        suite="matrix",
        target=f"file:{bench_dir}",
        label="new",
        overrides=Overrides(runtime="1", size="16m"),
        axes=Axes(iodepth=(1, 2)),
        capture=CaptureOptions(logs=False),
    )
    assert stored["schema"] == SCHEMA and stored["axes"]["iodepth"] == [1, 2]
    # what the old code made of the same command line, migrated, is the same request
    assert RunRequest.from_json(
        {**LEGACY, "target_spec": f"file:{bench_dir}", "label": "new"}, suite="matrix"
    ) == RunRequest.from_json(stored)
