"""Validating cephbench's JSON against the schemas the package ships (cephbench.contracts)."""

from __future__ import annotations

from functools import cache
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from cephbench import contracts


@cache
def _validators() -> dict[str, Draft202012Validator]:
    schemas = {kind: contracts.schema(kind) for kind in contracts.KINDS}
    registry = Registry().with_resources(
        (s["$id"], Resource.from_contents(s)) for s in schemas.values()
    )
    for s in schemas.values():
        Draft202012Validator.check_schema(s)
    return {kind: Draft202012Validator(s, registry=registry) for kind, s in schemas.items()}


def validate(doc: Any) -> Any:
    """``doc`` itself, after checking it against the schema its ``schema`` key names
    (AssertionError listing every violation otherwise)."""
    assert isinstance(doc, dict) and doc.get("schema") in contracts.KINDS, (
        f"not a cephbench document: schema {doc.get('schema') if isinstance(doc, dict) else doc!r}"
    )
    errors = sorted(_validators()[doc["schema"]].iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, "\n".join(
        f"{doc['schema']} at /{'/'.join(map(str, e.path))}: {e.message[:300]}" for e in errors
    )
    return doc
