"""`cephbench export` and `cephbench import` of cephbench's own JSON, end to end: real fio runs
moved to a fresh store come back identical apart from their ids and the one bookkeeping key
the import adds (``environment.imported_from``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cephbench.importing import importer
from cephbench.store import Store
from tests.contract import validate
from tests.helpers import invoke, needs_fio, shown, without_bookkeeping

QUICK = ("--runtime", "1", "--size", "16m")


BAD_JOB = (
    "[global]\nioengine=libaio\nruntime=1\ntime_based\n"
    "[good]\nrw=read\nbs=4k\n[unaligned]\nstonewall\nrw=read\ndirect=1\nbs=100\n"
)


@pytest.fixture(scope="module")
def two_real_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Run 1: the quick suite twice (label 'a'); run 2: a job file whose second job fails.
    Made once for the module: its tests only read the store (they import into stores of
    their own)."""
    base = tmp_path_factory.mktemp("two-runs")
    db, bench_dir = base / "results.db", base / "bench"
    bench_dir.mkdir()
    invoke(
        "run",
        "quick",
        "--target",
        f"file:{bench_dir}",
        "--repeat",
        "2",
        "--label",
        "a",
        *QUICK,
        db=db,
    )
    job = base / "bad.fio"
    job.write_text(BAD_JOB)
    invoke("run", str(job), "--target", f"file:{bench_dir}", "--size", "16m", db=db, expect=1)
    return db


@needs_fio
def test_export_then_import_into_a_fresh_store_gives_the_same_runs(two_real_runs, tmp_path):
    db, fresh, path = two_real_runs, tmp_path / "fresh.db", tmp_path / "out.json"
    invoke("export", "1", "last", "-o", str(path), db=db)
    exported = validate(json.loads(path.read_text()))
    assert exported["schema"] == "cephbench.export/1"
    assert [r["id"] for r in exported["runs"]] == [1, 2]
    assert importer.detect(path.read_text()) == "cephbench"  # though its outputs hold fio JSON

    imported = validate(
        json.loads(invoke("import", str(path), "--format", "json", db=fresh).stdout)
    )
    assert [r["id"] for r in imported["runs"]] == [1, 2]
    for ref in ("1", "2"):
        before, after = shown(db, ref, "--raw"), shown(fresh, ref, "--raw")
        assert without_bookkeeping(after) == without_bookkeeping(before)
        assert after["environment"]["imported_from"] == [{"source": str(path), "run_id": int(ref)}]
    quick, failed = shown(fresh, "1", "--raw"), shown(fresh, "2", "--raw")
    assert (quick["label"], quick["suite"], quick["status"]) == ("a", "quick", "complete")
    assert [(r["workload"], r["repeat"]) for r in quick["results"]] == [
        (w, rep) for rep in (0, 1) for w in ("seq_wr", "seq_rd", "rand_rd", "rand_wr")
    ]
    assert [(o["repeat"], o["tool"], o["workloads"]) for o in quick["outputs"]] == [
        (rep, "fio", ["seq_wr", "seq_rd", "rand_rd", "rand_wr"]) for rep in (0, 1)
    ]
    assert failed["status"] == "failed"
    assert [f["workload"] for f in failed["failures"]] == ["unaligned"]
    assert failed["outputs"][0]["workloads"] == ["good", "unaligned"]
    with Store(fresh) as s:  # the raw outputs are whole: fio's JSON and the job file it ran
        stdouts = [o["stdout"] for o in exported["runs"][0]["outputs"]]
        assert [o["stdout"] for o in s.outputs(1)] == stdouts
        assert "filename=" in s.outputs(1)[0]["input_text"]

    def comparison(store: Path) -> dict:
        return validate(
            json.loads(invoke("compare", "1", "2", "--format", "json", db=store).stdout)
        )

    a, b = comparison(db), comparison(fresh)
    assert a["schema"] == "cephbench.comparison/1" and a["rows"] == b["rows"]
    assert [d for d in b["env_diff"] if d["path"] != "imported_from"] == a["env_diff"]


@needs_fio
def test_show_json_without_raw_imports_its_figures(two_real_runs, tmp_path):
    path, fresh = tmp_path / "show.json", tmp_path / "fresh.db"
    path.write_text(invoke("show", "1", "--format", "json", db=two_real_runs).stdout)
    invoke("import", str(path), "--label", "moved", db=fresh)
    before, after = shown(two_real_runs, "1"), shown(fresh, "last")
    assert after["label"] == "moved"  # --label replaces the run's own
    assert without_bookkeeping(after) == {**without_bookkeeping(before), "label": "moved"}
    assert shown(fresh, "last", "--raw")["outputs"] == []  # none were in the document


@needs_fio
def test_dry_run_of_an_export_stores_nothing(two_real_runs, tmp_path):
    path, fresh = tmp_path / "out.json", tmp_path / "fresh.db"
    invoke("export", "1", "2", "-o", str(path), db=two_real_runs)
    plan = json.loads(invoke("import", str(path), "--dry-run", "--format", "json", db=fresh).stdout)
    validate(plan)
    assert plan["schema"] == "cephbench.import-plan/1"
    assert [(r["id"], r["label"], r["suite"]) for r in plan["runs"]] == [
        (None, "a", "quick"),
        (None, None, str(two_real_runs.parent / "bad.fio")),
    ]
    assert validate(json.loads(invoke("runs", "--format", "json", db=fresh).stdout))["runs"] == []
