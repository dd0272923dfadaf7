"""The report's sections: what one is, and the registry of them. Adding a section to
``cephbench report`` is one module (its :class:`Section`), its two template fragments and one
line in :data:`SECTIONS`; ``render`` and the two page templates name no section. The report's
own sections are the modules of this package.

A section builds its context from what the report has (:class:`ReportData`), or None when it
has nothing to show; its fragments ``<name>.html.j2`` and ``<name>.md.j2`` in its
``templates`` folder render that context, given as ``section``. A section of scope ``"run"``
is built once per run and shown inside that run's block of the Runs section.

Sections of layers above the report (the A/B experiment's, the tune's, the capacity
searches', a run's diagnosis) are named here
by string only: the report never imports them, the registry does when a report is written.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any, Literal, Protocol

from matplotlib.figure import Figure

from cephbench.analysis.compare import Comparison
from cephbench.model import Series, StoredRun
from cephbench.registry import Registry
from cephbench.report.sweep_points import Sweep, pivot, swept_workloads

ChartSink = Callable[[Figure | None, str], str | None]
"""Renders a figure (or None) under a file-safe name; returns what a fragment embeds."""
SeriesByRun = Mapping[int, Sequence[Series]]
"""Run id -> the run's workload series (``Store.series``)."""
Scope = Literal["report", "run"]

TEMPLATES = Path(__file__).parents[1] / "templates" / "sections"
"""The fragments of the report's own sections."""

SECTIONS = Registry(
    {  # in the order shown; each section's ``order`` says the same
        "diagnosis_first": "cephbench.diagnose.section:DiagnosisFirstSection",
        "ab": "cephbench.tuning.section:AbSection",
        "tune": "cephbench.tuning.tune_section:TuneSection",
        "capacity": "cephbench.capacity.section:CapacitySection",
        "summary": "cephbench.report.sections.summary:SummarySection",
        "sweep": "cephbench.report.sections.sweep:SweepSection",
        "trend": "cephbench.report.sections.trend:TrendSection",
        "results": "cephbench.report.sections.results:ResultsSection",
        "workloads": "cephbench.report.sections.workloads:WorkloadsSection",
        "timeseries": "cephbench.report.sections.timeseries:TimeseriesSection",
        "network": "cephbench.report.sections.network:NetworkSection",
        "environment": "cephbench.report.sections.environment:EnvironmentSection",
        "validity": "cephbench.report.sections.validity:ValiditySection",
        "runs": "cephbench.report.sections.runs:RunsSection",
        # per run, inside each run's block of the Runs section
        "diagnosis": "cephbench.diagnose.section:DiagnosisSection",
        "explained": "cephbench.diagnose.explained:ExplainedSection",
    },
    group="cephbench.report_sections",
)


@dataclass(frozen=True)
class ReportData:
    """Everything a report is written from; a section takes what it shows from here."""

    cmp: Comparison
    provenance: Mapping[int, list[dict[str, Any]]]
    """Run id -> ``Store.outputs(run_id)``: the commands run and what they printed."""
    chart: ChartSink
    series: SeriesByRun = field(default_factory=dict)
    ab: dict[str, Any] | None = None
    """The A/B experiment (``cephbench.ab/1``) the runs are the rounds of, if any."""
    tune: dict[str, Any] | None = None
    """The tune (``cephbench.tuning/1``) whose final experiment the runs are the rounds of."""
    capacity: dict[str, Any] | None = None
    """The capacity searches the runs are steps of: ``searches`` (``cephbench.capacity/1``
    documents) and ``comparison`` (the second against the first, or None)."""
    title: str | None = None
    """The report's title, when what it reports is not its runs (a capacity search)."""
    run: StoredRun | None = None
    """The run a per-run section is built for; None for the others."""

    @cached_property
    def sweep(self) -> Sweep:
        return pivot(self.cmp.columns)

    @cached_property
    def swept(self) -> set[tuple[str, str]]:
        """(workload, op) charted in the Sweep section, so not one by one."""
        if self.probes_only:
            return set()
        return swept_workloads(self.cmp.columns, self.sweep)

    def for_run(self, run: StoredRun) -> ReportData:
        return replace(self, run=run)

    @cached_property
    def probes_only(self) -> bool:
        """Whether every run is a diagnosis (suite ``diagnose``): its workloads are the
        probes' known load, neither configurations to compare nor a sweep."""
        runs = [r for c in self.cmp.columns for r in c.runs]
        return bool(runs) and all(r.suite == "diagnose" for r in runs)


class Section(Protocol):
    """A part of the report: built from the report's data, shown by its two fragments."""

    name: str
    """Its registry name, and the stem of its fragments."""
    order: int
    """Where it is shown: sections are sorted by it (the built-ins step by 10)."""
    scope: Scope
    templates: Path
    """The folder of its fragments ``<name>.html.j2`` and ``<name>.md.j2``."""

    def build(self, data: ReportData) -> Any | None:
        """The fragments' ``section``; None when there is nothing to show."""
        ...


def sections(scope: Scope) -> list[Section]:
    """The registered sections of ``scope``, in the order shown."""
    found = [cls() for cls in SECTIONS.load_all().values()]
    return sorted((s for s in found if s.scope == scope), key=lambda s: s.order)


def template_folders() -> list[Path]:
    """Where the registered sections' fragments are, each folder once."""
    return list(dict.fromkeys(cls.templates for cls in SECTIONS.load_all().values()))
