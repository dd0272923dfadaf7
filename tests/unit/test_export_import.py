"""`cephbench export` and `cephbench import` of cephbench's own JSON, from stored runs: an
imported run moves again with its history, a run exported while running is stored aborted, an
edited or foreign file fails in one line and stores nothing (real fio runs moved end to end:
tests/fio/test_export_import.py)."""

from __future__ import annotations

import json

import pytest

from cephbench.importing import importer
from cephbench.store import Store
from tests.contract import validate
from tests.helpers import DATA, FIO_DATA, invoke, shown, without_bookkeeping

RADOS_SESSION = DATA / "rados-bench" / "16.2.15" / "session-t16.txt"


def test_an_imported_run_moves_again_with_its_history(db, tmp_path):
    """A rados bench paste imported, exported, imported, exported and imported again."""
    invoke("import", str(RADOS_SESSION), "--label", "pacific", db=db)
    from tests.helpers import lab_fingerprint

    with Store(db) as s:  # a fingerprint recorded on the lab: the run's cluster travels with it
        s.save_fingerprint(1, lab_fingerprint(), "recpool")
    first, second = tmp_path / "1.db", tmp_path / "2.db"
    invoke("export", "last", "-o", str(tmp_path / "a.json"), db=db)
    invoke("import", str(tmp_path / "a.json"), db=first)
    invoke("export", "last", "-o", "-", db=first)  # standard output works too
    (tmp_path / "b.json").write_text(invoke("export", "last", "-o", "-", db=first).stdout)
    invoke("import", str(tmp_path / "b.json"), db=second)
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
    invoke("export", "last", "-o", str(tmp_path / "live.json"), db=db)
    fresh = tmp_path / "fresh.db"
    invoke("import", str(tmp_path / "live.json"), db=fresh)
    run = shown(fresh, "last")
    assert (run["status"], run["label"]) == ("aborted", "live")
    assert run["error"] == "exported while still running"


def test_fio_json_is_still_fio_json_and_cannot_be_read_as_cephbench(db):
    text = (FIO_DATA / "groups4.json").read_text()
    assert importer.detect(text) == "fio-json"
    result = invoke("import", str(FIO_DATA / "groups4.json"), "--as", "cephbench", db=db, expect=1)
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
    invoke("import", str(RADOS_SESSION), db=db)
    path = tmp_path / "x.json"
    doc = json.loads(invoke("export", "1", "-o", "-", db=db).stdout)
    edit(doc)
    path.write_text(json.dumps(doc))
    fresh = tmp_path / "fresh.db"
    result = invoke("import", str(path), db=fresh, expect=1)
    assert message in result.output and "Traceback" not in result.output
    assert validate(json.loads(invoke("runs", "--format", "json", db=fresh).stdout))["runs"] == []


def test_export_of_a_missing_run_writes_nothing(db, tmp_path):
    invoke("import", str(RADOS_SESSION), db=db)
    result = invoke("export", "1", "7", "-o", str(tmp_path / "x.json"), db=db, expect=1)
    assert "no run 7" in result.output and not (tmp_path / "x.json").exists()
