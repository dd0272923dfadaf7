"""``compare`` lines up a pasted result with the user's own run of the same job: by name where
the names agree, else by parameters (rw, bs, iodepth, numjobs, rwmixread, direction), and says
which rows it matched by parameters; ``--match name|params`` forces one way."""

from __future__ import annotations

import json
from pathlib import Path

from cephbench.model import Result, WorkloadOutcome
from cephbench.store import Store
from tests.contract import validate
from tests.helpers import ENV, FIO_DATA

BLOG = FIO_DATA / "ceph_nvme_blog.md"
"""Two runs of ``fio --name=test --bs=4k --iodepth=64 --readwrite=randrw --rwmixread=75``."""


def _own_run(db: Path, name: str = "randrw_4k_qd64", iodepth: int = 64) -> int:
    """The user's run of the blog's job, under a name of their own."""
    results = tuple(
        Result(
            workload=name,
            repeat=0,
            op=op,
            rw="randrw",
            bs=4096,
            iodepth=iodepth,
            numjobs=1,
            rwmixread=75,
            runtime_s=60.0,
            iops=iops,
            bw_bytes_per_s=iops * 4096,
            lat_mean_us=lat,
            lat_p99_us=lat * 3,
            lat_kind="lat",
        )
        for op, iops, lat in (("read", 9000.0, 5000.0), ("write", 3000.0, 6000.0))
    )
    with Store(db) as s:
        run_id = s.start_run(
            label="mine", suite="mixed", target="file:/mnt/bench", environment=ENV, params={}
        )
        s.record_batch(run_id, 0, None, [WorkloadOutcome(name, results)])
        s.finish_run(run_id, "complete")
    return run_id


def _blog_and_own(db: Path, invoke, **own) -> tuple[int, int]:
    invoke("import", str(BLOG))  # runs 1 (HDD pool) and 2 (SSD pool)
    return 1, _own_run(db, **own)


def test_a_pasted_blog_result_lines_up_with_the_same_job_of_another_name(db, invoke):
    blog, mine = _blog_and_own(db, invoke)
    out = invoke("compare", str(mine), str(blog), "--format", "md").stdout
    # the flag both rows have is one "Every row:" note, no marker (issue 25 item 14)
    assert "| randrw_4k_qd64 (read) | 9000 | 117 | -98.70% |" in out
    assert "| randrw_4k_qd64 (write) | 3000 | 39 | -98.70% |" in out
    assert "Every row: " in out and "[1]" not in out
    assert "| test" not in out and "is only in" not in out
    assert (
        "test (read) of #1 is matched to randrw_4k_qd64 (read) by its parameters "
        "(rw=randrw, bs=4k, iodepth=64, numjobs=1): the names differ."
    ) in out
    table = invoke("compare", str(mine), str(blog)).stdout
    assert "is matched to randrw_4k_qd64 (write) by its parameters" in " ".join(table.split())


def test_the_json_is_the_comparison_contract_with_the_rows_lined_up(db, invoke):
    blog, mine = _blog_and_own(db, invoke)
    doc = json.loads(invoke("compare", str(mine), str(blog), "--format", "json").stdout)
    validate(doc)
    iops = next(r for r in doc["rows"] if r["metric"] == "iops" and r["op"] == "read")
    assert iops["workload"] == "randrw_4k_qd64"
    assert iops["values"] == {str(mine): 9000.0, str(blog): 117.0}
    assert doc["missing"] == []


def test_match_name_keeps_them_apart_and_other_parameters_never_match(db, invoke):
    blog, mine = _blog_and_own(db, invoke)
    out = invoke("compare", str(mine), str(blog), "--format", "md", "--match", "name").stdout
    assert "| test (read) [1] | n/a | 117 | n/a |" in out and "matched to" not in out
    other = _own_run(db, name="qd32", iodepth=32)
    out = invoke("compare", str(other), str(blog), "--format", "md").stdout
    assert "matched to" not in out and "| test (read) [1] | n/a | 117 | n/a |" in out


def test_match_params_lines_up_even_where_the_names_agree_but_not_the_parameters(db, invoke):
    a = _own_run(db, name="test", iodepth=32)
    b = _own_run(db, name="test", iodepth=64)
    with Store(db) as s:
        s.conn.execute("UPDATE runs SET label = 'deeper' WHERE id = ?", (b,))
    by_name = invoke("compare", str(a), str(b), "--format", "md").stdout
    assert "| test (read) | 9000 | 9000 | +0.00% |" in by_name
    by_params = invoke("compare", str(a), str(b), "--format", "md", "--match", "params").stdout
    assert "| test (read) | 9000 | n/a | n/a |" in by_params
    assert "| test (deeper) (read) | n/a | 9000 | n/a |" in by_params
