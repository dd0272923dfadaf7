"""Which workloads run in each repeat: every one a fixed number of times, or, with a target
confidence interval, each one until its 95 % CI half-width is within the target.

Adaptive repeats judge each workload's main figure (IOPS, all directions together; bandwidth
where a tool reports no IOPS). A workload stops repeating once ``min_repeats`` samples give
a half-width within ``target_ci`` of the mean; the rest go on until ``max_repeats`` or the
time budget is spent, and are then reported as not having reached the target. Three samples
at least: two close values by chance would otherwise stop a noisy workload early.

The schedule also knows what a run already stored, so a resumed run does only the rest.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from cephbench.analysis.stats import summarize
from cephbench.model import Result

MIN_REPEATS = 3


def main_figure(results: Iterable[Result]) -> float | None:
    """One repeat of one workload as one number: IOPS over its directions, else bandwidth."""
    results = list(results)
    iops = [r.iops for r in results if r.iops is not None]
    if results and len(iops) == len(results):
        return sum(iops)
    bw = [r.bw_bytes_per_s for r in results if r.bw_bytes_per_s is not None]
    if results and len(bw) == len(results):
        return sum(bw)
    return None


@dataclass
class Schedule:
    names: list[str]
    repeats: int
    """The number of repeats; with ``target_ci``, the most a workload gets."""
    target_ci: float | None = None
    """Half-width of the 95 % CI wanted, as a fraction of the mean (0.02 for 2 %)."""
    max_time: float | None = None
    """Seconds after which no new repeat starts (adaptive)."""
    done: set[tuple[int, str]] = field(default_factory=set)
    """(repeat, workload) already stored with figures."""
    samples: dict[str, list[float]] = field(default_factory=dict)
    broken: set[str] = field(default_factory=set)
    """Workloads that failed in this run: not repeated."""

    @classmethod
    def from_results(
        cls,
        names: list[str],
        repeats: int,
        results: Iterable[Result],
        target_ci: float | None = None,
        max_time: float | None = None,
    ) -> Schedule:
        """A schedule that knows what a stored run has already done."""
        by_key: dict[tuple[int, str], list[Result]] = {}
        for r in results:
            by_key.setdefault((r.repeat, r.workload), []).append(r)
        schedule = cls(names, repeats, target_ci, max_time)
        for (repeat, name), rows in sorted(by_key.items()):
            schedule.add(name, repeat, main_figure(rows))
        return schedule

    @property
    def adaptive(self) -> bool:
        return self.target_ci is not None

    def add(self, name: str, repeat: int, figure: float | None) -> None:
        self.done.add((repeat, name))
        if figure is not None:
            self.samples.setdefault(name, []).append(figure)

    def record(self, name: str, repeat: int, results: Iterable[Result], error: str | None) -> None:
        """A workload's outcome in ``repeat``, as the run stored it."""
        if error:
            self.broken.add(name)
        else:
            self.add(name, repeat, main_figure(results))

    def half_width(self, name: str) -> float | None:
        """The 95 % CI half-width of a workload's figure, as a fraction of its mean."""
        samples = self.samples.get(name, [])
        s = summarize(samples) if samples else None
        if s is None or s.ci95 is None or not s.mean:
            return None
        return float((s.ci95[1] - s.ci95[0]) / 2 / abs(s.mean))

    def reached(self, name: str) -> bool:
        hw = self.half_width(name)
        return bool(
            len(self.samples.get(name, [])) >= MIN_REPEATS
            and hw is not None
            and self.target_ci is not None
            and hw <= self.target_ci
        )

    def pending(self, repeat: int, elapsed: float = 0.0) -> list[str]:
        """Workloads to run in ``repeat`` (in suite order); [] once nothing is left."""
        if repeat >= self.repeats:
            return []
        todo = [n for n in self.names if (repeat, n) not in self.done]
        if not self.adaptive:
            return todo
        if self.max_time is not None and elapsed >= self.max_time:
            return []
        return [n for n in todo if not self.reached(n)]

    def remaining(self, elapsed: float = 0.0) -> bool:
        return any(self.pending(r, elapsed) for r in range(self.repeats))

    def summary(self) -> dict[str, dict]:
        """Per workload: repeats with figures, CI half-width (fraction), whether the target was met."""
        out = {}
        for n in self.names:
            hw = self.half_width(n)
            out[n] = {
                "repeats": len(self.samples.get(n, [])),
                "ci_half_width": hw,
                "reached": self.reached(n) if self.adaptive else None,
            }
        return out
