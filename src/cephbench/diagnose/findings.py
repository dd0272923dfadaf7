"""The findings engine: evidence (figures read from the cluster) in, findings out. Pure.

Most findings are peer-relative: an OSD, a host or a link whose figure is far from its
peers' median, measured in MADs (median absolute deviations) and as a ratio, so one slow
OSD among three is found and normal jitter is not. The rest are the few absolute facts
with a documented meaning: a sync-write rate that says "no power-loss protection", a PG
spread over 30 % from the mean, recovery or an unhealthy cluster during the measurement.
Every finding carries the figures it rests on and the peers they were compared with.

The finding and the outlier test are :mod:`cephbench.diagnose.finding`'s; the rules,
registered like plugins, :mod:`cephbench.diagnose.rules`'s; their codes,
:mod:`cephbench.diagnose.codes`'s. Here: the rules run in order, the checks the probes could
not make are listed, and findings are adjusted and sorted by what their codes say.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from cephbench.diagnose import codes, unchecked
from cephbench.diagnose.budget import budget
from cephbench.diagnose.finding import SEVERITIES, Diagnosis, Severity, host_of
from cephbench.diagnose.rules import rules
from cephbench.diagnose.rules.cpu_limit import uncapped_on_one_machine

CPU_STARVED = (codes.OSD_CPU_STARVED, codes.OSD_CPU_STARVED_VS_BEST)
"""The findings that say an OSD is short of CPU from its figures against other OSDs'."""


def diagnose(e: dict[str, Any]) -> Diagnosis:
    d = Diagnosis()
    for rule in rules().values():
        rule(e, d)
    d.checked.extend(unchecked.checked(text) for text in e.get("not_checked", []))
    _inconclusive_cpu(e, d)
    _behind_network(e, d)
    d.findings.sort(key=lambda f: (-SEVERITIES.index(f.severity), -f.impact))
    d.budget = budget(e)
    return d


def _inconclusive_cpu(e: dict[str, Any], d: Diagnosis) -> None:
    """An OSD "short of CPU" on peer figures alone, whose CPU was read beside its peers' on one
    machine with no limit on it, is left at info, inconclusive (why: ``uncapped_on_one_machine``)."""
    for i, f in enumerate(d.findings):
        doubt = uncapped_on_one_machine(e, f.component) if f.code in CPU_STARVED else None
        if doubt:
            d.findings[i] = replace(f, severity=Severity.INFO, summary=f.summary + doubt)


def _behind_network(e: dict[str, Any], d: Diagnosis) -> None:
    """An OSD that keeps ops queued behind a link measured slow (iperf3) may only be waiting
    for the network: its "short of CPU" finding becomes info, the network's stands first."""
    slow = [f for f in d.findings if f.code.layer == "network" and f.severity != Severity.INFO]
    every = any(f.code == codes.NETWORK_SLOW_LINKS for f in slow)
    hosts = {f.component for f in slow}
    for i, f in enumerate(d.findings):
        if f.code in CPU_STARVED and (every or host_of(e, f.component) in hosts):
            d.findings[i] = replace(
                f,
                severity=Severity.INFO,
                summary=f"{f.summary}; its host's links were measured slow, which may be "
                "all it waits for",
            )
