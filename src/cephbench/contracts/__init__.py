"""cephbench's data contract: every JSON document cephbench prints names its shape and version.

A document is a JSON object whose first key is ``"schema": "cephbench.<kind>/<N>"``. ``N`` grows
when a field is renamed, removed or changes meaning; adding an optional field does not. Each
kind has a JSON Schema (draft 2020-12) shipped beside this module as ``<kind>-<N>.schema.json``,
which the tests validate real outputs against, and what cephbench reads back has a reader per
version (``cephbench.contracts.read``).

=========================== ======================================== ==========================
kind                        printed by                               top level
=========================== ======================================== ==========================
``cephbench.run/1``         ``show --format json`` (``run`` too)     one run: its fields,
                                                                     ``results``, ``failures``
``cephbench.runs/1``        ``runs --format json``                   ``{"runs": [{id, ...}],
                                                                     "total": N}`` (N match)
``cephbench.comparison/1``  ``compare --format json``                columns, rows, env_diff
``cephbench.import-plan/1`` ``import --dry-run --format json``       ``{"runs": [run/1]}``, ids
                                                                     null: nothing stored
``cephbench.import/1``      ``import --format json``                 ``{"runs": [run/1]}``, as
                                                                     stored
``cephbench.export/1``      ``export RUN... -o FILE``                ``{"runs": [run/1 + raw]}``
``cephbench.suites/1``      ``suites --format json``                 ``{"suites": [...]}``
``cephbench.cluster/1``     ``show --cluster --format json``         run, cluster, fingerprint
``cephbench.hosts/1``       ``hosts check --format json``            ``{"hosts": [...]}``,
                                                                     warnings
``cephbench.diagnosis/1``   ``diagnose --format json``               run, findings, checked,
                                                                     budget
``cephbench.ab/1``          ``ab --format json``                     columns a/b, rows, changes,
                                                                     order, rounds, summary
``cephbench.explanation/1`` ``explain RUN --format json``            run, diagnosis_run,
                                                                     capabilities, workloads
``cephbench.k8s/1``         ``k8s check --format json``              server, nodes, classes,
                                                                     CSI drivers, permissions
``cephbench.tuning/1``      ``tune --format json``                   findings, candidates,
                                                                     attempts, kept
``cephbench.capacity/1``    ``capacity --format json``               result (capacity, CI),
                                                                     repeats, knee, steps
``cephbench.capacity-``     ``capacity --compare A B --format json`` a, b (capacity/1), the
``comparison/1``                                                     difference, its CI, verdict
=========================== ======================================== ==========================

Units are in the field names as in the model (``_bytes``, ``_bytes_per_s``, ``_us``, ``_s``).
A run in an export (or ``show --raw``) adds what the store keeps beside its figures:
``outputs`` (every tool invocation: argv, input, stdout, stderr, and the workloads it
produced), ``fingerprint`` (the Ceph cluster's own JSON) and ``series`` (health samples and
rados bench's per-second table); ``cephbench import`` stores such a run back as it was.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from cephbench.model import RUN_SCHEMA

RUN = RUN_SCHEMA
RUNS = "cephbench.runs/1"
COMPARISON = "cephbench.comparison/1"
IMPORT_PLAN = "cephbench.import-plan/1"
IMPORT = "cephbench.import/1"
EXPORT = "cephbench.export/1"
SUITES = "cephbench.suites/1"
CLUSTER = "cephbench.cluster/1"
HOSTS = "cephbench.hosts/1"
DIAGNOSIS = "cephbench.diagnosis/1"
AB = "cephbench.ab/1"
EXPLANATION = "cephbench.explanation/1"
K8S = "cephbench.k8s/1"
TUNING = "cephbench.tuning/1"
CAPACITY = "cephbench.capacity/1"
CAPACITY_COMPARISON = "cephbench.capacity-comparison/1"
KINDS = (
    RUN,
    RUNS,
    COMPARISON,
    IMPORT_PLAN,
    IMPORT,
    EXPORT,
    SUITES,
    CLUSTER,
    HOSTS,
    DIAGNOSIS,
    AB,
    EXPLANATION,
    K8S,
    TUNING,
    CAPACITY,
    CAPACITY_COMPARISON,
)
PREFIX = "cephbench."


def document(kind: str, **body: Any) -> dict[str, Any]:
    """A document of ``kind``: the schema key first, then ``body``."""
    return {"schema": kind, **body}


def schema_file(kind: str) -> str:
    """``cephbench.run/1`` -> ``run-1.schema.json``."""
    name, version = kind.removeprefix(PREFIX).split("/")
    return f"{name}-{version}.schema.json"


@cache
def _load(kind: str) -> str:
    return resources.files(__package__).joinpath(schema_file(kind)).read_text(encoding="utf-8")


def schema(kind: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of ``kind``, as shipped with the package."""
    if kind not in KINDS:
        raise KeyError(f"no cephbench schema named {kind}")
    return json.loads(_load(kind))
