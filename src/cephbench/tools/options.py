"""Run-wide choices beyond the plan, as the tools' steps see them: health rules on Ceph, page
cache dropping, adaptive repeats, time-series capture and the network suite's options. A run
request resolves to them (``planning/resolve.py``); the request itself stays above the tools."""

from __future__ import annotations

from dataclasses import dataclass, field

from cephbench.ceph.session import HealthOptions
from cephbench.tools.iperf3.options import NetworkOptions


@dataclass(frozen=True)
class RunOptions:
    health: HealthOptions = field(default_factory=HealthOptions)
    drop_caches: bool = False
    target_ci: float | None = None
    """Repeat each workload until its 95 % CI half-width is within this fraction of the mean
    (at most ``repeats`` times, and no new repeat after ``max_time`` seconds)."""
    max_time: float | None = None
    logs: bool = True
    """Capture fio's bandwidth, IOPS and latency logs of every workload as time series."""
    per_io_logs: bool = False
    """Log every I/O's latency (exact per-interval percentiles) instead of interval averages."""
    hosts: str | None = None
    """``--hosts``: the inventory whose hosts drop their caches and are fingerprinted (and,
    for the network suite, are measured between)."""
    clients: str | None = None
    """``--clients``: the hosts fio runs on at once (an inventory spec), None for this one."""
    shared_image: bool = False
    """With ``clients``: every client on the run's RBD image, not one image each."""
    network: NetworkOptions = field(default_factory=NetworkOptions)
    """The network suite's options (iperf3 between the ``--hosts``)."""
