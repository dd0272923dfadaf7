"""What differs between runs' recorded context: environment, suite, target, parameters, cluster.

The diff is generic: any nested dict is flattened to dotted paths (``tools.fio``,
``cluster.osds[osd.1].model``), so facts added to runs later (a Ceph cluster fingerprint,
new tool versions) show up without changes here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cephbench.model import Run

IGNORED = frozenset({"target.path"})
"""Paths that differ on every run by construction (the data file is named after the run)."""
CLUSTER_KEYS = ("cluster", "ceph")
"""Environment keys a Ceph cluster fingerprint may be recorded under."""
LIST_KEYS = ("id", "name", "key", "osd")
"""A list of dicts is keyed by the first of these its items all have (else by position)."""


@dataclass(frozen=True)
class EnvDifference:
    path: str
    values: dict[int, Any]
    """Run id -> value (``None`` where the run did not record it)."""

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "values": {str(k): v for k, v in self.values.items()}}


VOLATILE_CLUSTER = ("fsid", "raw_avail_bytes", "pool.name", "pool.max_avail_bytes")
"""Fingerprint facts that differ between runs on the same cluster setup (fresh pools...)."""


def context_of(run: Run, cluster: dict[str, Any] | None = None) -> dict[str, Any]:
    """Everything about how a run was made, as one nested dict (``cluster``: its fingerprint)."""
    ctx = {"suite": run.suite, "target_spec": run.target, "params": run.params, **run.environment}
    if cluster:
        ctx["cluster"] = cluster
    return ctx


def cluster_context(fingerprint: dict[str, Any], pool: str | None) -> dict[str, Any]:
    """A stored Ceph fingerprint as diffable facts: the cluster table's values (OSDs, models,
    pool size and PGs...) without per-run noise, plus ``ceph config dump``."""
    from cephbench.ceph.fingerprint import summarize

    summary = flatten(summarize(fingerprint, pool))
    facts: dict[str, Any] = {k: v for k, v in summary.items() if k not in VOLATILE_CLUSTER}
    config = fingerprint.get("config")
    if isinstance(config, list):
        facts["config"] = [c for c in config if isinstance(c, dict)]
    return facts


def cluster_of(run: Run) -> dict[str, Any] | None:
    """The run's Ceph cluster fingerprint, when one was recorded."""
    for key in CLUSTER_KEYS:
        value = run.environment.get(key)
        if isinstance(value, dict) and value:
            return value
    return None


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """Nested dicts and lists as ``{dotted.path: leaf}``; lists of scalars stay leaves."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for k, v in value.items():
            out.update(flatten(v, f"{prefix}.{k}" if prefix else str(k)))
        return out if out or not prefix else {prefix: {}}
    if isinstance(value, list | tuple) and value and all(isinstance(v, dict) for v in value):
        key = next((k for k in LIST_KEYS if all(k in v for v in value)), None)
        out = {}
        for i, item in enumerate(value):
            name, drop = (item[key], {key}) if key else (i, set())
            if key == "name" and "section" in item:  # `ceph config dump` entries
                name, drop = f"{item['section']}/{item['name']}", {"name", "section"}
            rest = {k: v for k, v in item.items() if k not in drop}
            out.update(flatten(rest, f"{prefix}[{name}]"))
        return out
    if isinstance(value, list | tuple):
        return {prefix: list(value)}
    return {prefix: value}


def env_diff(runs: Sequence[Run], clusters: dict[int, dict] | None = None) -> list[EnvDifference]:
    """Every path whose value is not the same in all ``runs``, in first-seen order."""
    clusters = clusters or {}
    flat = {run.id: flatten(context_of(run, clusters.get(run.id))) for run in runs}
    paths: dict[str, None] = {}
    for values in flat.values():
        paths.update(dict.fromkeys(values))
    diffs = []
    for path in paths:
        if path in IGNORED:
            continue
        values = {rid: flat[rid].get(path) for rid in flat}
        if len({json.dumps(v, sort_keys=True, default=str) for v in values.values()}) > 1:
            diffs.append(EnvDifference(path, values))
    return diffs


def format_value(value: Any) -> str:
    """A leaf as table text: None is '—' (not recorded)."""
    if value is None:
        return "—"
    if isinstance(value, list | dict):
        return json.dumps(value, default=str)
    return str(value)
