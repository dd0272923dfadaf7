"""Issue 25, import: a cut-off paste is never imported as complete (fio text cut in its
figures is refused, one missing its 'Run status group' is stored with a warning), one cut-off
run never sinks the complete ones beside it (every tool's paste parser), and an imported run
is dated when its output says it ran, the import's time kept beside it. Wherever the run is
shown (``show``, its Markdown, its JSON, an export imported elsewhere) it says what its import
warned about, what it skipped, and when it ran and was imported.

Every input is a real recorded output under tests/data, cut where a paste can stop."""

from __future__ import annotations

import json
import sqlite3

import pytest

from cephbench.errors import ParseError
from cephbench.importing import importer
from cephbench.store import Store
from tests.helpers import DATA, invoke, shown

FIO = DATA / "fio" / "3.33"
RANDRW = (FIO / "randrw_70.txt").read_text()
SESSION = (DATA / "rados-bench" / "16.2.15" / "session-t16.txt").read_text()
OSDS = (DATA / "ceph" / "16.2.15" / "osd-bench-all.txt").read_text()
IPERF = (DATA / "iperf3" / "3.12" / "tcp.txt").read_text()


def _lines(text: str, a: int, b: int | None = None) -> str:
    """Lines a..b (1-based, inclusive) of ``text``, as a paste that starts or stops there."""
    return "".join(text.splitlines(keepends=True)[a - 1 : b])


# randrw_70.txt: job header line 5, read side 6-23 (percentiles 10-21), write side 24-41,
# cpu/IO depths/issued 44-49, "Run status group 0" line 51
MID_READ_PERCENTILES = _lines(RANDRW, 1, 13)
BEFORE_WRITE_SIDE = _lines(RANDRW, 1, 23)
BEFORE_RUN_STATUS = _lines(RANDRW, 1, 50)


@pytest.mark.parametrize(
    "text", [MID_READ_PERCENTILES, BEFORE_WRITE_SIDE], ids=["mid-percentiles", "no-write-side"]
)
def test_fio_text_cut_in_its_figures_is_refused_and_says_so(text):
    with pytest.raises(ParseError, match=r"mixed \(randrw\) cut off after its read figures"):
        importer.plan("cut.txt", text, None)


def test_fio_text_cut_before_run_status_is_stored_with_a_warning():
    (p,) = importer.plan("cut.txt", BEFORE_RUN_STATUS, None)
    assert [r.op for r in p.as_run().results] == ["read", "write"]
    assert p.warnings == ("the output ends before fio's 'Run status group' lines: cut off there?",)


def test_fio_text_whole_has_no_warning():
    (p,) = importer.plan("whole.txt", RANDRW, None)
    assert p.warnings == () and p.found.skipped == ()


def test_a_cut_fio_run_beside_whole_ones_is_skipped_and_named():
    text = RANDRW + MID_READ_PERCENTILES + "\n" + RANDRW
    runs = importer.plan("three.txt", text, None)
    assert len(runs) == 2
    assert all([r.op for r in p.as_run().results] == ["read", "write"] for p in runs)
    assert [s for p in runs for s in p.found.skipped] == [
        "fio job mixed (randrw) cut off after its read figures, before its cpu/IO depths lines "
        "and 'Run status group'"
    ]


# session-t16.txt: write 1-27 (summary 12-27), seq 28-44, rand 45-65
@pytest.mark.parametrize(
    ("text", "why"),
    [
        (_lines(SESSION, 1, 12) + _lines(SESSION, 28, 65), "in its summary, after 'Total time"),
        (_lines(SESSION, 1, 14) + _lines(SESSION, 28, 65), "in its summary, after 'Write size"),
        (_lines(SESSION, 28, 65) + _lines(SESSION, 1, 12), "in its summary, after 'Total time"),
        (_lines(SESSION, 1, 8) + _lines(SESSION, 28, 65), "at second 2, before its summary"),
    ],
    ids=["summary-cut-first", "summary-cut-later", "summary-cut-last", "table-cut"],
)
def test_a_cut_rados_bench_run_does_not_sink_the_others(text, why):
    (p,) = importer.plan("session.txt", text, None)
    assert [o.name for o in p.found.outcomes] == ["seq", "rand"]
    (skipped,) = p.found.skipped
    assert f"a rados bench output cut off {why}" in skipped


def test_a_cut_osd_bench_answer_does_not_sink_the_others():
    (p,) = importer.plan("osds.txt", OSDS[:400], None)  # stops inside osd.2's JSON
    assert [o.name for o in p.found.outcomes] == ["osd.0", "osd.1"]
    assert p.found.skipped == ("osd.2: its bench output is cut off (not complete JSON)",)


@pytest.mark.parametrize("first", [True, False], ids=["cut-first", "cut-last"])
def test_a_cut_iperf3_test_does_not_sink_the_others(first):
    cut = _lines(IPERF, 1, 5)  # connected, two per-second lines, then the paste ends
    (p,) = importer.plan("iperf.txt", cut + IPERF if first else IPERF + cut, None)
    assert [o.name for o in p.found.outcomes] == ["127.0.0.1->127.0.0.1"]
    assert p.found.skipped == ("an iperf3 test cut off at 2.00 s, before its summary",)


def test_only_cut_outputs_are_refused_naming_each():
    text = "```\n" + MID_READ_PERCENTILES + "```\n\n```\n" + _lines(SESSION, 1, 12) + "```\n"
    with pytest.raises(ParseError, match=r"nothing complete to import: .*randrw.*rados bench"):
        importer.plan("notes.md", text, None)


# --- dated when they ran ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "started_at"),
    [
        # the header line "mixed: (groupid=0, ...): pid=14279: Sat Nov 21 11:09:28 2026"
        (FIO / "randrw_70.txt", "2026-11-21T11:09:28+00:00"),
        # "timestamp" : 1795259368 (= Sat Nov 21 11:09:28 2026 UTC, its "time")
        (FIO / "randrw_70.json", "2026-11-21T11:09:28+00:00"),
        # start.timestamp: "Sat, 21 Nov 2026 13:21:48 GMT", timesecs 1795267308
        (DATA / "iperf3" / "3.12" / "tcp-P4.client.json", "2026-11-21T13:21:48+00:00"),
        # --show-time: the first line's 2026-11-21T13:20:38.395823+0000
        (DATA / "rados-bench" / "16.2.15" / "write-showtime.txt", "2026-11-21T13:20:38+00:00"),
    ],
    ids=lambda v: getattr(v, "name", None),
)
def test_an_imported_run_starts_when_its_output_says(path, started_at):
    (p,) = importer.plan(path.name, path.read_text(), None)
    assert p.as_run().started_at == started_at


def test_an_output_without_a_time_is_dated_by_its_import():
    (p,) = importer.plan("osds.txt", OSDS, None)
    assert p.found.started_at is None
    assert p.as_run().started_at >= "2024"


def test_stored_runs_keep_both_times_and_since_reads_the_run_time(invoke, invoke_json, db):
    invoke("import", str(FIO / "randrw_70.txt"))
    invoke("import", str(DATA / "ceph" / "16.2.15" / "osd-bench-all.txt"))
    rows = sqlite3.connect(db).execute("SELECT started_at, imported_at FROM runs ORDER BY id")
    (fio_started, fio_imported), (osd_started, osd_imported) = rows.fetchall()
    assert fio_started == "2026-11-21T11:09:28+00:00"
    assert fio_imported is not None and osd_started == osd_imported
    shown = invoke_json("show", "1")
    assert shown["started_at"] == fio_started
    newer = invoke_json("runs", "--since", "2026-11-22")["runs"]
    assert [r["id"] for r in newer] == ([2] if osd_started >= "2026-11-22" else [])
    older = invoke_json("runs", "--since", "2026-11-21")["runs"]
    assert 1 in [r["id"] for r in older]


def test_a_directory_import_dates_each_run_by_its_output(tmp_path, invoke, db):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text(RANDRW)
    invoke("import", str(tmp_path / "in"))
    ((started, imported),) = sqlite3.connect(db).execute("SELECT started_at, imported_at FROM runs")
    assert started == "2026-11-21T11:09:28+00:00" and imported is not None


# --- shown wherever the run is shown ------------------------------------------------------

CUT_WARNING = "the output ends before fio's 'Run status group' lines: cut off there?"
RADOS_SKIPPED = "a rados bench output cut off at second 2, before its summary"


def _said(text: str) -> str:
    """A table's text as one line: a note rich wrapped at 80 columns reads whole again."""
    return " ".join(text.split())


def _md_lines(md: str) -> list[str]:
    """Markdown's lines without the two spaces that break a line of notes."""
    return [line.rstrip() for line in md.splitlines()]


def test_show_of_a_run_cut_before_run_status_says_it_was_imported_with_a_warning(
    tmp_path, invoke, invoke_json
):
    (tmp_path / "cut.txt").write_text(BEFORE_RUN_STATUS)
    invoke("import", str(tmp_path / "cut.txt"))
    assert f"Imported with a warning: {CUT_WARNING}" in _said(invoke("show", "last").stdout)
    md = invoke("show", "last", "--format", "md").stdout
    assert f"Imported with a warning: {CUT_WARNING}" in _md_lines(md)
    run = invoke_json("show", "last")
    assert run["status"] == "complete"  # its figures are whole: the note is what says it
    assert run["environment"]["import"]["warnings"] == [CUT_WARNING]
    assert "skipped" not in run["environment"]["import"]


def test_a_whole_import_has_no_import_note(tmp_path, invoke):
    invoke("import", str(FIO / "randrw_70.txt"))
    out = invoke("show", "last", "--format", "md").stdout
    assert "Imported with a warning" not in out and "Skipped at import" not in out


def test_a_rados_session_with_a_cut_write_run_keeps_it_under_import_skipped(
    tmp_path, invoke, invoke_json
):
    (tmp_path / "session.txt").write_text(_lines(SESSION, 1, 8) + _lines(SESSION, 28, 65))
    invoke("import", str(tmp_path / "session.txt"))
    run = invoke_json("show", "last")
    assert run["status"] == "complete"
    assert [r["workload"] for r in run["results"]] == ["seq", "rand"]
    assert run["environment"]["import"]["skipped"] == [RADOS_SKIPPED]
    assert f"Skipped at import: {RADOS_SKIPPED}" in _said(invoke("show", "last").stdout)
    md = invoke("show", "last", "--format", "md").stdout
    assert f"Skipped at import: {RADOS_SKIPPED}" in _md_lines(md)


def test_a_cut_osd_answer_is_named_under_the_osd_table(tmp_path, invoke):
    (tmp_path / "osds.txt").write_text(OSDS[:400])
    invoke("import", str(tmp_path / "osds.txt"))
    out = _said(invoke("show", "last").stdout)
    assert "Skipped at import: osd.2: its bench output is cut off (not complete JSON)" in out


def test_a_warning_about_a_flag_is_the_flags_footnote_not_said_twice():
    """kubestr prints no latency: the import warns of ``no_latency``, the table's footnote
    (every row) says it once."""
    from cephbench.tables.run_table import run_table

    path = DATA / "kubestr" / "gke-premium-rwo.txt"
    (p,) = importer.plan(path.name, path.read_text(), None)
    assert any(w.endswith("(flag no_latency)") for w in p.warnings)
    notes = run_table(p.as_run(1)).notes
    assert not any(n.startswith("Imported with a warning") for n in notes)
    assert sum("no latency recorded" in n for n in notes) == 1


def test_show_says_when_an_imported_run_ran_and_when_it_was_imported(invoke, invoke_json, db):
    invoke("import", str(FIO / "randrw_70.txt"))
    invoke("import", str(DATA / "ceph" / "16.2.15" / "osd-bench-all.txt"))
    rows = sqlite3.connect(db).execute("SELECT imported_at FROM runs ORDER BY id").fetchall()
    fio, osd = invoke_json("show", "1"), invoke_json("show", "2")
    assert [fio["imported_at"], osd["imported_at"]] == [r[0] for r in rows]
    assert fio["started_at"] == "2026-11-21T11:09:28+00:00" != fio["imported_at"]
    assert osd["started_at"] == osd["imported_at"]  # osd bench prints no time
    at = fio["imported_at"][:16].replace("T", " ")
    assert f"Ran 2026-11-21 11:09 UTC (its output's own time), imported {at} UTC." in _said(
        invoke("show", "1").stdout
    )
    assert (
        f"Imported {osd['imported_at'][:16].replace('T', ' ')} UTC; its output gives no time "
        "of its own, so the run is dated by its import." in _said(invoke("show", "2").stdout)
    )


def test_the_import_json_and_a_directory_import_carry_the_stored_import_time(tmp_path, invoke, db):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text(RANDRW)
    doc = json.loads(invoke("import", str(tmp_path / "in"), "--format", "json").stdout)
    ((stored,),) = sqlite3.connect(db).execute("SELECT imported_at FROM runs").fetchall()
    assert doc["runs"][0]["imported_at"] == stored == shown(db, "1")["imported_at"]


def test_a_run_cephbench_made_has_no_imported_at_key(invoke, invoke_json, db):
    with Store(db) as s:  # as the runner stores a run: no import time
        run_id = s.start_run(label=None, suite="quick", target="file:/x", environment={}, params={})
        s.finish_run(run_id, "complete")
        assert s.get_run(run_id).imported_at is None
    doc = invoke_json("show", str(run_id))
    assert "imported_at" not in doc
    assert list(doc)[:9] == [
        "schema", "id", "label", "suite", "target", "status", "started_at", "ended_at", "error"
    ]  # fmt: skip
    assert "imported" not in _said(invoke("show", str(run_id)).stdout)


def test_export_then_import_keeps_the_import_time_and_what_the_import_said(tmp_path, db):
    text = _lines(SESSION, 1, 8) + _lines(SESSION, 28, 65)
    (tmp_path / "session.txt").write_text(text)
    invoke("import", str(tmp_path / "session.txt"), db=db)
    with Store(db) as s:  # and a run cephbench made, exported beside it
        made = s.start_run(label="mine", suite="quick", target="file:/x", environment={}, params={})
        s.finish_run(made, "complete")
    invoke("export", "1", str(made), "-o", str(tmp_path / "a.json"), db=db)
    moved = tmp_path / "moved.db"
    invoke("import", str(tmp_path / "a.json"), db=moved)
    original, back = shown(db, "1"), shown(moved, "1")
    assert back["imported_at"] == original["imported_at"]
    assert back["environment"]["import"]["skipped"] == [RADOS_SKIPPED]
    assert f"Skipped at import: {RADOS_SKIPPED}" in _said(
        invoke("show", "1", "--format", "md", db=moved).stdout
    )
    assert "imported_at" not in shown(moved, "2")  # moved, not imported from a tool's output


def test_the_reports_results_of_a_cut_import_say_it(tmp_path, invoke, db):
    from cephbench.analysis.compare import compare
    from cephbench.report.sections.results import results

    (tmp_path / "cut.txt").write_text(BEFORE_RUN_STATUS)
    invoke("import", str(tmp_path / "cut.txt"))
    with Store(db) as s:
        (table,) = results(compare([s.get_run("last")]))
    assert f"Imported with a warning: {CUT_WARNING}" in table.notes
