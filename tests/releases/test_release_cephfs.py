"""CephFS on a lab of Reef and of Tentacle: the release's ceph-fuse mounts inside the lab's
view of its root (where this machine's fio reaches it), the metadata suite counts exactly,
and Ctrl-C before and during a workload, and a kill followed by ``cephbench cleanup``, leave
no mount, ceph-fuse, directory or record behind."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from cephbench.ceph import cephfs
from cephbench.store import Store
from tests.helpers import META_SMALL, fuse_daemons, wait_for
from tests.interrupt_lab import query, start


def _mounts(lab) -> list[str]:
    """cephbench's CephFS mounts in this lab's view (the other release's worker has its own)."""
    view = lab.tools.prefix[1]
    return [
        m.mountpoint
        for m in cephfs.mounts()
        if m.mountpoint.startswith(f"{view}/") and "cephbench-cephfs-" in m.mountpoint
    ]


def _recorded_mountpoints(db: Path) -> list[str]:
    """The mountpoints this test's runs recorded (this test's own objects, nobody else's)."""
    return [row[0] for row in query(db, "SELECT name FROM resources WHERE kind = 'cephfs_mount'")]


def _nothing_left(lab, db: Path) -> None:
    assert _mounts(lab) == []
    made = _recorded_mountpoints(db)
    assert made  # the run did mount
    wait_for(lambda: not fuse_daemons(*made), "ceph-fuse daemons to exit", timeout=30)
    assert [m for m in made if Path(m).exists() or Path(f"{m}.pid").exists()] == []
    with Store(db) as s:
        assert s.open_resources() == []


def test_metadata_suite_on_cephfs_counts_exactly(in_rlab, invoke, invoke_json, tmp_path, db):
    suite = tmp_path / "meta.yaml"
    suite.write_text(META_SMALL)
    invoke("run", str(suite), "--target", "cephfs:lab")
    run = invoke_json("show", "last")
    assert {r["workload"]: r["total_ios"] for r in run["results"]} == {
        "create": 400,
        "stat": 400,
        "delete": 400,
    }
    release = run["cluster"]["ceph_version"].split("(")[1].rstrip(")")
    version = run["environment"]["target"]["cephfs"]["client_version"]  # the root's ceph-fuse
    assert version.startswith("ceph version " + {"reef": "18.", "tentacle": "20."}[release])
    _nothing_left(in_rlab, db)


@pytest.mark.parametrize("how", ["ctrl-c mounted", "ctrl-c", "kill"])
def test_interrupted_or_killed_on_cephfs_leaves_nothing(in_rlab, db, how):
    run = start(db, in_rlab, "quick", "--target", "cephfs:lab", "--runtime", "3", "--size", "16m")
    try:
        if how == "ctrl-c mounted":  # mounted, its directory made, fio not started yet
            run.wait_for(lambda: run.resource("cephfs_dir"))
        else:
            run.wait_for(lambda: run.child("fio", "job.fio"))
        assert _mounts(in_rlab)
        run.proc.send_signal(signal.SIGKILL if how == "kill" else signal.SIGINT)
        _out, err = run.proc.communicate(timeout=120)
    finally:
        if run.proc.poll() is None:
            run.proc.kill()
    if how != "kill":
        assert run.proc.returncode == 130 and "Traceback" not in err
    else:
        wait_for(lambda: not run.child("fio"), "fio to stop")
        assert _mounts(in_rlab)  # a kill leaves the mount, in the lab's view of its root...
        env = {**os.environ, "CEPHBENCH_DB": str(db)}
        cephbench = run.proc.args[0]
        cleaned = subprocess.run(
            [cephbench, "cleanup"], env=env, capture_output=True, text=True, check=True
        )
        assert "removed cephfs_dir" in cleaned.stdout and "removed cephfs_mount" in cleaned.stdout
    _nothing_left(in_rlab, db)


WRITE_JOB = """[global]
ioengine=psync
size=16m
bs=1m
[write]
rw=write
"""


def test_a_mount_that_refuses_fallocate_runs_fio_with_fallocate_none(
    in_rlab, invoke, invoke_json, tmp_path, db
):
    """Tentacle's ceph-fuse refuses fallocate(2) (its release notes; tried here: "Operation not
    supported"): the run tries it first, tells fio fallocate=none, keeps the probe's output and
    says so. Reef's ceph-fuse takes it: fio keeps its default, and nothing is kept or said."""
    job = tmp_path / "write.fio"
    job.write_text(WRITE_JOB)
    shown = invoke("run", str(job), "--target", "cephfs:lab")
    rows = query(db, "SELECT tool, argv, input_text, stderr FROM outputs ORDER BY id")
    probes = [r for r in rows if r[0] == "fallocate-probe"]
    [fio] = [r for r in rows if r[0] == "fio"]
    given = f"{fio[1]}\n{fio[2]}"
    release = invoke_json("show", "last")["cluster"]["ceph_version"].split("(")[1].rstrip(")")
    if release == "tentacle":
        [probe] = probes
        assert "Operation not supported" in probe[3]
        assert "fallocate=none" in given
        assert (
            "Files: the mount refused fallocate(2) (fallocate: fallocate failed: Operation "
            "not supported), so fio ran with fallocate=none" in shown.output.replace("\n", " ")
        )
    else:
        assert probes == [] and "fallocate" not in given and "fallocate" not in shown.output
    _nothing_left(in_rlab, db)
