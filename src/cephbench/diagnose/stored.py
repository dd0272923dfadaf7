"""A stored diagnosis read back: its document (``cephbench.diagnosis/1``) and evidence, and
what changed between two diagnoses (for ``compare``)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from cephbench.diagnose.finding import Check, Severity
from cephbench.errors import StoreError

if TYPE_CHECKING:
    from cephbench.store import Store

from cephbench.contracts import DIAGNOSIS as SCHEMA


def _output(store: Store, run_id: int, tool: str) -> dict[str, Any] | None:
    for o in reversed(store.outputs(run_id)):
        if o["tool"] == tool:
            return json.loads(o["stdout"])
    return None


def document(store: Store, run_id: int) -> dict[str, Any]:
    from cephbench.diagnose.tool import DIAGNOSIS_TOOL

    data = _output(store, run_id, DIAGNOSIS_TOOL)
    if data is None:
        raise StoreError(
            f"run {run_id} holds no diagnosis (it was interrupted before its findings)",
            hint="cephbench diagnose",
        )
    try:  # what a diagnosis checked and its severities: only the closed sets' words
        data["checked"] = [Check.from_json(c).to_json() for c in data.get("checked", [])]
        for f in data.get("findings", []):
            Severity(f["severity"])
    except (ValueError, KeyError, TypeError) as e:
        raise StoreError(
            f"run {run_id}'s diagnosis is not one this cephbench reads ({e})",
            hint="diagnose the cluster again: cephbench diagnose",
        ) from e
    doc = {"schema": SCHEMA, "run": run_id, **data}
    if "ceilings" not in doc:
        from cephbench.diagnose.explain import diagnosis_ceilings

        doc["ceilings"] = diagnosis_ceilings(evidence(store, run_id))
    return doc


def evidence(store: Store, run_id: int) -> dict[str, Any]:
    from cephbench.diagnose.tool import EVIDENCE_TOOL

    return _output(store, run_id, EVIDENCE_TOOL) or {}


def key(f: dict[str, Any]) -> tuple[str, str, str]:
    """What makes two findings the same finding: layer, component, severity."""
    return f["layer"], f["component"], f["severity"]


def changes(base: dict[str, Any], new: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Findings that appeared in ``new``, went away from ``base``, and stayed."""
    a = {key(f): f for f in base["findings"]}
    b = {key(f): f for f in new["findings"]}
    return {
        "appeared": [f for k, f in b.items() if k not in a],
        "went_away": [f for k, f in a.items() if k not in b],
        "stayed": [f for k, f in b.items() if k in a],
    }
