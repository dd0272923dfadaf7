"""Sweeps: results pivoted on their parameters, for the matrix charts. Pure, no drawing.

Results are grouped by what a sweep holds fixed — ``rw``, ``bs``, ``rwmixread`` and the
direction (op) — and keyed within a group by the two parameters a sweep varies, ``iodepth``
and ``numjobs``. A group is *swept* when one run has it at two or more of those points; a
run with a swept group is a sweep. Workload names are never parsed: only the columns count.

A point's repeats (results with the same workload and op) become a mean and a 95 %
confidence interval (:func:`cephbench.analysis.stats.summarize`); runs that share a label pool their
samples, as everywhere else in the report.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from cephbench.analysis.compare import Column
from cephbench.analysis.stats import Summary, summarize
from cephbench.model import Result, Run
from cephbench.system.units import format_size

UNSETTLED = ("not_steady", "ci_not_reached")
"""Flags that make a point's marker hollow: its figures did not settle."""
FIGURES = ("iops", "lat_mean_us", "lat_p99_us")
PARAMS = ("iodepth", "numjobs")
PointKey = tuple[int, int]
"""(iodepth, numjobs)"""


@dataclass(frozen=True)
class Group:
    rw: str
    bs: int
    rwmixread: int | None
    op: str

    @property
    def family(self) -> tuple[str, int | None, str]:
        """Everything but the block size: one heatmap figure, a panel per block size."""
        return self.rw, self.rwmixread, self.op

    @property
    def title(self) -> str:
        return f"{family_title(self.family)}, bs {bs_label(self.bs)}"


@dataclass(frozen=True)
class Point:
    iodepth: int
    numjobs: int
    figures: dict[str, Summary]
    """Result attribute (``iops``, ``lat_mean_us``, ``lat_p99_us``) -> summary of its repeats;
    a figure no repeat recorded is absent."""
    flags: tuple[str, ...] = ()
    """The :data:`UNSETTLED` flags any repeat carries."""


@dataclass(frozen=True)
class Sweep:
    names: tuple[str, ...]
    """One per compared column (its run label), the baseline first."""
    groups: dict[Group, tuple[dict[PointKey, Point], ...]]
    """Swept groups, in display order -> per column, its points."""
    notes: tuple[str, ...] = ()

    def values(self, group: Group, param: str) -> list[int]:
        """The sorted values of ``iodepth`` or ``numjobs`` the group has in any column."""
        i = PARAMS.index(param)
        return sorted({key[i] for points in self.groups[group] for key in points})


def bs_label(bs: int) -> str:
    """4096 -> 4k, 1048576 -> 1M: the spelling of the write-ups."""
    text = format_size(bs)
    return text[:-1] + text[-1].upper() if text[-1] in "mgt" else text


def family_title(family: tuple[str, int | None, str]) -> str:
    """``randread``; a mixed workload's direction and mix: ``randrw 70/30 (read)``."""
    rw, mix, op = family
    return rw if mix is None else f"{rw} {mix}/{100 - mix} ({op})"


def is_sweep(run: Run) -> bool:
    return bool(_swept(run.results))


def pivot(columns: Sequence[Column]) -> Sweep:
    """The swept groups of the compared columns (none when no run is a sweep)."""
    swept = set().union(*(_swept(run.results) for col in columns for run in col.runs))
    notes = []
    ambiguous: set[Group] = set()
    for col in columns:
        for run in col.runs:
            for group, key, names in _shared_points(run.results, swept - ambiguous):
                ambiguous.add(group)
                notes.append(
                    f"{group.title}: workloads {', '.join(sorted(names))} of {col.name} all ran "
                    f"iodepth {key[0]}, numjobs {key[1]}; not charted as a sweep (their other "
                    "options may differ)."
                )
    order = sorted(swept - ambiguous, key=lambda g: (g.rw, g.rwmixread or -1, g.op, g.bs))
    groups = {g: tuple(_points(col, g) for col in columns) for g in order}
    return Sweep(tuple(c.name for c in columns), groups, tuple(notes))


def swept_workloads(columns: Sequence[Column], sweep: Sweep) -> set[tuple[str, str]]:
    """(workload, op) of every result charted in the sweep section."""
    return {
        (r.workload, r.op)
        for col in columns
        for run in col.runs
        for r in run.results
        if (k := _key(r)) and k[0] in sweep.groups
    }


def _key(r: Result) -> tuple[Group, PointKey] | None:
    if r.rw is None or r.bs is None or r.iodepth is None or r.numjobs is None:
        return None
    return Group(r.rw, r.bs, r.rwmixread, r.op), (r.iodepth, r.numjobs)


def _swept(results: Iterable[Result]) -> set[Group]:
    points: dict[Group, set[PointKey]] = defaultdict(set)
    for r in results:
        if k := _key(r):
            points[k[0]].add(k[1])
    return {g for g, keys in points.items() if len(keys) > 1}


def _shared_points(results: Iterable[Result], groups: set[Group]):
    """(group, point, workload names) where one run has several workloads at one point."""
    names: dict[tuple[Group, PointKey], set[str]] = defaultdict(set)
    for r in results:
        if (k := _key(r)) and k[0] in groups:
            names[k].add(r.workload)
    seen = set()
    for (group, key), ws in names.items():
        if len(ws) > 1 and group not in seen:
            seen.add(group)
            yield group, key, ws


def _points(col: Column, group: Group) -> dict[PointKey, Point]:
    by_key: dict[PointKey, list[Result]] = defaultdict(list)
    for run in col.runs:
        for r in run.results:
            if (k := _key(r)) and k[0] == group:
                by_key[k[1]].append(r)
    out = {}
    for key, results in sorted(by_key.items()):
        figures = {}
        for name in FIGURES:
            samples = [v for v in (getattr(r, name) for r in results) if v is not None]
            if samples:
                figures[name] = summarize(samples)
        flags = tuple(f for f in UNSETTLED if any(f in r.flags for r in results))
        out[key] = Point(*key, figures, flags)
    return out
