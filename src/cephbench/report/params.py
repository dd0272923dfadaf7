"""A run's parameters as the report shows them: a short table of what the run was asked to do
(suite, target, tool, repeats, overrides, sweep axes, steady state, CI target, the cluster),
not the stored JSON, which holds the run request and connection details a reader has no use
for (``cephbench show --format json`` still has all of it)."""

from __future__ import annotations

from typing import Any

from cephbench.model import Run
from cephbench.tables.table import Table


def params_table(run: Run) -> Table:
    """Two columns, Parameter and Value; a parameter the run did not use has no row."""
    p = run.params
    rows = [
        ("Suite", run.suite),
        ("Target", run.target),
        ("Tool", run.tool),
        ("Repeats", str(p.get("repeat", "unknown"))),
        ("Overrides", _overrides(p.get("overrides"))),
        ("Sweep axes", _sweep(p.get("sweep"))),
        ("Steady state", _steady(p.get("steady_state"))),
        ("Target CI", _target_ci(p.get("target_ci"), p.get("max_time"))),
        ("Cluster", _cluster(p.get("connection"))),
        ("Clients", ", ".join(p.get("clients") or ())),
        ("Drop caches", "before each workload" if p.get("drop_caches") else ""),
        ("Imported", "yes: figures read from a tool's output" if p.get("imported") else ""),
    ]
    return Table(
        ("Parameter", "Value"),
        tuple((k, v) for k, v in rows if v),
        title="Parameters",
        align=("l", "l"),
    )


def _overrides(overrides: dict[str, Any] | None) -> str:
    if not overrides:
        return "none"
    return ", ".join(f"{k}={v}" for k, v in overrides.items())


def _sweep(axes: dict[str, list] | None) -> str:
    """Only the axes that vary: one value is a plain override."""
    swept = {a: v for a, v in (axes or {}).items() if len(v) > 1}
    return "; ".join(f"{a} {', '.join(map(str, v))}" for a, v in swept.items())


def _steady(steady: dict[str, Any] | None) -> str:
    if not steady:
        return ""
    text = f"{steady['criterion']} over {steady['duration']:g} s"
    if steady.get("max_runtime"):
        text += f", at most {steady['max_runtime']:g} s"
    return text


def _target_ci(target: float | None, max_time: float | None) -> str:
    if not target:
        return ""
    text = f"95 % CI within ±{target * 100:g} % of the mean IOPS"
    return text + (f", at most {max_time:g} s" if max_time else "")


def _cluster(connection: dict[str, Any] | None) -> str:
    """The conf and the client id: what says which cluster (no keyring path, no timeouts)."""
    if not connection:
        return ""
    parts = [f"conf {connection.get('conf') or 'default'}"]
    if connection.get("id"):
        parts.append(f"id {connection['id']}")
    return ", ".join(parts)
