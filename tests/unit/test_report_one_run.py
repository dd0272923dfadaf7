"""A report of one run says what the run is (issue 34, item 9): a diagnosis is titled by the
cluster it diagnosed (its fsid, and the lab's directory as stored) and when; any run, by its
suite, target and time; one run has no baseline, so no "Baseline" line. The diagnosis is a
recorded one of the 3-host lab (tests/data/ceph/16.2.15/explain.source.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import store_run

DATA = Path(__file__).parents[1] / "data" / "ceph" / "16.2.15"
FSID = "d1366db5-ed51-437f-bab5-85a67a777a97"  # status.fsid of the recorded lab's fingerprint


@pytest.fixture
def diagnosis(invoke) -> int:
    invoke("import", DATA / "explain-healthy.export.json")
    return 1  # run 2 is a run of the quick suite on the same lab


@pytest.mark.parametrize("suffix", [".md", ".html"])
def test_a_diagnosis_alone_is_titled_by_its_cluster_and_time_with_no_baseline(
    diagnosis, invoke, tmp_path, suffix
):
    out = tmp_path / f"d{suffix}"
    invoke("report", str(diagnosis), "-o", out)
    text = out.read_text()
    title = (
        f"Diagnosis of cluster {FSID} (the lab in /var/tmp/lab-explain), 2026-11-26 19:56 UTC: "
        "run 1"
    )
    if suffix == ".md":
        assert text.splitlines()[0] == f"# {title}"
    else:
        assert f"<h1>{title}</h1>" in text and f"<title>{title}</title>" in text
    assert "Baseline" not in text and "cephbench report: #1" not in text


def test_any_run_alone_is_titled_by_what_ran_where_and_when(db, invoke, tmp_path):
    run = store_run(db, "demo", [[1000, 2000, 30000, 12000]])
    out = tmp_path / "r.md"
    invoke("report", str(run), "-o", out)
    first, *rest = out.read_text().splitlines()
    assert first.startswith(f"# Run {run} — demo — quick on file:/mnt/bench, ")
    assert first.endswith(" UTC")
    assert not any(line.startswith("Baseline") for line in rest)


def test_two_runs_keep_their_baseline(diagnosis, invoke, tmp_path):
    out = tmp_path / "two.md"
    invoke("report", "1", "2", "-o", out)
    lines = out.read_text().splitlines()
    assert lines[0] == "# cephbench report: \\#1, try2"
    assert "Baseline: **\\#1**." in lines
