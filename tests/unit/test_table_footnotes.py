"""Footnote markers mark the rows a footnote is about: a flag every row has is one note
under the table (``Every row: ...``), not a ``[1]`` after every workload name."""

from __future__ import annotations

from cephbench.store import Store
from cephbench.tables.run_table import run_table
from cephbench.tables.table import to_markdown
from tests.helpers import WORKLOADS, store_run

NO_LATENCY = "no latency recorded"


def _markdown(db, flags) -> str:
    run_id = store_run(db, None, [[1000, 2000, 30000, 12000]], flags=flags)
    with Store(db) as s:
        return to_markdown(run_table(s.get_run(run_id)))


def test_a_flag_on_every_row_is_one_note_and_no_marker(db):
    md = _markdown(db, {name: ("no_latency",) for name, _, _ in WORKLOADS})
    assert "[1]" not in md
    assert f"Every row: {NO_LATENCY}" in md
    for name, _, _ in WORKLOADS:
        assert f"| {name} |" in md


def test_a_flag_on_some_rows_marks_those_rows_only(db):
    md = _markdown(db, {"rand_rd": ("no_latency",)})
    assert "| rand_rd [1] |" in md and "| seq_wr |" in md and "| rand_wr |" in md
    assert f"[1] {NO_LATENCY}" in md and "Every row" not in md
