"""A Ceph run on the real lab moves between stores whole: its cluster (fingerprint and
summary), health samples and prefill come back with its figures."""

from __future__ import annotations

import json
from pathlib import Path

from tests.contract import validate
from tests.helpers import invoke, shown, without_bookkeeping


def test_a_run_on_rbd_exports_and_imports_with_its_cluster(lab, monkeypatch, db, tmp_path):
    monkeypatch.setenv("CEPHBENCH_LAB_DIR", str(lab.dir))
    invoke("run", "quick", "--runtime", "1", "--size", "64m", "--label", "rbd", db=db)
    path, fresh = tmp_path / "rbd.json", tmp_path / "fresh.db"
    invoke("export", "last", "-o", str(path), db=db)
    run = validate(json.loads(Path(path).read_text()))["runs"][0]
    assert {"cluster", "health_samples", "prefill", "fingerprint"} <= set(run)
    invoke("import", str(path), db=fresh)
    before, after = shown(db, "last", "--raw"), shown(fresh, "last", "--raw")
    assert without_bookkeeping(after) == without_bookkeeping(before)
    assert after["cluster"]["ceph_version"] and after["health_samples"] and after["prefill"]
    cluster = validate(
        json.loads(invoke("show", "last", "--cluster", "--format", "json", db=fresh).stdout)
    )
    assert cluster["fingerprint"] == run["fingerprint"]["data"]
