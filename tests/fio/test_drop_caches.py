"""--drop-caches in a real run: the page cache is dropped before every workload, and it is
verified."""

from __future__ import annotations

from cephbench.store import Store
from tests.helpers import needs_fio, needs_root


@needs_root
@needs_fio
def test_run_drops_before_every_workload(invoke, invoke_json, bench_dir, db):
    invoke(
        "run",
        "quick",
        "--target",
        f"file:{bench_dir}",
        "--runtime",
        "1",
        "--size",
        "16m",
        "--drop-caches",
    )
    run = invoke_json("show", "last")
    assert run["status"] == "complete" and run["params"]["drop_caches"] is True
    with Store(db) as store:
        assert (
            len(store.outputs(run["id"])) == 4
        )  # one fio process per workload, to drop in between
        drops = [v for s in store.series(run["id"], "drop_caches") for v in s.values]
    assert len(drops) == 4
