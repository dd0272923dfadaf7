"""The data contract: every JSON cephbench prints names its schema and validates against the
JSON Schema the package ships; what cephbench prints of a run reads back as the same model."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from cephbench import contracts
from cephbench.contracts.read import load_run, load_runs
from cephbench.errors import ParseError
from cephbench.store import Store
from tests.helpers import DATA, FIO_DATA

RADOS_SESSION = DATA / "rados-bench" / "16.2.15" / "session-t16.txt"
IPERF_JSON = DATA / "iperf3" / "3.12" / "tcp-P4.client.json"
OSD_DOWN = DATA / "ceph" / "16.2.15" / "osd-bench-osd2-down.txt"


def test_every_kind_ships_a_draft_2020_12_schema_named_after_it():
    shipped = {p.name for p in Path(contracts.__file__).parent.glob("*-1.schema.json")}
    assert len(set(contracts.KINDS)) == len(contracts.KINDS) == len(shipped)
    for kind in contracts.KINDS:
        s = contracts.schema(kind)
        Draft202012Validator.check_schema(s)
        assert s["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert s["properties"]["schema"] == {"const": kind}
        assert "schema" in s["required"] and s["additionalProperties"] is False


def test_suites_json_validates_and_lists_every_suite(invoke_json):
    doc = invoke_json("suites")
    names = [s["name"] for s in doc["suites"]]
    assert doc["schema"] == "cephbench.suites/1"
    assert {"standard", "quick", "matrix", "rados", "osd", "network"} <= set(names)


def test_cluster_json_of_a_run_with_a_recorded_fingerprint(invoke, invoke_json, db):
    from tests.helpers import lab_fingerprint

    invoke("import", str(RADOS_SESSION))
    with Store(db) as s:
        s.save_fingerprint(1, lab_fingerprint(), "recpool")
    doc = invoke_json("show", "last", "--cluster")
    assert doc["schema"] == "cephbench.cluster/1" and doc["run"] == 1
    assert doc["cluster"]["ceph_version"] == "16.2.15 (pacific)"
    run = invoke_json("show", "last")
    assert run["cluster"] == doc["cluster"]
    raw = invoke_json("show", "last", "--raw")
    assert raw["fingerprint"] == {"pool": "recpool", "data": lab_fingerprint()}


@pytest.mark.parametrize(
    "path",
    [RADOS_SESSION, IPERF_JSON, OSD_DOWN, FIO_DATA / "groups4.json", FIO_DATA / "randrw_70.txt"],
    ids=lambda p: p.name,
)
def test_a_stored_run_reads_back_as_the_same_model(invoke, invoke_json, db, path):
    invoke("import", str(path))
    with Store(db) as s:
        stored = s.get_run("last")
    doc = invoke_json("show", "last")
    assert load_run(doc) == stored  # results (percentiles, metrics, flags), failures, all of it
    assert load_run(json.loads(json.dumps(doc))) == stored
    plan = invoke_json("import", str(path), "--dry-run")
    assert plan["schema"] == "cephbench.import-plan/1" and plan["runs"][0]["id"] is None


def test_import_json_names_the_ids_it_stored(invoke_json):
    doc = invoke_json("import", str(RADOS_SESSION), str(IPERF_JSON))
    assert doc["schema"] == "cephbench.import/1"
    assert [r["id"] for r in doc["runs"]] == [1, 2]


@pytest.mark.parametrize(
    "doc, message",
    [
        ({"schema": "cephbench.run/9"}, "cephbench.run/9 is a format this cephbench does not know"),
        ({"schema": "cephbench.comparison/1"}, "holds no run to read"),
        ({"jobs": []}, "not a cephbench JSON document"),
        ({"schema": "cephbench.run/1", "id": 1}, "without the field 'suite'"),
        (
            {"schema": "cephbench.export/1", "runs": [{"schema": "cephbench.runs/1"}]},
            "not a cephbench.run/1",
        ),
    ],
)
def test_reader_refuses_what_it_cannot_read_by_name(doc, message):
    with pytest.raises(ParseError, match=re.escape(message)):
        load_runs(doc)


def _recorded_outputs() -> list:
    """Every recorded tool output in tests/data (not expectations, not provenance notes)."""
    files = [p for tool in ("fio", "rados-bench", "iperf3") for p in (DATA / tool).rglob("*")]
    files += list((DATA / "ceph").rglob("osd-bench*"))
    return sorted(
        p
        for p in files
        if p.suffix in (".txt", ".json", ".md")
        and p.is_file()
        and not p.name.endswith(("expected.json", ".source.md"))
    )


@pytest.mark.parametrize("path", _recorded_outputs(), ids=lambda p: str(p.relative_to(DATA)))
def test_every_recorded_output_imports_to_a_valid_plan(invoke_json, path):
    plan = invoke_json("import", str(path), "--dry-run")  # validated on the way
    assert plan["runs"] and all(r["id"] is None for r in plan["runs"])
