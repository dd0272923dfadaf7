"""`cephbench import` of rados bench, ceph tell osd bench and iperf3 outputs, end to end: dry
runs, stored runs, and imported runs in `show` and `compare`."""

from __future__ import annotations

import json

import pytest

from tests.helpers import DATA

RADOS = DATA / "rados-bench"
SESSION = RADOS / "16.2.15" / "session-t16.txt"
FIREFLY = RADOS / "firefly-2014" / "two-clusters.md"
OSD_DOWN = DATA / "ceph" / "16.2.15" / "osd-bench-osd2-down.txt"
IPERF_TEXT = DATA / "iperf3" / "3.12" / "tcp-P4.txt"
IPERF_JSON = DATA / "iperf3" / "3.12" / "tcp-P4.client.json"

EACH_FORMAT = [
    (SESSION, "rados-bench", ["write", "seq", "rand"]),
    (OSD_DOWN, "osd-bench", ["osd.0", "osd.1"]),
    (IPERF_TEXT, "iperf3", ["127.0.0.1->127.0.0.1"]),
    (IPERF_JSON, "iperf3", ["127.0.0.1->127.0.0.1"]),
]


@pytest.mark.parametrize(
    ("path", "parser", "workloads"), EACH_FORMAT, ids=lambda v: getattr(v, "name", None)
)
def test_dry_run_shows_what_import_stores(invoke, invoke_json, path, parser, workloads):
    dry = invoke_json("import", str(path), "--dry-run")
    assert invoke_json("runs")["runs"] == []
    (run,) = dry["runs"]
    assert run["id"] is None and run["suite"] == "import"
    assert run["environment"]["import"]["parser"] == parser and run["environment"]["import"][
        "source"
    ] == str(path)
    assert [r["workload"] for r in run["results"]] == workloads
    invoke("import", str(path), "--label", "old")
    stored = invoke_json("show", "last")
    assert stored["label"] == "old" and stored["results"] == run["results"]
    assert stored["failures"] == run["failures"] and stored["environment"] == run["environment"]


def test_failed_osd_is_kept_as_a_failure(invoke, invoke_json):
    invoke("import", str(OSD_DOWN))
    assert [(f["workload"], f["error"]) for f in invoke_json("show", "last")["failures"]] == [
        ("osd.2", "Error ENXIO: problem getting command descriptions from osd.2")
    ]


def test_warnings_are_printed_and_stored(invoke, invoke_json):
    result = invoke("import", str(FIREFLY))
    assert "IOPS not printed" in result.output
    first, second = (invoke_json("show", str(r["id"])) for r in invoke_json("runs")["runs"])
    assert first["target"].endswith("#1") and second["target"].endswith("#2")
    assert any("iops_derived" in w for w in first["environment"]["import"]["warnings"])
    assert first["results"][0]["flags"] == ["iops_derived"]


def test_show_and_compare_work_on_imported_rados_runs(invoke, invoke_json):
    invoke("import", str(SESSION), "--label", "pacific")
    invoke("import", str(FIREFLY), "--label", "firefly")  # two runs, one label: pooled as repeats
    ids = [str(r["id"]) for r in invoke_json("runs")["runs"]]
    table = invoke("show", ids[0], "--format", "md").stdout
    assert "| write" in table and "| rand" in table
    out = invoke("compare", ids[0], ids[1], "--format", "json").stdout
    data = json.loads(out)
    text = json.dumps(data)
    assert "seq" in text and "write" in text
    assert invoke("compare", ids[0], ids[1]).exit_code == 0


def test_forcing_another_format_fails_naming_it_and_stores_nothing(invoke, invoke_json):
    result = invoke("import", str(SESSION), "--as", "iperf3", expect=None)
    assert (
        result.exit_code != 0
        and "read as iperf3" in result.output
        and "Traceback" not in result.output
    )
    assert invoke_json("runs")["runs"] == []


def test_a_file_with_nothing_recognisable_names_every_format(invoke, tmp_path):
    junk = tmp_path / "notes.txt"
    junk.write_text("rados bench -p rbd 60 write\n(forgot to paste the output)\n")
    result = invoke("import", str(junk), expect=None)
    assert result.exit_code != 0 and "Traceback" not in result.output
    for name in ("rados bench", "ceph tell osd bench", "iperf3", "--as"):
        assert name in result.output


def test_the_report_names_every_tool_of_a_post_with_two(invoke, invoke_json):
    post = RADOS / "0.47.2" / "openstack-post-excerpt.md"
    result = invoke("import", str(post))
    assert f"{post}: rados-bench, version 0.47.2: 1 run, workloads write" in result.output
    assert (
        f"{post}: osd-bench, version not shown: 1 run, workloads osd.0, osd.1, osd.2"
        in result.output
    )
    assert [
        r["environment"]["import"]["parser"]
        for r in (invoke_json("show", str(r["id"])) for r in invoke_json("runs")["runs"])
    ] == ["rados-bench", "osd-bench"]


def test_the_report_says_what_was_skipped(invoke):
    result = invoke("import", str(RADOS / "16-dev" / "zoned-storage.txt"), "--dry-run")
    assert "skipped: a rados bench output cut off at second 10, before its summary" in result.output
