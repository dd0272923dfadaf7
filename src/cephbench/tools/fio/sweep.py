"""Sweeps: ``--bs 4k,1M --iodepth 1,8,64 --numjobs 1,4 --rw randread,randwrite`` expanded
into one fio job per point.

An axis given one value is an override like any other; an axis given several values is
swept, and every workload becomes one job per point of the product. Points are ordered so
like points stay together: rw, then rwmixread, block size, numjobs, and iodepth innermost
(the response curve of one numjobs runs in one stretch). Each point's name says its swept
values (``rand_rd-qd8-nj4``); the ``matrix`` suite names points by all four parameters
(``randread-4k-qd8-nj4``). Reports pivot on the stored columns, never on names.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import get_args

from cephbench.errors import UsageError
from cephbench.system.units import parse_size
from cephbench.tools.fio.jobfile import RW, Job, JobFile

MIXED = ("rw", "readwrite", "randrw", "trimwrite")
AXES = ("rw", "rwmixread", "bs", "numjobs", "iodepth")
RW_VALUES = get_args(RW)


@dataclass(frozen=True)
class Axes:
    """The values given for each sweepable parameter (empty: not given)."""

    rw: tuple[str, ...] = ()
    rwmixread: tuple[int, ...] = ()
    bs: tuple[str, ...] = ()
    numjobs: tuple[int, ...] = ()
    iodepth: tuple[int, ...] = ()

    @classmethod
    def parse(cls, **lists: str | None) -> Axes:
        """From the command line's comma lists; a clear error for a bad value."""
        return cls(**{name: _values(name, text) for name, text in lists.items() if text})

    @property
    def swept(self) -> tuple[str, ...]:
        return tuple(a for a in AXES if len(getattr(self, a)) > 1)

    @property
    def single(self) -> dict[str, str]:
        """Axes with one value: plain overrides of every workload."""
        return {a: str(getattr(self, a)[0]) for a in AXES if len(getattr(self, a)) == 1}

    def to_json(self) -> dict[str, list]:
        return {a: list(getattr(self, a)) for a in AXES if getattr(self, a)}

    def points(self, options: dict[str, str | None]) -> list[dict[str, str]]:
        """The swept values of every point of one job whose own options are ``options``."""
        out = []
        for combo in itertools.product(*(getattr(self, a) for a in self.swept)):
            point = dict(zip(self.swept, map(str, combo), strict=True))
            rw = point.get("rw") or options.get("rw") or "read"
            if rw not in MIXED and "rwmixread" in point:
                if point["rwmixread"] != str(self.rwmixread[0]):
                    continue  # a pure read or write has no mix: one point, not one per mix
                del point["rwmixread"]
            out.append(point)
        return out


def expand(jobfile: JobFile, axes: Axes, full_names: bool = False) -> JobFile:
    """One job per point; ``full_names`` names points by rw, mix, bs, iodepth and numjobs."""
    if not axes.swept and not full_names:
        return jobfile
    jobs, seen = [], set()
    for job in jobfile.jobs:
        for point in axes.points(jobfile.merged(job)):
            options = {**jobfile.merged(job), **axes.single, **point}
            name = point_name(job.name, point, options, full_names)
            if name in seen:
                raise UsageError(
                    f"two points of the sweep are both named {name}",
                    hint="give each workload of the suite a distinct name",
                )
            seen.add(name)
            jobs.append(Job(name, tuple(job.without(*point).options) + tuple(point.items())))
    return JobFile(jobfile.global_, tuple(jobs))


def point_name(base: str, point: dict[str, str], options: dict[str, str | None], full: bool) -> str:
    parts = [] if full else [base]
    if full or "rw" in point:
        parts.append(options.get("rw") or "read")
    if "rwmixread" in point or (full and (options.get("rw") or "") in MIXED):
        parts.append(f"mix{options.get('rwmixread') or 50}")
    if full or "bs" in point:
        parts.append(str(options.get("bs") or "4k"))
    if full or "iodepth" in point:
        parts.append(f"qd{options.get('iodepth') or 1}")
    if full or "numjobs" in point:
        parts.append(f"nj{options.get('numjobs') or 1}")
    return "-".join(parts)


def _values(name: str, text: str) -> tuple:
    items = [v.strip() for v in text.split(",")]
    if not all(items):
        raise UsageError(
            f"--{name} {text}: an empty value in the list", hint="e.g. --iodepth 1,4,16"
        )
    if len(set(items)) != len(items):
        raise UsageError(f"--{name} {text}: a value is given twice")
    if name == "rw":
        bad = [v for v in items if v not in RW_VALUES]
        if bad:
            raise UsageError(
                f"--rw {bad[0]} is not an fio rw", hint=f"choose from {', '.join(RW_VALUES)}"
            )
        return tuple(items)
    if name == "bs":
        for v in items:
            parse_size(v)
        return tuple(items)
    limits = {"rwmixread": (0, 100), "iodepth": (1, 65536), "numjobs": (1, 4096)}[name]
    try:
        numbers = tuple(int(v) for v in items)
    except ValueError:
        raise UsageError(
            f"--{name} {text}: whole numbers only", hint="e.g. --iodepth 1,4,16"
        ) from None
    if any(not limits[0] <= n <= limits[1] for n in numbers):
        raise UsageError(f"--{name} values must be between {limits[0]} and {limits[1]}")
    return numbers
