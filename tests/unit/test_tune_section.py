"""The tune's report section (``cephbench report --tune N``) from attempts judged on rounds
recorded from the lab (tests/data/tune/source.md): debug logging left on in the OSDs, and
osd-debug-off's changes as the one attempt; kept when its rounds are read as a fixed design,
reverted when read as a confidence sequence (tests/unit/test_tune_recorded.py)."""

from __future__ import annotations

from typing import Any

import pytest
from matplotlib.figure import Figure

from cephbench.report.sections import SECTIONS
from cephbench.tuning.attempts import Plan, tune
from cephbench.tuning.tune_section import attempts_chart, reported_experiment, tune_section
from tests.contract import validate
from tests.unit.test_tune_cli import document
from tests.unit.test_tune_recorded import recorded


def tune_doc(sequential: bool) -> dict[str, Any]:
    """A tune's document as ``cephbench tune`` stores it: experiment 7 the attempt, and,
    when it is kept, also the final row (one change kept: the same experiment)."""
    cand, m = recorded("debug-logging-quick")
    plan = Plan(1, 4, sequential=sequential)
    rows = tune([cand], [m], plan, [7])
    if rows[1].kept:
        rows = tune([cand], [m], plan, [7], m, 7)
    return validate(document(rows, plan, tune=3, target="rbd:bench/img"))


class Charts:
    """A chart sink that keeps every figure it is given."""

    def __init__(self) -> None:
        self.figures: dict[str, Figure | None] = {}

    def __call__(self, fig: Figure | None, name: str) -> str | None:
        self.figures[name] = fig
        return None if fig is None else f"{name}.png"


def test_a_kept_change_the_summary_the_table_and_the_final_against_the_first():
    doc = tune_doc(sequential=False)
    charts = Charts()
    section = tune_section(doc, charts)
    assert section["title"] == "The attempts of tune 3"
    summary = section["summary"]
    assert summary.startswith(
        "1 change tried, 1 kept (osd-debug-off); the final against the first: better"
    )
    assert "rand_rd +184.49% [+3.53, +681.73]" in summary  # as test_tune_recorded reads them
    assert section["compared"] == "7 (the final configuration against the first)"
    table = section["table"]
    assert [r[0] for r in table.rows if r[0]] == ["1", "2", "3"]
    assert {r[2] for r in table.rows} == {"seq_wr", "seq_rd", "rand_wr", "rand_rd"}
    assert section["chart"] == "tune-attempts.png"


def test_the_chart_has_a_panel_per_workload_the_kept_attempt_on_the_line():
    fig = attempts_chart(tune_doc(sequential=False))
    assert fig is not None
    axes = fig.axes
    titles = [a.get_title(loc="left").partition(":")[0] for a in axes]
    assert titles == ["seq_wr", "seq_rd", "rand_rd", "rand_wr"]
    assert axes[2].get_title(loc="left") == "rand_rd: final against first +184.49% [+3.53, +681.73]"
    for ax in axes:  # as found and the kept attempt joined: one line of two points
        [line] = [ln for ln in ax.get_lines() if len(ln.get_xdata())]
        assert list(line.get_xdata()) == [1, 2]


def test_a_reverted_change_is_off_the_line_and_the_report_compares_its_experiment():
    doc = tune_doc(sequential=True)
    assert doc["attempts"][1]["kept"] is False
    section = tune_section(doc, Charts())
    assert section["summary"] == "1 change tried, none kept."
    assert section["compared"] == "7 (the first attempt's)"
    assert reported_experiment(doc) == 7
    fig = attempts_chart(doc)
    assert fig is not None
    ax = fig.axes[0]
    dashed = [ln for ln in ax.get_lines() if ln.get_linestyle() == "--"]
    assert [list(ln.get_xdata()) for ln in dashed] == [[1, 2]]  # from the attempt it was against


@pytest.mark.parametrize("attempts", [[], "first only"])
def test_nothing_to_chart_or_compare_without_a_measured_attempt(attempts):
    doc = tune_doc(sequential=False)
    doc["attempts"] = [] if attempts == [] else doc["attempts"][:1]
    assert attempts_chart(doc) is None
    if attempts == []:
        assert reported_experiment(doc) is None


def test_the_section_is_registered_after_the_experiments():
    names = list(SECTIONS)
    assert names.index("tune") == names.index("ab") + 1
    assert SECTIONS.load("tune").order > SECTIONS.load("ab").order


def test_report_of_a_tune_that_is_not_there_or_measured_nothing_is_one_line(invoke, db, tmp_path):
    from cephbench.store import Store, tunings

    out = str(tmp_path / "tune.html")
    r = invoke("report", "--tune", "41", "-o", out, expect=None)
    assert r.exit_code != 0 and "no tune 41" in r.output and "Traceback" not in r.output
    with Store(db) as store:
        tune_id = tunings.start(store)
        tunings.save(store, tune_id, {**tune_doc(False), "tune": tune_id, "attempts": []})
    r = invoke("report", "--tune", str(tune_id), "-o", out, expect=2)
    assert f"tune {tune_id} measured no attempt" in r.output
    r = invoke("report", "--tune", str(tune_id), "--capacity", "2", "-o", out, expect=2)
    assert "--tune picks the runs itself (its rounds)" in r.output
    r = invoke("report", "--tune", str(tune_id), "5", "-o", out, expect=2)
    assert "--tune picks the runs itself" in r.output
    assert not (tmp_path / "tune.html").exists()
