"""What a remedy is: the findings it answers, the change it makes, what it should move and
what it costs. Pure.

A remedy never invents a setting: :meth:`Remedy.propose` turns a finding (its code, component
and evidence, as :class:`FindingRef`) into change lines of ``ab``'s kinds, and every line is
parsed (:func:`cephbench.tuning.changes.parse_change`) and checked to be of a kind and a key the
remedy declares before ``tune`` may try it.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from cephbench.errors import CephbenchError
from cephbench.tuning.changes import Change, parse_change


class Cost(StrEnum):
    """What trying a remedy costs the cluster."""

    ONLINE = "online"
    """Takes effect at once, nothing restarts."""
    RESTART = "restart"
    """The OSDs must restart for it to take effect (the lab's are restarted)."""
    DATA_MOVEMENT = "data-movement"
    """Moves data between OSDs (a pool's pg_num): only with ``--allow data-movement``."""


@dataclass(frozen=True)
class FindingRef:
    """A diagnose finding as a remedy reads it: its code, component and evidence (JSON)."""

    code: str
    component: str
    summary: str = ""
    evidence: dict[str, Any] | None = None
    facts: dict[str, Any] | None = None
    """What else of the cluster the remedy may need (e.g. ``osds``: the number of OSDs up)."""


Propose = Callable[[FindingRef], list[str]]


@dataclass(frozen=True)
class Remedy:
    name: str
    summary: str
    answers: tuple[str, ...]
    """The diagnose finding codes (``layer.what``) it answers."""
    kinds: tuple[str, ...]
    """The setting kinds its changes are of (``config``, ``config_rm``, ``pool``, ...)."""
    keys: tuple[str, ...]
    """The keys it may change (fnmatch patterns, e.g. ``debug_*``)."""
    workloads: tuple[str, ...]
    """The suite workloads it should move; the first of them in the suite is its own metric's."""
    cost: Cost
    lines: Propose
    """The change lines answering one finding (the command a user would type)."""
    metric: str = "iops"
    higher_is_better: bool = True
    """The direction it should move ``metric`` in."""

    def propose(self, finding: FindingRef) -> tuple[Change, ...]:
        """The changes answering ``finding``, each checked to be of this remedy's kinds and
        keys (an error otherwise: a remedy that names one setting must not change another)."""
        if finding.code not in self.answers:
            return ()
        out = []
        for line in self.lines(finding):
            change = parse_change(line)
            if change.kind not in self.kinds or not any(
                fnmatch.fnmatchcase(change.key, k) for k in self.keys
            ):
                raise CephbenchError(
                    f"remedy {self.name} proposed '{line}', outside the settings it names "
                    f"({', '.join(self.kinds)}: {', '.join(self.keys)})"
                )
            out.append(change)
        return tuple(out)

    def moves(self, suite_workloads: list[str]) -> tuple[str, ...]:
        """The workloads of the suite it should move (all of them when it names none there)."""
        named = tuple(w for w in self.workloads if w in suite_workloads)
        return named or tuple(suite_workloads)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "summary": self.summary,
            "answers": list(self.answers),
            "kinds": list(self.kinds),
            "keys": list(self.keys),
            "workloads": list(self.workloads),
            "metric": self.metric,
            "direction": "higher" if self.higher_is_better else "lower",
            "cost": self.cost.value,
        }
