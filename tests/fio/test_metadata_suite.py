"""The metadata suite with real fio on a local directory: creates, stats and deletes counted
exactly (fio's own counts), stored like every workload, and nothing left behind."""

from __future__ import annotations

from cephbench.store import Store
from tests.helpers import needs_fio

pytestmark = needs_fio


def test_metadata_suite_counts_exactly_and_leaves_nothing(invoke, invoke_json, bench_dir, db):
    invoke("run", "metadata", "--target", f"file:{bench_dir}")
    run = invoke_json("show", "last")
    assert run["status"] == "complete"
    counts = {r["workload"]: (r["total_ios"], r["numjobs"]) for r in run["results"]}
    assert counts == {
        "create_d1_f4000": (4000, 1),
        "stat_d1_f4000": (4000, 1),
        "delete_d1_f4000": (4000, 1),
        "create_d4_f1000": (4000, 4),
        "stat_d4_f1000": (4000, 4),
        "delete_d4_f1000": (4000, 4),
    }
    for r in run["results"]:
        assert r["iops"] > 0 and r["error"] == 0
        assert 0 < r["lat_p50_us"] <= r["lat_p99_us"] <= r["lat_max_us"] * 1.05
    assert list(bench_dir.iterdir()) == []  # the files and their directory are gone
    with Store(db) as s:
        (first, *_) = s.outputs(run["id"])
        assert f"directory={bench_dir}/cephbench-{run['id']}.d/dir0" in first["input_text"]
        assert s.open_resources() == []


def test_metadata_suite_refuses_a_device_or_image(invoke):
    result = invoke("run", "metadata", "--target", "device:/dev/cephbench-none", expect=2)
    assert "metadata workloads create files in a directory" in result.stderr
