"""`cephbench import DIR`: every file under a directory, batches of files per transaction,
each file stored whole or not at all, bad files skipped with one line and nothing else lost."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from cephbench.importing import batch
from cephbench.store import Store
from cephbench.tools.fio.parse import extract
from tests.helpers import FIO_DATA


def _results_tree(top: Path) -> dict[str, Path]:
    """A directory of results as people keep them: outputs nested, job files, notes, hidden
    files; returns the outputs by name."""
    outputs = {
        "a.json": top / "a.json",
        "b.txt": top / "host1" / "b.txt",
        "c.json": top / "host1" / "week2" / "c.json",
    }
    for sample, path in zip(
        ("groups4.json", "randrw_70.txt", "randread_qd8.json"), outputs.values(), strict=True
    ):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text((FIO_DATA / sample).read_text())
    (top / "jobs.fio").write_text((FIO_DATA / "groups4.fio").read_text())
    (top / "host1" / "README.md").write_text("# Week 1\nNothing measured here.\n")
    (top / "plot.py").write_text(  # a script that reads fio's JSON is not a damaged one
        'import json\ndoc = json.load(open("a.json"))\nprint(doc["fio version"], doc["jobs"])\n'
    )
    (top / ".git").mkdir()
    (top / ".git" / "copy.json").write_text((FIO_DATA / "groups4.json").read_text())
    (top / ".notes.json").write_text((FIO_DATA / "groups4.json").read_text())
    return outputs


def test_a_directory_imports_every_output_under_it_and_skips_the_rest(
    invoke, invoke_json, tmp_path
):
    top = tmp_path / "results"
    outputs = _results_tree(top)
    result = invoke("import", str(top))
    runs = invoke_json("runs")["runs"]
    # sorted by path, nested directories included, hidden ones passed over
    assert [r["target"] for r in runs] == sorted(str(p) for p in outputs.values())
    err = result.stderr
    assert f"{top / 'jobs.fio'}: skipped: no fio (JSON or normal)" in err
    assert f"{top / 'host1' / 'README.md'}: skipped: no fio" in err
    assert f"{top / 'plot.py'}: skipped: no fio" in err
    assert err.count("skipped:") == 3 and ".git" not in err and ".notes" not in err
    assert f"{top}: 3 files imported as 3 runs, 3 skipped (see above)" in err
    a = invoke_json("show", str(runs[0]["id"]))
    assert a["target"] == str(outputs["a.json"])
    assert [r["workload"] for r in a["results"]] == ["seq_wr", "seq_rd", "rand_rd", "rand_wr"]


def test_a_damaged_file_in_a_directory_costs_only_itself(invoke, invoke_json, tmp_path):
    top = tmp_path / "results"
    outputs = _results_tree(top)
    cut = (FIO_DATA / "numjobs4.json").read_text()
    (top / "host1" / "cut.json").write_text(cut[: len(cut) // 2])  # a copy cut off
    result = invoke("import", str(top), expect=1)
    assert f"{top / 'host1' / 'cut.json'}: not imported: no complete fio JSON" in result.stderr
    assert "1 file could not be read (see above); the rest are imported" in result.stderr
    assert "Traceback" not in result.output
    targets = [r["target"] for r in invoke_json("runs")["runs"]]
    assert targets == sorted(str(p) for p in outputs.values())


def test_a_file_named_itself_is_still_all_or_nothing(invoke, invoke_json, tmp_path):
    top = tmp_path / "results"
    _results_tree(top)
    notes = tmp_path / "notes.txt"
    notes.write_text("no benchmark here\n")
    result = invoke("import", str(top), str(notes), expect=1)
    assert "notes.txt: no fio (JSON or normal)" in result.output
    assert invoke_json("runs")["runs"] == []


def test_a_directory_with_no_output_is_an_error(invoke, invoke_json, tmp_path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "job.fio").write_text("[x]\nrw=read\n")
    result = invoke("import", str(tmp_path / "empty"), expect=2)
    assert (
        "no fio (JSON or normal), rados bench, ceph tell osd bench, iperf3, dd, kbench's summary or kubestr's fio output in"
        in (result.output)
    )
    assert invoke_json("runs")["runs"] == []


def _renamed(sample: str, job: str) -> str:
    """A recorded fio JSON output with its (one) job named ``job``."""
    doc = extract((FIO_DATA / sample).read_text()).data
    for j in doc["jobs"]:
        j["jobname"] = job
    return json.dumps(doc)


def _refuse_job(db: Path, name: str, how: str) -> None:
    """A real SQLite refusal at the moment a workload named ``name`` is written: ABORT undoes
    the statement (the transaction goes on), ROLLBACK the whole transaction (as some I/O
    errors do)."""
    with Store(db):
        pass  # the schema
    conn = sqlite3.connect(db)
    conn.execute(
        f"CREATE TRIGGER refuse BEFORE INSERT ON workloads WHEN NEW.name = '{name}'"
        f" BEGIN SELECT RAISE({how}, 'refused by the test'); END"
    )
    conn.commit()
    conn.close()


def _consistent(db: Path) -> list[tuple[str, int]]:
    """(target, workloads) of every stored run; fails on a half-stored one."""
    conn = sqlite3.connect(db)
    rows = conn.execute(
        "SELECT r.target, r.status, COUNT(w.id) FROM runs r LEFT JOIN workloads w"
        " ON w.run_id = r.id GROUP BY r.id ORDER BY r.id"
    ).fetchall()
    orphans = conn.execute(
        "SELECT COUNT(*) FROM results WHERE workload_id NOT IN (SELECT id FROM workloads)"
    ).fetchone()[0]
    conn.close()
    assert orphans == 0 and all(status == "complete" and n > 0 for _, status, n in rows)
    return [(Path(t).name, n) for t, _, n in rows]


def test_a_file_the_store_refuses_is_left_out_whole_and_the_batch_goes_on(invoke, db, tmp_path):
    top = tmp_path / "results"
    top.mkdir()
    for i in range(4):
        text = (FIO_DATA / "groups4.json").read_text()
        (top / f"{i}.json").write_text(_renamed("randread_qd8.json", "boom") if i == 2 else text)
    _refuse_job(db, "boom", "ABORT")
    result = invoke("import", str(top), expect=1)
    assert f"{top / '2.json'}: not imported: the store refused it: refused by the test" in (
        result.stderr
    )
    assert _consistent(db) == [("0.json", 4), ("1.json", 4), ("3.json", 4)]


def test_a_batch_sqlite_gives_up_on_is_lost_whole_and_the_batches_before_are_kept(
    invoke, db, tmp_path, monkeypatch
):
    monkeypatch.setattr(batch, "BATCH_RUNS", 2)
    top = tmp_path / "results"
    top.mkdir()
    for i in range(5):
        job = "boom" if i == 3 else f"job{i}"
        (top / f"{i}.json").write_text(_renamed("randread_qd8.json", job))
    _refuse_job(db, "boom", "ROLLBACK")
    result = invoke("import", str(top), expect=1)
    assert "refused by the test; none of" in result.output
    assert f"{top / '2.json'} .. {top / '3.json'} (2 files) is stored" in result.output
    assert "Traceback" not in result.output
    # the first batch (0, 1) was committed and said so; 2 went with 3; 4 was never written
    assert f"{top / '1.json'}: stored as run 2" in result.stderr
    assert "2.json: stored" not in result.stderr
    assert _consistent(db) == [("0.json", 1), ("1.json", 1)]


@pytest.mark.parametrize("runs", [1, 3])
def test_batches_commit_every_so_many_runs(db, tmp_path, monkeypatch, runs):
    monkeypatch.setattr(batch, "BATCH_RUNS", runs)
    top = tmp_path / "results"
    top.mkdir()
    for i in range(7):
        (top / f"{i}.json").write_text((FIO_DATA / "randread_qd8.json").read_text())
    inputs = batch.expand([str(top)])
    with Store(db) as store:
        seen = []
        for o in batch.save(store, batch.planned(inputs, lambda i: batch.plan(i, None, None))):
            # yielded only once committed: another connection already sees the run
            other = sqlite3.connect(db)
            (count,) = other.execute("SELECT COUNT(*) FROM runs").fetchone()
            other.close()
            assert o.ids[0] is not None and count >= o.ids[0]
            seen.append(o.ids[0])
    assert seen == list(range(1, 8))


def test_what_is_no_regular_file_is_skipped_without_being_read(invoke, invoke_json, tmp_path):
    top = tmp_path / "results"
    top.mkdir()
    (top / "a.json").write_text((FIO_DATA / "randread_qd8.json").read_text())
    os.mkfifo(top / "pipe")  # reading it would wait for a writer forever
    result = invoke("import", str(top))
    assert f"{top / 'pipe'}: skipped: not a regular file" in result.stderr
    assert [r["target"] for r in invoke_json("runs")["runs"]] == [str(top / "a.json")]
