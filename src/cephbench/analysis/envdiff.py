"""What differs between runs' recorded context: environment, suite, target, parameters, cluster.

The diff is generic: any nested dict is flattened to dotted paths (``tools.fio``,
``cluster.pool.size``), so facts added to runs later (a Ceph cluster fingerprint, new tool
versions) show up without changes here. A list of dicts is one row per item when its items
carry a unique key (``cluster.osds.1``), else one row for the whole list: never a row per
index or per field of an item.

Ceph's own settings (``ceph config dump``) are one row per option, named as ``ceph config
set`` takes it (``client rbd_cache``, ``osd/class:ssd osd_op_num_shards``), with its value;
a run whose dump lacks the option shows ``(default)``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from cephbench.model import Run, StoredRun

IGNORED = frozenset({"target.path", "params.request.label", "params.request.schema"})
"""Paths that differ on every run by construction (the data file is named after the run; the
label is the column's name already; the request's format version is not a setting)."""
CLUSTER_KEYS = ("cluster", "ceph")
"""Environment keys a Ceph cluster fingerprint may be recorded under."""
LIST_KEYS = ("id", "name", "key", "osd")
"""A list of dicts is keyed by the first of these its items all have, with distinct values."""
CONFIG_FIELDS = ("section", "name", "value")
"""The fields every ``ceph config dump`` entry has (besides level, mask, can_update_at_runtime)."""
DEFAULT = "(default)"
"""A Ceph option not set in a run's recorded configuration: the daemon's built-in value."""
NOT_RECORDED = "—"


@dataclass(frozen=True)
class EnvDifference:
    path: str
    """A dotted path (``kernel``, ``params.overrides.bs``), or a Ceph option as ``ceph config
    set`` takes it (``client rbd_cache``) when ``kind`` is ``ceph_config``."""
    values: dict[int, Any]
    """Run id -> value (``None`` where the run did not record it, or left the option unset)."""
    kind: str = "context"
    default: frozenset[int] = field(default_factory=frozenset)
    """Runs whose recorded Ceph configuration leaves this option unset (its default)."""

    def text(self, run_id: int) -> str:
        """The table cell for ``run_id``."""
        if run_id in self.default:
            return DEFAULT
        return format_value(self.values.get(run_id))

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "kind": self.kind,
            "values": {str(k): v for k, v in self.values.items()},
            "default": sorted(str(k) for k in self.default),
        }


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


def is_config_dump(value: Any) -> bool:
    """Whether ``value`` has the shape of ``ceph config dump --format json``."""
    return (
        isinstance(value, list | tuple)
        and bool(value)
        and all(isinstance(v, dict) and all(f in v for f in CONFIG_FIELDS) for v in value)
    )


def config_options(entries: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """``ceph config dump`` entries as ``{"client rbd_cache": "false"}``: who (section, and
    ``/mask`` when the option is set for a device class or host only) and name, as ``ceph config
    set`` takes them; the value as Ceph printed it."""
    out = {}
    for e in entries:
        who = f"{e['section']}/{e['mask']}" if e.get("mask") else str(e["section"])
        out[f"{who} {e['name']}"] = e["value"]
    return out


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """Nested dicts as ``{dotted.path: leaf}``; lists of scalars stay leaves; a list of dicts is
    one leaf per keyed item (``prefix.KEY``: the item's other fields) or one leaf for the list;
    a ``ceph config dump`` is one leaf per option (``prefix client rbd_cache``)."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for k, v in value.items():
            out.update(flatten(v, f"{prefix}.{k}" if prefix else str(k)))
        return out if out or not prefix else {prefix: {}}
    if is_config_dump(value):
        return {f"{prefix} {k}" if prefix else k: v for k, v in config_options(value).items()}
    if isinstance(value, list | tuple) and value and all(isinstance(v, dict) for v in value):
        key = _list_key(value)
        if key is None:
            return {prefix: list(value)}
        return {
            f"{prefix}.{item[key]}": {k: v for k, v in item.items() if k != key} for item in value
        }
    if isinstance(value, list | tuple):
        return {prefix: list(value)}
    return {prefix: value}


def env_diff(
    runs: Sequence[StoredRun], clusters: dict[int, dict] | None = None
) -> list[EnvDifference]:
    """Every path whose value is not the same in all ``runs``, in first-seen order; then every
    Ceph option set differently (or on some runs only)."""
    clusters = clusters or {}
    flat, options = {}, {}
    for run in runs:
        ctx, config = _split_config(context_of(run, clusters.get(run.id)))
        flat[run.id] = flatten(ctx)
        if config is not None:
            options[run.id] = config_options(config)
    diffs = [
        EnvDifference(path, values) for path, values in _differing(flat) if path not in IGNORED
    ]
    for name, values in _differing(options, [r.id for r in runs]):
        unset = frozenset(rid for rid in options if values[rid] is None)
        diffs.append(EnvDifference(name, values, "ceph_config", unset))
    return diffs


def format_value(value: Any) -> str:
    """A leaf as table text: None is '—' (not recorded)."""
    if value is None:
        return NOT_RECORDED
    if isinstance(value, list | dict):
        return json.dumps(value, default=str)
    return str(value)


def _list_key(items: Sequence[dict[str, Any]]) -> str | None:
    """The first of LIST_KEYS every item has, with a distinct scalar value in each."""
    for key in LIST_KEYS:
        if all(key in v for v in items):
            names = [v[key] for v in items]
            scalar = all(not isinstance(n, dict | list) for n in names)
            if scalar and len(set(map(str, names))) == len(names):
                return key
    return None


def _split_config(ctx: dict[str, Any]) -> tuple[dict[str, Any], list[dict] | None]:
    """The context without its Ceph configuration dump, and that dump (None when none was
    recorded)."""
    config = None
    out = dict(ctx)
    for key in CLUSTER_KEYS:
        cluster = out.get(key)
        if isinstance(cluster, dict) and isinstance(cluster.get("config"), list):
            entries = [e for e in cluster["config"] if isinstance(e, dict)]
            if not entries or is_config_dump(entries):
                config = (config or []) + entries
                out[key] = {k: v for k, v in cluster.items() if k != "config"}
    return out, config


def _differing(
    flat: dict[int, dict[str, Any]], run_ids: Sequence[int] | None = None
) -> list[tuple[str, dict[int, Any]]]:
    """(path, run id -> value) for every path whose value is not the same in all runs."""
    paths: dict[str, None] = {}
    for leaves in flat.values():
        paths.update(dict.fromkeys(leaves))
    ids = list(run_ids if run_ids is not None else flat)
    out = []
    for path in paths:
        values = {rid: flat.get(rid, {}).get(path) for rid in ids}
        if len({json.dumps(v, sort_keys=True, default=str) for v in values.values()}) > 1:
            out.append((path, values))
    return out
