"""`cephbench report --capacity N` (issue 33's report section): each search's headline and
steps, one chart of every search's curve, two searches of one rule compared, and for each
search the run of its step at the capacity, labelled with the search it stands for. On two
hand-made searches (a healthy one, and one while recovering that keeps up to a lower rate)
whose every step is a stored run; the real steps are the fio tier's
(tests/fio/test_capacity_file.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cephbench.capacity.driver import load, run_capacity
from cephbench.capacity.model import Spec
from cephbench.capacity.search import Rule, Step
from cephbench.capacity.steps import StepSpec
from cephbench.store import Store
from tests.helpers import store_run


def _search(db: Path, capacity: float, during: str | None) -> int:
    """A search whose steps keep up, with p99 under 5 ms, up to ``capacity`` IOPS; each step
    stored as a run of its offered rate."""

    def measure(rate: float, repeat: int) -> Step:
        p99 = 2000.0 if rate <= capacity + repeat * 50 else 9000.0
        run_id = store_run(db, "capacity", [[rate, rate, rate, rate]], suite="capacity")
        return Step(rate, rate, ((50.0, 500.0), (99.0, p99), (99.9, 2 * p99)), repeat, run_id)

    spec = Spec(Rule(5000.0), StepSpec(), start=1000, ci=0.10, during=during)
    with Store(db) as store:
        return run_capacity(store, spec, "file:/nowhere", measure, lambda _: None)


@pytest.fixture
def searches(db: Path) -> tuple[dict, dict]:
    healthy, recovering = _search(db, 3000.0, None), _search(db, 1800.0, "recovery")
    with Store(db) as store:
        return load(store, healthy).to_json(), load(store, recovering).to_json()


def at_capacity(doc: dict) -> int:
    """The run of the highest step that met the target in the last repeat."""
    last = max(s["repeat"] for s in doc["steps"])
    mine = [s for s in doc["steps"] if s["repeat"] == last and s["outcome"] == "pass"]
    return max(mine, key=lambda s: s["offered_iops"])["run_id"]


def test_a_report_of_two_searches_shows_both_curves_and_compares_them(invoke, searches, tmp_path):
    healthy, recovering = searches
    out = tmp_path / "capacity.md"
    invoke("report", "--capacity", "1", "--capacity", "2", "-o", str(out))
    text = out.read_text()
    # (Markdown's text escaped: "&lt;" is shown "<")
    title = "Capacity searches 1, 2: randwrite 4k at p99 &lt;= 5.00 ms on file:/nowhere"
    assert text.splitlines()[0] == f"# {title}"
    assert "## Capacity: search 1 (healthy), search 2 (recovery)" in text
    assert (
        "![Achieved IOPS and latency against offered load](capacity_files/capacity-curves.png)"
        in text
    )
    assert (tmp_path / "capacity_files" / "capacity-curves.png").stat().st_size > 10_000
    for doc in searches:
        steps = text.split(f"### Capacity search {doc['capacity']}")[1].split("###")[0]
        assert "Capacity of randwrite 4k at p99 &lt;= 5.00 ms" in steps
        assert len(re.findall(r"^\| *\d+ *\|", steps, re.M)) == len(doc["steps"])  # a row each
    assert "Search 2 against 1: " in text and "lower" in text  # compared, B against A
    # the runs the sections below show: each search's step at its capacity, named for it
    assert healthy["result"]["capacity_iops"] > recovering["result"]["capacity_iops"]
    for doc, label in ((healthy, "search 1 (healthy)"), (recovering, "search 2 (recovery)")):
        assert f"### {label} (\\#{at_capacity(doc)})" in text


def test_a_report_of_one_search_in_html_has_its_chart_inline(invoke, searches, tmp_path):
    out = tmp_path / "capacity.html"
    invoke("report", "--capacity", "2", "-o", str(out))
    html = out.read_text()
    assert (
        "<title>Capacity search 2: randwrite 4k at p99 &lt;= 5.00 ms on file:/nowhere</title>"
        in html
    )
    assert 'aria-label="Achieved IOPS and latency against offered load"><svg' in html
    assert "Capacity search 2 (recovery) on file:/nowhere" in html
    assert "Capacity searches compared" not in html  # one search: nothing to compare


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--capacity", "7"], "no capacity search 7"),
        (["1", "--capacity", "1"], "--capacity picks the runs itself"),
        (["--experiment", "1", "--capacity", "1"], "picks the runs itself"),
    ],
)
def test_bad_capacity_reports_are_one_line(invoke, searches, tmp_path, args, message):
    result = invoke("report", *args, "-o", str(tmp_path / "r.html"), expect=2)
    assert message in result.output and "Traceback" not in result.output
    assert not (tmp_path / "r.html").exists()
