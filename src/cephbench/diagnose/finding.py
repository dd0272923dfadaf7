"""A finding, the evidence it rests on, and the peer comparison most of them rest on. Pure.

A finding carries its code (:mod:`cephbench.diagnose.codes`: its layer, and what later
rules and tests read instead of its words), its :class:`Severity` and typed evidence: one
frozen dataclass per kind, declared next to the rule that fills it, whose JSON is its fields
in order. What a diagnosis checked is a :class:`Check` of a closed :class:`Status`. Both
closed sets are the diagnosis schema's (``cephbench.diagnosis/1``) enums, stored as their
words.

An OSD, a host or a link is an outlier when its figure is far from its peers' median,
measured in MADs (median absolute deviations) and as a ratio: one slow OSD among three is
found, and normal jitter is not.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

from cephbench.diagnose.codes import LAYERS, Code


class Severity(StrEnum):
    """How much a finding matters, least first; stored as its word."""

    INFO = "info"
    WARNING = "warning"
    CRITICAL = "critical"


SEVERITIES = tuple(Severity)
"""Least first: a finding's rank is its severity's index."""


class Status(StrEnum):
    """What became of a check; stored as its words."""

    NORMAL = "normal"
    """Made, and nothing far from normal found."""
    NOT_POSSIBLE = "not possible"
    """Not made: what it needs cannot be reached or is missing (``detail`` says what)."""
    MEASURED = "measured"
    """A figure measured, given for reference (no judgement)."""
    READ = "read"
    """Settings or states read, given for reference."""
    SKIPPED = "skipped"
    """Not made, as asked (stored by earlier diagnoses)."""


@dataclass(frozen=True)
class Check:
    """One thing a diagnosis checked, or could not: a ``checked`` entry of the diagnosis."""

    layer: str
    """One of :data:`~cephbench.diagnose.codes.LAYERS`."""
    check: str
    status: Status
    detail: str | None = None

    def __post_init__(self) -> None:
        if self.layer not in LAYERS:
            raise ValueError(f"a check's layer is one of {', '.join(LAYERS)}, not {self.layer!r}")
        if not isinstance(self.status, Status):
            raise ValueError(f"a check's status is a Status, not {self.status!r}")

    def to_json(self) -> dict[str, str]:
        out = {"layer": self.layer, "check": self.check, "status": self.status.value}
        if self.detail is not None:
            out["detail"] = self.detail
        return out

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Check:
        """A stored entry; ValueError for a status or layer outside the closed sets."""
        extra = set(d) - {"layer", "check", "status", "detail"}
        if extra:
            raise ValueError(f"a check holds no {', '.join(sorted(extra))}")
        return cls(d["layer"], d["check"], Status(d["status"]), d.get("detail"))


MAD_Z = 3.5
"""A robust z-score (0.6745 x deviation / MAD) above this is an outlier (Iglewicz-Hoaglin)."""


@dataclass(frozen=True)
class Evidence:
    """What a finding rests on: the figures and the peers they were compared with. Its JSON
    is its fields, in order; a kind stored otherwise says so in its own ``to_json``."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Finding:
    code: Code
    component: str
    severity: Severity
    summary: str
    evidence: Evidence
    next_step: str
    impact: float
    """How far from normal (a ratio to the peers' median or to the nominal figure); orders
    findings of one severity."""

    def __post_init__(self) -> None:
        if not isinstance(self.severity, Severity):
            raise ValueError(f"a finding's severity is a Severity, not {self.severity!r}")

    @property
    def layer(self) -> str:
        return self.code.layer

    def to_json(self) -> dict[str, Any]:
        """The stored finding (``cephbench.diagnosis/1``): no code, the schema admits none."""
        return {
            "layer": self.layer,
            "component": self.component,
            "severity": self.severity.value,
            "summary": self.summary,
            "evidence": self.evidence.to_json(),
            "next_step": self.next_step,
            "impact": round(self.impact, 3),
        }


@dataclass(frozen=True)
class Outlier:
    name: str
    value: float
    median: float
    ratio: float
    z: float


@dataclass
class Diagnosis:
    findings: list[Finding] = field(default_factory=list)
    checked: list[Check] = field(default_factory=list)
    budget: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "findings": [f.to_json() for f in self.findings],
            "checked": [c.to_json() for c in self.checked],
            "budget": self.budget,
        }


def outliers(
    values: dict[str, float], *, high: bool, min_ratio: float, min_excess: float = 0.0
) -> list[Outlier]:
    """Members far above (``high``) or below their peers' median: robust z over ``MAD_Z``,
    at least ``min_ratio`` times the median (or a ``min_ratio``-th of it), and at least
    ``min_excess`` away in the figure's unit. Needs three members or more."""
    clean = {k: v for k, v in values.items() if v is not None and math.isfinite(v)}
    if len(clean) < 3:
        return []
    med = statistics.median(clean.values())
    mad = statistics.median(abs(v - med) for v in clean.values())
    out = []
    for name, v in clean.items():
        dev = (v - med) if high else (med - v)
        if dev <= 0 or dev < min_excess:
            continue
        z = math.inf if mad == 0 else 0.6745 * dev / mad
        ratio = (v / med if med > 0 else math.inf) if high else med / v if v > 0 else math.inf
        if z >= MAD_Z and ratio >= min_ratio:
            out.append(Outlier(name, v, med, ratio, z))
    return out


def severity(ratio: float) -> Severity:
    if ratio >= 4:
        return Severity.CRITICAL
    return Severity.WARNING if ratio >= 2 else Severity.INFO


def rounded(x: float | None, n: int = 3) -> float | None:
    return None if x is None else round(x, n)


def peers(values: dict[str, float | None], name: str) -> dict[str, float | None]:
    return {k: rounded(v) for k, v in values.items() if k != name}


def host_of(e: dict[str, Any], osd: str) -> str | None:
    return (e.get("osds", {}).get(osd.removeprefix("osd.")) or {}).get("host")
