"""The findings rules, registered like plugins: a name mapped to ``module:attribute``,
imported when a diagnosis runs, run in registry order; third-party packages add rules
through the ``cephbench.diagnose_rules`` entry-point group (run after the built-ins).

A rule reads the evidence and adds its findings (and what it checked) to the diagnosis; it
is a function decorated with :func:`rule`, which names the codes of the findings it may
add. A rule may read earlier rules' findings by their codes, never by their words (the
network rule skips hosts whose OSDs osd-peers named: the order here matters)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cephbench.diagnose.codes import Code
from cephbench.diagnose.finding import Diagnosis
from cephbench.registry import Registry

RULES: dict[str, str] = {
    "osd-cpu-limit": "cephbench.diagnose.rules.cpu_limit:cpu_limit_findings",
    "osd-peers": "cephbench.diagnose.rules.osd:osd_findings",
    "osd-capability": "cephbench.diagnose.rules.capability:capability_findings",
    "network": "cephbench.diagnose.rules.network:network_findings",
    "sync-writes": "cephbench.diagnose.rules.osd:device_facts",
    "placement": "cephbench.diagnose.rules.cluster:placement_findings",
    "health": "cephbench.diagnose.rules.cluster:cluster_findings",
    "client": "cephbench.diagnose.rules.cluster:client_facts",
    "mds": "cephbench.diagnose.rules.mds:mds_findings",
    "misconfig": "cephbench.diagnose.rules.misconfig:misconfig_findings",
    "mclock": "cephbench.diagnose.rules.mclock:mclock_findings",
}
REGISTRY = Registry(RULES, group="cephbench.diagnose_rules")

Check = Callable[[dict[str, Any], Diagnosis], None]


@dataclass(frozen=True)
class Rule:
    codes: tuple[Code, ...]
    """Every code its findings may carry."""
    check: Check

    def __call__(self, e: dict[str, Any], d: Diagnosis) -> None:
        self.check(e, d)


def rule(*codes: Code) -> Callable[[Check], Rule]:
    """``@rule(codes.X, ...)`` on a rule's function: the codes of the findings it adds."""
    return lambda check: Rule(codes, check)


def rules() -> dict[str, Rule]:
    """Every registered rule, in the order they run."""
    return REGISTRY.load_all()
