"""`cephbench tune` end to end on the shared one-host lab, on a misconfiguration with a large
effect: debug logging left on in the OSDs (`lab fault debug-logging`: debug_osd and
debug_bluestore 20/20). The diagnosis names it, the one remedy that answers it
(osd-debug-off) is tried and kept, and afterwards `ceph config dump` and every pool's
properties are what they were before the tune, byte for byte (the fault's entries back):
``--keep`` leaves only the kept change, and ``tune revert`` puts it back.

Short and far above noise: one 2 s workload, 4k random reads at QD32 of one image written
once beforehand (a round is fio alone), 24 fixed rounds per experiment. Recorded on this lab
with the machine at load 7-16 from other labs (tests/data/tune/), debug logging at 20 cut
those reads to between a half and a sixth: per-block ratios without it 2.7, 2.5, 3.3; 3.5,
1.8; 1.97, 3.33, 6.43, 1.79. Always far above 1, but spread (a log-ratio SD of about 0.6),
so 4 blocks left the Bonferroni-corrected interval across 0 ([-13.5 %, +905 %] around
+195 %); with 8 blocks the first passing run kept it at +114.7 % [+14.2, +303.6] and measured
the final against the first at +144.9 % [+63.3, +267.2] (13 min at load 9-13). Beside the
release tier (load 10-13) 16 rounds gave +140 % to +159 %, lower CI bounds +73 % to +106 %
(a log-ratio SD of about 0.33). Yet one CI run kept nothing with 16 rounds (its figures were
not printed; a failure now prints them). A t-test of 8 blocks is undone by one block whose
fast round a burst of the machine's other work cut to a third: t 2.47 against the corrected
2.84. 12 blocks still call that better (t 4.2 against 2.59), hence 24 rounds; and a fault
now counts as made once every OSD runs with it. Random writes at QD32 swung from -54 % to
+71 % between blocks, so the suite holds the reads alone; the guard on other workloads is
tested on recorded and hand-made rounds (tests/unit/test_tune_*.py). A tune killed while an
attempt's change is in effect leaves it for `cephbench cleanup`, which puts the configuration
back as it was and marks the tune aborted."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from cephbench.lab import ceph_json, ensure_pool
from cephbench.lab.ceph import ceph
from cephbench.lab.faults import injected
from cephbench.lab.info import LabInfo
from cephbench.system.process import run
from tests.contract import validate
from tests.helpers import CEPHBENCH, invoke, wait_for

POOL, IMAGE = "cb-tune", "img"
TARGET = ["--target", f"rbd:{POOL}/{IMAGE}"]
SMALL = """name: small
description: 4k random reads at iodepth 32 for 2 s
global: {time_based: true, runtime: 2, size: 64M}
workloads:
  - {name: rand_rd, rw: randread, bs: 4k, iodepth: 32}
"""


def config_dump(lab: LabInfo) -> str:
    return ceph(lab, "config", "dump", "-f", "json").stdout


def pool_properties(lab: LabInfo) -> dict[str, str]:
    """Every pool's properties (``osd pool get POOL all``), as printed."""
    return {
        p: ceph(lab, "osd", "pool", "get", p, "all", "-f", "json").stdout
        for p in ceph_json(lab, "osd", "pool", "ls")
    }


@pytest.fixture
def image(lab: LabInfo) -> Iterator[None]:
    """One 64 MiB image, written once, that every round reads: a round is fio alone."""
    ensure_pool(lab, POOL, pg_num=8)
    rbd = ["rbd", "-p", POOL]
    run([*rbd, "create", IMAGE, "--size", "64M"], env=lab.env, check=True, timeout=60)
    try:
        write = ["bench", "--io-type", "write", "--io-size", "4M", "--io-total", "64M", IMAGE]
        run([*rbd, *write], env=lab.env, check=True, timeout=120)
        yield
    finally:
        run([*rbd, "rm", IMAGE], env=lab.env, check=True, timeout=120)


@pytest.fixture
def small(tmp_path: Path) -> str:
    suite = tmp_path / "small.yaml"
    suite.write_text(SMALL)
    return str(suite)


@pytest.mark.timeout(1200)  # 24 rounds of 4-15 s (a busy machine), a diagnosis, the revert
def test_tune_keeps_the_remedy_for_debug_logging_and_revert_puts_everything_back(
    lab: LabInfo, db: Path, image: None, small: str, monkeypatch, tmp_path: Path
):
    monkeypatch.setenv("CEPHBENCH_LAB_DIR", str(lab.dir))
    with injected(lab, "debug-logging", "cluster"):
        before, pools = config_dump(lab), pool_properties(lab)
        assert '"debug_osd","value":"20/20"' in before.replace(" ", "")
        monkeypatch.setenv("COLUMNS", "80")  # the plan as blocks: a change a line, 80 columns
        plan = invoke("tune", "--suite", small, *TARGET, "--dry-run", db=db).stdout
        assert "attempt 2: osd-debug-off (answers osd.debug_logging" in plan
        assert "\n    ceph config rm osd debug_osd\n" in plan
        assert max(map(len, plan.splitlines())) <= 80, plan
        assert config_dump(lab) == before  # a plan changes nothing
        monkeypatch.delenv("COLUMNS")
        out = invoke(
            "tune", "--suite", small, *TARGET, "--rounds", "24", "--keep", "--format", "json", db=db
        ).stdout
        doc = validate(json.loads(out))
        kept = config_dump(lab)  # only the kept changes are left: the debug entries removed
        why = json.dumps({k: doc.get(k) for k in ("findings", "candidates", "attempts")})
        assert kept != before and "debug_osd" not in kept and "debug_bluestore" not in kept, why
        invoke("tune", "revert", str(doc["tune"]), db=db)
        assert config_dump(lab) == before
        assert {p: v for p, v in pool_properties(lab).items() if p in pools} == pools
        invoke("tune", "revert", str(doc["tune"]), db=db)  # twice: nothing left to revert
        assert config_dump(lab) == before
    assert [f["code"] for f in doc["findings"]].count("osd.debug_logging") == 1
    tried = [c for c in doc["candidates"] if c["attempt"]]
    assert [c["remedy"] for c in tried] == ["osd-debug-off"]
    first, attempt, final = doc["attempts"]
    assert first["attempt"] == 1 and first["kept"] is None
    assert attempt["remedy"] == "osd-debug-off" and attempt["kept"] is True
    assert attempt["verdict"] == "better"
    assert final["final"] and final["verdict"] == "better"
    # one change kept: its own experiment (against the first) is the final row, not a second
    assert final["experiment"] == attempt["experiment"]
    assert doc["kept_changes"] == attempt["changes"]
    assert [k["change"] for k in doc["kept"]] == attempt["changes"]
    assert all(k["revert"] == f"cephbench tune revert {doc['tune']}" for k in doc["kept"])
    assert doc["status"] == "complete"
    # its report: the attempts table and chart first, then the final experiment's rounds
    md = tmp_path / "tune.md"
    invoke("report", "--tune", str(doc["tune"]), "-o", str(md), db=db)
    text = md.read_text()
    assert (
        text.startswith(f"# Tune {doc['tune']}: ")
        and f"## The attempts of tune {doc['tune']}" in text
    )
    assert "1 change tried, 1 kept (osd-debug-off); the final against the first: better" in text
    assert (
        "better (rand\\_rd +" in text
        and "**\n\n![IOPS per attempt](tune_files/tune-attempts.png)" in text
    )
    assert (tmp_path / "tune_files" / "tune-attempts.png").stat().st_size > 0
    assert f"rounds of experiment {final['experiment']} (the final configuration" in text
    assert "(Welch's test).\n\n## Summary" in text  # the report's own sections after it
    html = tmp_path / "tune.html"
    invoke("report", "--tune", str(doc["tune"]), "-o", str(html), db=db)
    assert 'aria-label="IOPS per attempt"><svg' in html.read_text().replace("\n", "")


@pytest.mark.timeout(900)
def test_cleanup_puts_back_what_a_killed_tune_changed(
    lab: LabInfo, db: Path, image: None, small: str
):
    env = {**os.environ, "CEPHBENCH_DB": str(db), "CEPHBENCH_LAB_DIR": str(lab.dir)}
    with injected(lab, "debug-logging", "cluster"):
        before = config_dump(lab)
        proc = subprocess.Popen(
            [*CEPHBENCH, "tune", "--suite", small, *TARGET, "--rounds", "16"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:

            def changed() -> bool:
                assert proc.poll() is None, proc.communicate()[1]
                return config_dump(lab) != before

            wait_for(changed, "an attempt's change in effect", timeout=600, poll=0.5)
        finally:
            proc.kill()
            proc.communicate(timeout=60)
        assert config_dump(lab) != before  # nothing ran to put it back
        out = invoke("cleanup", db=db).output
        assert "tune 1 was interrupted; marked aborted" in out, out
        assert config_dump(lab) == before  # the fault's entries back, byte for byte
        with sqlite3.connect(db) as conn:
            query = "SELECT kind, name FROM resources WHERE removed_at IS NULL"
            assert conn.execute(query).fetchall() == []
            assert conn.execute("SELECT status FROM tunings").fetchall() == [("aborted",)]
