"""`cephbench export` and `cephbench import` of cephbench's own JSON, end to end: real fio runs
moved to a fresh store come back identical apart from their ids and the one bookkeeping key
the import adds (``environment.imported_from``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cephbench.importing import importer
from cephbench.store import Store
from tests.conftest import DATA, FIO_DATA, needs_fio
from tests.contract import validate
from tests.helpers import cb, shown, without_bookkeeping

QUICK = ("--runtime", "1", "--size", "16m")
RADOS_SESSION = DATA / "rados-bench" / "16.2.15" / "session-t16.txt"
BAD_JOB = (
    "[global]\nioengine=libaio\nruntime=1\ntime_based\n"
    "[good]\nrw=read\nbs=4k\n[unaligned]\nstonewall\nrw=read\ndirect=1\nbs=100\n"
)


@pytest.fixture
def two_real_runs(db: Path, bench_dir: Path, tmp_path: Path) -> Path:
    """Run 1: the quick suite twice (label 'a'); run 2: a job file whose second job fails."""
    cb(db, "run", "quick", "--target", f"file:{bench_dir}", "--repeat", "2", "--label", "a", *QUICK)
    job = tmp_path / "bad.fio"
    job.write_text(BAD_JOB)
    cb(db, "run", str(job), "--target", f"file:{bench_dir}", "--size", "16m", expect=1)
    return db


@needs_fio
def test_export_then_import_into_a_fresh_store_gives_the_same_runs(two_real_runs, tmp_path):
    db, fresh, path = two_real_runs, tmp_path / "fresh.db", tmp_path / "out.json"
    cb(db, "export", "1", "last", "-o", str(path))
    exported = validate(json.loads(path.read_text()))
    assert exported["schema"] == "cephbench.export/1"
    assert [r["id"] for r in exported["runs"]] == [1, 2]
    assert importer.detect(path.read_text()) == "cephbench"  # though its outputs hold fio JSON

    imported = validate(json.loads(cb(fresh, "import", str(path), "--format", "json").stdout))
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
        return validate(json.loads(cb(store, "compare", "1", "2", "--format", "json").stdout))

    a, b = comparison(db), comparison(fresh)
    assert a["schema"] == "cephbench.comparison/1" and a["rows"] == b["rows"]
    assert [d for d in b["env_diff"] if d["path"] != "imported_from"] == a["env_diff"]


@needs_fio
def test_show_json_without_raw_imports_its_figures(two_real_runs, tmp_path):
    path, fresh = tmp_path / "show.json", tmp_path / "fresh.db"
    path.write_text(cb(two_real_runs, "show", "1", "--format", "json").stdout)
    cb(fresh, "import", str(path), "--label", "moved")
    before, after = shown(two_real_runs, "1"), shown(fresh, "last")
    assert after["label"] == "moved"  # --label replaces the run's own
    assert without_bookkeeping(after) == {**without_bookkeeping(before), "label": "moved"}
    assert shown(fresh, "last", "--raw")["outputs"] == []  # none were in the document


@needs_fio
def test_dry_run_of_an_export_stores_nothing(two_real_runs, tmp_path):
    path, fresh = tmp_path / "out.json", tmp_path / "fresh.db"
    cb(two_real_runs, "export", "1", "2", "-o", str(path))
    plan = json.loads(cb(fresh, "import", str(path), "--dry-run", "--format", "json").stdout)
    validate(plan)
    assert plan["schema"] == "cephbench.import-plan/1"
    assert [(r["id"], r["label"], r["suite"]) for r in plan["runs"]] == [
        (None, "a", "quick"),
        (None, None, str(tmp_path / "bad.fio")),
    ]
    assert validate(json.loads(cb(fresh, "runs", "--format", "json").stdout))["runs"] == []


def test_an_imported_run_moves_again_with_its_history(db, tmp_path):
    """A rados bench paste imported, exported, imported, exported and imported again."""
    cb(db, "import", str(RADOS_SESSION), "--label", "pacific")
    from tests.helpers import lab_fingerprint

    with Store(db) as s:  # a fingerprint recorded on the lab: the run's cluster travels with it
        s.save_fingerprint(1, lab_fingerprint(), "recpool")
    first, second = tmp_path / "1.db", tmp_path / "2.db"
    cb(db, "export", "last", "-o", str(tmp_path / "a.json"))
    cb(first, "import", str(tmp_path / "a.json"))
    cb(first, "export", "last", "-o", "-")  # standard output works too
    (tmp_path / "b.json").write_text(cb(first, "export", "last", "-o", "-").stdout)
    cb(second, "import", str(tmp_path / "b.json"))
    original, moved = shown(db, "1", "--raw"), shown(second, "1", "--raw")
    assert without_bookkeeping(moved) == without_bookkeeping(original)
    assert moved["cluster"]["ceph_version"] == "16.2.15 (pacific)"
    assert moved["environment"]["import"] == original["environment"]["import"]  # the paste's
    assert [h["source"] for h in moved["environment"]["imported_from"]] == [
        str(tmp_path / "a.json"),
        str(tmp_path / "b.json"),
    ]
    assert [r["metrics"] for r in moved["results"]] == [r["metrics"] for r in original["results"]]


def test_a_run_exported_while_running_is_stored_aborted(db, tmp_path):
    with Store(db) as s:  # this process is alive: the run stays 'running'
        s.start_run(label="live", suite="quick", target="file:/x", environment={}, params={})
    cb(db, "export", "last", "-o", str(tmp_path / "live.json"))
    fresh = tmp_path / "fresh.db"
    cb(fresh, "import", str(tmp_path / "live.json"))
    run = shown(fresh, "last")
    assert (run["status"], run["label"]) == ("aborted", "live")
    assert run["error"] == "exported while still running"


def test_fio_json_is_still_fio_json_and_cannot_be_read_as_cephbench(db):
    text = (FIO_DATA / "groups4.json").read_text()
    assert importer.detect(text) == "fio-json"
    result = cb(db, "import", str(FIO_DATA / "groups4.json"), "--as", "cephbench", expect=1)
    assert "not a cephbench JSON document" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda d: d["runs"][0]["results"][0].pop("iops"), "without the field 'iops'"),
        (lambda d: d.__setitem__("schema", "cephbench.export/2"), "cephbench.export/2 is a format"),
        (lambda d: d["runs"][0]["results"][0].__setitem__("flags", 5), "wrong kind"),
        (
            lambda d: d["runs"][0]["results"][0].__setitem__("iops", "fast"),
            "iops 'fast' is not a number",
        ),
        (lambda d: d["runs"][0].__setitem__("status", "done"), "status 'done' is not one of"),
        (
            lambda d: d["runs"][0]["results"][0].__setitem__("op", "rw"),
            "op is not read, write or trim",
        ),
    ],
)
def test_an_edited_export_fails_in_one_line_and_stores_nothing(db, tmp_path, edit, message):
    cb(db, "import", str(RADOS_SESSION))
    path = tmp_path / "x.json"
    doc = json.loads(cb(db, "export", "1", "-o", "-").stdout)
    edit(doc)
    path.write_text(json.dumps(doc))
    fresh = tmp_path / "fresh.db"
    result = cb(fresh, "import", str(path), expect=1)
    assert message in result.output and "Traceback" not in result.output
    assert validate(json.loads(cb(fresh, "runs", "--format", "json").stdout))["runs"] == []


def test_export_of_a_missing_run_writes_nothing(db, tmp_path):
    cb(db, "import", str(RADOS_SESSION))
    result = cb(db, "export", "1", "7", "-o", str(tmp_path / "x.json"), expect=1)
    assert "no run 7" in result.output and not (tmp_path / "x.json").exists()
