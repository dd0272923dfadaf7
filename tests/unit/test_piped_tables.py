"""Piped output is 80 columns wide (rich's width when not a terminal, or $COLUMNS): ``runs``
and ``show`` size their columns to fit, so every row's cells are on its line, whole."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from cephbench.cli.runs import minute
from cephbench.tables.table import Table, column_widths, to_rich
from tests.helpers import WORKLOADS, store_run

LABELS = ("baseline", "tuned", None)
TARGETS = ("rbd:rbd/bench-img", "file:/mnt/bench", "device:/dev/nvme0n1")
SUITES = ("standard", "quick", "latency")


def _rows(out: str) -> list[list[str]]:
    """The body rows of a rich table: each row's cells as printed."""
    return [
        [c.strip() for c in line.split("│")[1:-1]]
        for line in out.splitlines()
        if line.startswith("│")
    ]


def _piped(invoke, monkeypatch, *args: str):
    monkeypatch.setenv("COLUMNS", "80")
    from cephbench.cli.common import console

    monkeypatch.setattr(console, "_console", None)  # a console of this width, as a pipe gets
    return invoke(*args)


def test_runs_keeps_suite_target_and_date_whole_in_80_columns(db: Path, invoke, monkeypatch):
    for label, target, suite in zip(LABELS, TARGETS, SUITES, strict=True):
        store_run(db, label, [[1000, 2000, 30000, 12000]], target=target, suite=suite)
    out = _piped(invoke, monkeypatch, "runs").stdout
    assert max(map(len, out.splitlines())) <= 80
    rows = _rows(out)
    assert rows == [
        [str(i + 1), label or "", suite, target, "complete", "2024-05-01 10:00"]
        for i, (label, target, suite) in enumerate(zip(LABELS, TARGETS, SUITES, strict=True))
    ]


def test_show_keeps_each_workload_name_on_its_line_in_80_columns(db: Path, invoke, monkeypatch):
    flags = {"rand_rd": ("no_latency",), "seq_wr": ("steady_not_reached",)}
    run = store_run(db, "tuned bluestore", [[1000, 2000, 30000, 12000]], flags=flags)
    out = _piped(invoke, monkeypatch, "show", str(run)).stdout
    assert max(map(len, out.splitlines())) <= 80
    names = [row[0] for row in _rows(out)]
    assert names == ["seq_wr [1]", "seq_rd", "rand_rd [2]", "rand_wr"]
    assert len(names) == len(WORKLOADS)


def test_a_column_too_long_for_the_width_wraps_whole_and_the_others_stay_intact():
    table = Table(("ID", "Target", "Status"), (("7", "x" * 120, "complete"),))
    widths = column_widths(table, 80)
    assert widths == [2, 80 - 3 * 3 - 1 - 2 - len("complete"), len("complete")]

    console = Console(width=80, record=True)
    console.print(to_rich(table, 80))
    text = console.export_text()
    assert "…" not in text and text.count("x") == 120
    assert "│ 7  │" in text and "complete" in text


def test_the_listing_shows_the_start_to_the_minute_in_utc():
    assert minute("2024-05-01T10:00:07.512+00:00") == "2024-05-01 10:00"
    assert minute("2024-05-01T12:30:00+02:00") == "2024-05-01 10:30"
    assert minute("not a time") == "not a time"


def test_a_table_whose_columns_cannot_be_read_at_the_width_prints_as_blocks():
    """A tune's attempts table has eight columns, two of CIs and one of commands: at 80
    columns rich gave its widest columns one character each ("c", "e", "p", "h" down the
    page). It prints as a block per attempt instead, every figure and command whole."""
    from cephbench.tuning.tune_report import attempts_table
    from tests.unit.test_tune_cli import tune_doc

    table = attempts_table(tune_doc())
    console = Console(width=80, record=True)
    console.print(to_rich(table, 80))
    lines = console.export_text().splitlines()
    assert max(map(len, lines)) <= 80
    assert "│" not in "".join(lines)
    assert lines[:4] == [
        "Tune 1: attempts",
        "attempt 1",
        "  change: as found",
        "  workload: rand_wr",
    ]
    block = lines[lines.index("attempt 2") : lines.index("attempt 3")]
    assert block[:3] == ["attempt 2", "  change: osd-debug-off", "    ceph config rm osd debug_osd"]
    assert [x for x in block if x.startswith("  workload: ")] == [
        "  workload: rand_wr",
        "  workload: rand_rd",
    ]  # the attempt's second workload (a row with no attempt) stays in its block
    assert "  verdict: better" in block and "  attempt verdict: better, kept" in block
    # wide enough, the same table is a table
    wide = Console(width=200, record=True)
    wide.print(to_rich(table, 200))
    assert "│ osd-debug-off" in wide.export_text()
