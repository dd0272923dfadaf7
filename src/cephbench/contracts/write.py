"""Writing runs as cephbench's JSON: ``show`` (``cephbench.run/1``) and ``export``.

The run document is ``Run.to_json`` plus what a run on Ceph adds (cluster summary, health
samples, prefill); with ``raw`` also the raw tool outputs, the cluster fingerprint and the
run's series, which are what ``cephbench import`` needs to store the run back exactly.
"""

from __future__ import annotations

from typing import Any

from cephbench import __version__
from cephbench.contracts import EXPORT, document
from cephbench.model import Run, Series, StoredRun, now
from cephbench.store import Store

PREFILL_TOOL = "fio-prefill"
FALLOCATE_TOOL = "fallocate-probe"
"""A CephFS mount's fallocate probe, kept when the mount refused it (targets/cephfs.py)."""


def run_document(run: Run, store: Store | None = None, raw: bool = False) -> dict[str, Any]:
    data = run.to_json()
    if store is None or not isinstance(run, StoredRun):
        return data
    data.update(_ceph_extras(run, store))
    if raw:
        data.update(raw_extras(run, store))
    return data


def _ceph_extras(run: StoredRun, store: Store) -> dict[str, Any]:
    """Keys a Ceph run adds to the stable JSON: the cluster summary, health, prefill."""
    from cephbench.ceph.fingerprint import summarize

    out: dict[str, Any] = {}
    fp = store.fingerprint(run.id)
    if fp is not None:
        out["cluster"] = summarize(*fp)
    for h in store.series(run.id, "health")[:1]:
        out["health_samples"] = [[t, v] for t, v in zip(h.t_s, h.values, strict=True)]
    prefill = [o for o in store.outputs(run.id) if o["tool"] == PREFILL_TOOL]
    if prefill:
        out["prefill"] = {"argv": prefill[0]["argv"], "seconds": prefill[0]["seconds"]}
    return out


def raw_extras(run: StoredRun, store: Store) -> dict[str, Any]:
    """The raw outputs (each with the workloads it produced), fingerprint and series."""
    produced = store.output_workloads(run.id)
    outputs = [
        {
            "repeat": o["repeat"],
            "tool": o["tool"],
            "argv": o["argv"],
            "input_text": o["input_text"],
            "stdout": o["stdout"],
            "stderr": o["stderr"],
            "returncode": o["returncode"],
            "started_at": o["started_at"],
            "seconds": o["seconds"],
            "workloads": produced.get(o["id"], []),
        }
        for o in store.outputs(run.id)
    ]
    out: dict[str, Any] = {"outputs": outputs}
    fp = store.fingerprint(run.id)
    if fp is not None:
        out["fingerprint"] = {"pool": fp[1], "data": fp[0]}
    series = store.series(run.id)
    if series:
        out["series"] = [series_json(s) for s in series]
    return out


def series_json(s: Series) -> dict[str, Any]:
    """A stored series as JSON points: numbers as floats (exact), records as written."""
    return {
        "repeat": s.repeat,
        "workload": s.workload,
        "op": s.op,
        "name": s.metric,
        "points": [
            [float(t), float(v) if hasattr(v, "dtype") else v]
            for t, v in zip(s.t_s, s.values, strict=True)
        ],
    }


def export_document(runs: list[Run], store: Store) -> dict[str, Any]:
    """Several runs, each with its raw outputs: ``cephbench.export/1``."""
    return document(
        EXPORT,
        cephbench_version=__version__,
        exported_at=now(),
        runs=[run_document(r, store, raw=True) for r in runs],
    )
