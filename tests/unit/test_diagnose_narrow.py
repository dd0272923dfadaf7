"""``diagnose`` (and ``show`` of a diagnosis) in a narrow terminal: each finding a short block
(component, layer, severity, what, evidence, next step) of lines no wider than the terminal,
as compilers print diagnostics, not a seven-column table wrapped a word a line; the latency
budget's cells keep to their figures. Wide terminals keep the table. Recorded diagnoses of
the lab (tests/data/ceph/16.2.15/diagnose.source.md), stored as ``diagnose`` stores them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cephbench.diagnose import findings, render
from cephbench.diagnose.session import record
from cephbench.diagnose.tool import DIAGNOSIS_TOOL, EVIDENCE_TOOL
from cephbench.store import Store
from tests.helpers import store_run

DATA = Path(__file__).parents[1] / "data" / "ceph" / "16.2.15"
CASES = ["slow-disk-osd1", "all-links", "cpu-osd2-h", "most-cpu", "healthy-f"]


def stored(db: Path, name: str) -> tuple[int, dict]:
    """A stored diagnosis of the recorded evidence ``name``: its run id and document."""
    e = json.loads((DATA / f"diagnose-{name}.evidence.json").read_text())
    doc = findings.diagnose(e).to_json()
    run = store_run(
        db, name, [[400.0, 1400.0, 3000.0, 9000.0]], suite="diagnose", params={"tool": "diagnose"}
    )
    with Store(db) as s:
        s.record_batch(run, 0, record(EVIDENCE_TOOL, json.dumps(e)), [])
        s.record_batch(run, 0, record(DIAGNOSIS_TOOL, json.dumps(doc)), [])
    return run, doc


def shown(invoke, monkeypatch, run: int, columns: int) -> str:
    monkeypatch.setenv("COLUMNS", str(columns))
    from cephbench.cli.common import console

    monkeypatch.setattr(console, "_console", None)  # a console of this width
    return invoke("show", str(run)).stdout


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


@pytest.mark.parametrize("name", CASES)
def test_at_80_columns_each_finding_is_a_block_of_lines_within_80(db, invoke, monkeypatch, name):
    run, doc = stored(db, name)
    out = shown(invoke, monkeypatch, run, 80)
    assert max(map(len, out.splitlines())) <= 80
    assert "Next step" not in out  # no findings table
    blocks = out.split("\n\n")
    assert blocks[0] == f"Diagnosis of run {run}: {len(doc['findings'])} finding(s)"
    for i, f in enumerate(doc["findings"], 1):
        [block] = [b for b in blocks if b.startswith(f"{i}. ")]
        text = flat(block)
        assert text.startswith(f"{i}. {f['component']} [{f['layer']}]: {f['severity']}: ")
        assert flat(f["summary"]) in text
        assert f"evidence: {flat(render.digest(f))}" in text
        assert f"next step: {flat(f['next_step'])}" in text
        lines = block.splitlines()
        assert all(line.startswith(" " * len(f"{i}. ")) for line in lines[1:])
        assert len(lines) <= 12  # the slow disk's was 15 lines of a table row alone


def test_the_budget_s_overlap_is_a_word_in_its_cell_and_its_figure_in_the_notes(
    db, invoke, monkeypatch
):
    run, doc = stored(db, "slow-disk-osd1")
    [part] = [p for p in doc["budget"]["parts"] if p.get("note")]
    figure = re.search(r"\((-[\d.]+ ms) left\)", part["note"])
    assert figure is not None  # the recording's processing overlaps: -529.113 ms left
    out = shown(invoke, monkeypatch, run, 80)
    [row] = [line for line in out.splitlines() if line.startswith(f"│ {part['part']} ")]
    assert [c.strip() for c in row.split("│")[1:-1]] == [part["part"], "overlaps", "n/a"]
    assert f"{part['part']}: {figure.group(1)} left over" in flat(out)


@pytest.mark.parametrize("name", ["slow-disk-osd1", "healthy-f"])
def test_a_wide_terminal_keeps_the_findings_table(db, invoke, monkeypatch, name):
    """At 120 columns and more: the seven-column table, as printed before, and no blocks."""
    from io import StringIO

    from rich.console import Console

    from cephbench.tables.table import to_rich

    run, doc = stored(db, name)
    out = shown(invoke, monkeypatch, run, render.NARROW)
    table = StringIO()
    wide = render.tables({"run": run, **doc})[0]
    Console(file=table, width=render.NARROW, highlight=False).print(to_rich(wide, render.NARROW))
    assert wide.headers[-1] == "Next step" and table.getvalue() in out
    assert "next step:" not in out
