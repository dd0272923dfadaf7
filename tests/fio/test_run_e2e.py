"""`cephbench run` end to end: real fio on real files, read back from the store."""

from __future__ import annotations

import pytest

from cephbench.store import Store
from tests.helpers import FIO_DATA, needs_fio

pytestmark = needs_fio
QUICK = ("--runtime", "1", "--size", "16m")


def test_quick_suite_is_stored_and_shown(invoke, invoke_json, bench_dir, db):
    invoke("run", "quick", "--target", f"file:{bench_dir}", "--label", "attempt 1", *QUICK)
    run = invoke_json("show", "last")
    assert (run["label"], run["suite"], run["status"]) == ("attempt 1", "quick", "complete")
    assert [(r["workload"], r["op"], r["rw"], r["bs"], r["iodepth"]) for r in run["results"]] == [
        ("seq_wr", "write", "write", 131072, 256),
        ("seq_rd", "read", "read", 131072, 256),
        ("rand_rd", "read", "randread", 4096, 256),
        ("rand_wr", "write", "randwrite", 4096, 256),
    ]
    for r in run["results"]:
        assert r["iops"] > 0
        assert r["runtime_s"] == pytest.approx(
            1.0, abs=0.3
        )  # fio overshoots a little on a busy machine
        assert r["bw_bytes_per_s"] == pytest.approx(r["iops"] * r["bs"], rel=0.02)
        assert r["lat_kind"] == "lat"
        assert 0 < r["lat_p50_us"] <= r["lat_p99_us"] <= r["lat_p999_us"] <= r["lat_max_us"] * 1.05
    assert run["environment"]["tools"]["fio"] == "fio-3.33"
    assert run["environment"]["target"]["filesystem"]
    assert list(bench_dir.iterdir()) == []  # the data file is gone
    with Store(db) as s:
        (output,) = s.outputs(run["id"])
        assert f"filename={bench_dir}/cephbench-{run['id']}.dat" in output["input_text"]
        assert '"jobs"' in output["stdout"]
        assert s.open_resources() == []


def test_markdown_table_is_ready_to_paste(invoke, bench_dir):
    invoke("run", "quick", "--target", f"file:{bench_dir}", *QUICK)
    lines = invoke("show", "last", "--format", "md").stdout.splitlines()
    assert (
        lines[2]
        == "| Workload | IOPS | Bandwidth (MiB/s) | Avg Latency (ms) | 99th Percentile Latency (ms) |"
    )
    assert lines[3] == "|:---|---:|---:|---:|---:|"
    assert [ln.split(" | ")[0] for ln in lines[4:8]] == [
        "| seq_wr",
        "| seq_rd",
        "| rand_rd",
        "| rand_wr",
    ]


def test_users_job_file_with_groups_and_repeats(invoke, invoke_json, bench_dir):
    invoke(
        "run",
        str(FIO_DATA / "groups4.fio"),
        "--target",
        f"file:{bench_dir}",
        "--repeat",
        "2",
        *QUICK,
    )
    run = invoke_json("show", "last")
    assert [(r["workload"], r["repeat"]) for r in run["results"]] == [
        (w, rep) for rep in (0, 1) for w in ("seq_wr", "seq_rd", "rand_rd", "rand_wr")
    ]
    assert run["params"]["repeat"] == 2
    assert invoke_json("runs")["runs"][0]["status"] == "complete"


def test_mixed_workload_shows_read_and_write_rows(invoke, bench_dir):
    invoke("run", "mixed", "--target", f"file:{bench_dir}", *QUICK)
    out = invoke("show", "last", "--format", "md").stdout
    assert "| randrw_75_25 (read) |" in out and "| randrw_75_25 (write) |" in out


def test_failing_workload_keeps_fios_error_and_the_others(invoke, invoke_json, bench_dir, tmp_path):
    job = tmp_path / "bad.fio"
    job.write_text(
        "[global]\nioengine=libaio\nruntime=1\ntime_based\n"
        "[good]\nrw=read\nbs=4k\n[unaligned]\nstonewall\nrw=read\ndirect=1\nbs=100\n"
    )
    result = invoke("run", str(job), "--target", f"file:{bench_dir}", "--size", "16m", expect=1)
    assert "err=22" in result.output
    run = invoke_json("show", "last")
    assert run["status"] == "failed"
    assert [r["workload"] for r in run["results"]] == ["good"]
    (failure,) = run["failures"]
    assert failure["workload"] == "unaligned" and "Invalid argument" in failure["error"]


@pytest.mark.parametrize(
    "args, message",
    [
        (("run", "nosuch", "--target", "file:/tmp"), "no suite named 'nosuch'"),
        (("run", "quick", "--target", "nfs:/x"), "is not a target"),
        (("run", "quick", "--target", "file:/nonexistent/dir/f"), "does not exist"),
        (("run", "quick", "--target", "file:/tmp", "--size", "100T"), "free, the run needs 100t"),
        (
            ("run", "quick", "--target", "file:/etc/hostname"),
            "already exists and cephbench did not create it",
        ),
        (("run", "quick", "--target", "device:/dev/null"), "is not a block device"),
        (("show", "99"), "no run 99"),
        (("show", "abc"), "is not a run id"),
    ],
)
def test_errors_are_one_line_without_traceback(invoke, args, message):
    result = invoke(*args, expect=None)
    assert result.exit_code != 0
    assert message in result.output
    assert "Traceback" not in result.output


def test_a_failed_check_stores_nothing(invoke, invoke_json):
    invoke("run", "quick", "--target", "file:/tmp", "--size", "100T", expect=1)
    assert invoke_json("runs")["runs"] == []


def test_job_file_without_size_asks_for_one(invoke, bench_dir, tmp_path):
    job = tmp_path / "nosize.fio"
    job.write_text("[j]\nrw=read\n")
    result = invoke("run", str(job), "--target", f"file:{bench_dir}", expect=2)
    assert "--size" in result.output


def test_fio_missing_says_how_to_install_it(invoke, invoke_json, bench_dir, tmp_path, monkeypatch):
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    result = invoke("run", "quick", "--target", f"file:{bench_dir}", *QUICK, expect=1)
    assert "fio is not installed" in result.output and "apt-get install fio" in result.output
    monkeypatch.undo()
    assert invoke_json("runs")["runs"] == []


def test_a_workload_that_cannot_start_fails_alone(invoke, invoke_json, bench_dir, tmp_path):
    suite = tmp_path / "broken.yaml"
    suite.write_text(
        "name: broken\ndescription: d\nglobal: {ioengine: psync, time_based: true, runtime: 1, size: 16m}\n"
        "workloads:\n  - {name: first, rw: read, options: {exec_prerun: 'false'}}\n"
        "  - {name: second, rw: write}\n"
    )
    invoke("run", str(suite), "--target", f"file:{bench_dir}", expect=1)
    run = invoke_json("show", "last")
    assert run["status"] == "failed"
    assert [f["workload"] for f in run["failures"]] == ["first"] and "no I/O" in run["failures"][0][
        "error"
    ]
    assert [r["workload"] for r in run["results"]] == ["second"]
