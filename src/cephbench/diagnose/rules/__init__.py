"""The findings rules, one module per layer. Each rule reads the evidence and adds its
findings (and what it checked) to the diagnosis; :data:`RULES` is the order they run in."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cephbench.diagnose.finding import Diagnosis
from cephbench.diagnose.rules.cluster import client_facts, cluster_findings, placement_findings
from cephbench.diagnose.rules.network import network_findings
from cephbench.diagnose.rules.osd import device_facts, osd_findings

Rule = Callable[[dict[str, Any], Diagnosis], None]
RULES: tuple[Rule, ...] = (
    osd_findings,
    network_findings,
    device_facts,
    placement_findings,
    cluster_findings,
    client_facts,
)
