"""`cephbench compare` of real fio runs, end to end."""

from __future__ import annotations

from tests.helpers import needs_fio
from tests.unit import test_compare

_wide_terminal = test_compare._wide_terminal  # the pure tests' autouse fixture


@needs_fio
def test_real_fio_runs_compare_end_to_end(invoke, invoke_json, bench_dir):
    quick = ("--target", f"file:{bench_dir}", "--runtime", "1", "--size", "16m")
    invoke("run", "quick", *quick, "--label", "A", "--repeat", "2")
    invoke("run", "quick", *quick, "--label", "B", "--bs", "64k")
    data = invoke_json("compare", "1", "2")
    assert {r["workload"] for r in data["rows"]} == {"seq_wr", "seq_rd", "rand_rd", "rand_wr"}
    assert all(r["significant"] == {"2": None} for r in data["rows"])  # B has one sample
    assert all(r["n"]["1"] == 2 for r in data["rows"])
    assert any(d["path"] == "params.overrides.bs" for d in data["env_diff"])
    out = invoke("compare", "1", "2").stdout
    assert "Percent Difference" in out and "IOPS" in out
