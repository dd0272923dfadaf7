"""Report sections are plugins: the registry's order is the report's, every built-in has its
two fragments, and a section registered at runtime (an entry point of
``cephbench.report_sections``, here a class of this module) shows in HTML and Markdown at its
order, and a per-run one inside each run's block, with no other file edited."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest

from cephbench.registry import Registry
from cephbench.report import sections
from cephbench.report.sections import SECTIONS, ReportData
from tests.helpers import store_run

RUN = [[1000, 2000, 30000, 12000], [1010, 1990, 30500, 12100]]


def test_the_registry_order_is_the_report_order():
    loaded = SECTIONS.load_all()
    assert list(loaded) == list(SECTIONS.builtins)
    assert [s.name for s in sorted(loaded.values(), key=lambda s: s.order)] == list(loaded)
    assert [s.name for s in sections.sections("report")] == [
        "diagnosis_first",
        "ab",
        "tune",
        "capacity",
        "summary",
        "sweep",
        "trend",
        "results",
        "workloads",
        "timeseries",
        "network",
        "environment",
        "validity",
        "runs",
    ]
    assert [s.name for s in sections.sections("run")] == ["diagnosis", "explained"]


def test_every_section_is_named_as_registered_and_has_both_fragments():
    for name, cls in SECTIONS.load_all().items():
        assert cls.name == name and cls.scope in ("report", "run")
        for fmt in ("html", "md"):
            assert (cls.templates / f"{name}.{fmt}.j2").is_file(), (name, fmt)


def test_the_report_shows_the_sections_in_registry_order(invoke, db, tmp_path):
    ids = [store_run(db, "a", RUN), store_run(db, "b", RUN)]
    invoke("report", *map(str, ids), "-o", str(tmp_path / "r.html"))
    invoke("report", *map(str, ids), "-o", str(tmp_path / "r.md"))
    html = (tmp_path / "r.html").read_text()
    md = (tmp_path / "r.md").read_text()
    shown = ["summary", "tables", "workloads", "env", "validity", "runs"]  # ids of the h2s
    assert [html.index(f'<h2 id="{i}">') for i in shown] == sorted(
        html.index(f'<h2 id="{i}">') for i in shown
    )
    titles = ["Summary", "Results", "Per workload", "Environment differences", "Validity flags"]
    assert [md.index(f"\n## {t}\n") for t in titles] == sorted(
        md.index(f"\n## {t}\n") for t in titles
    )


class TinySection:
    """A plugin's section: after the Summary (20), before the Sweep (30)."""

    name = "tiny"
    order = 25
    scope = "report"
    templates = Path()  # set by the fixture: where it wrote the fragments

    def build(self, data: ReportData) -> dict:
        return {
            "runs": sum(len(c.runs) for c in data.cmp.columns),
            "baseline": data.cmp.baseline.name,
        }


class TinyRunSection:
    """A plugin's per-run section: one line in each run's block."""

    name = "tiny_run"
    order = 5
    scope = "run"
    templates = Path()

    def build(self, data: ReportData) -> dict | None:
        assert data.run is not None
        return {"id": data.run.id} if data.run.label == "b" else None  # shown for b's run only


FRAGMENTS = {
    "tiny.html.j2": '<h2 id="tiny">Tiny</h2>\n<p>{{ section.runs }} runs, baseline {{ section.baseline }}.</p>\n',
    "tiny.md.j2": "## Tiny\n\n{{ section.runs }} runs, baseline {{ section.baseline | md_text }}.\n\n",
    "tiny_run.html.j2": "<p>tiny of run {{ section.id }}</p>\n",
    "tiny_run.md.j2": "\ntiny of run {{ section.id }}\n",
}


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both sections as an installed package would register them: entry points."""
    folder = tmp_path / "plugin"
    folder.mkdir()
    for name, text in FRAGMENTS.items():
        (folder / name).write_text(text)
    for cls in (TinySection, TinyRunSection):
        monkeypatch.setattr(cls, "templates", folder)
    found = importlib.metadata.EntryPoints(
        importlib.metadata.EntryPoint(cls.name, f"{__name__}:{cls.__name__}", SECTIONS.group)
        for cls in (TinySection, TinyRunSection)
    )
    real = importlib.metadata.entry_points
    monkeypatch.setattr(
        importlib.metadata,
        "entry_points",
        lambda **kw: found if kw.get("group") == SECTIONS.group else real(**kw),
    )
    monkeypatch.setattr(sections, "SECTIONS", Registry(SECTIONS.builtins, SECTIONS.group))


def test_a_section_registered_at_runtime_shows_at_its_order(plugin, invoke, db, tmp_path):
    ids = [store_run(db, "a", RUN), store_run(db, "b", RUN)]
    assert [s.name for s in sections.sections("report")][4:6] == ["summary", "tiny"]
    invoke("report", *map(str, ids), "-o", str(tmp_path / "r.html"))
    invoke("report", *map(str, ids), "-o", str(tmp_path / "r.md"))

    html = (tmp_path / "r.html").read_text()
    assert (
        html.index('<h2 id="summary">')
        < html.index('<h2 id="tiny">')
        < html.index('<h2 id="tables">')
    )
    assert "<p>2 runs, baseline a.</p>" in html
    b_block = html[html.index("<h3>b (#2)</h3>") :]
    assert html.count("tiny of run") == 1 and "<p>tiny of run 2</p>" in b_block

    md = (tmp_path / "r.md").read_text()
    assert "\n## Tiny\n\n2 runs, baseline a.\n\n## Results\n" in md  # after the Summary's chart
    assert md.index("## Summary") < md.index("## Tiny")
    assert md.count("tiny of run") == 1 and "\ntiny of run 2\n" in md[md.index("### b (\\#2)") :]
