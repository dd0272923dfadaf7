"""``run --clients lab`` on ``cephfs:lab``: every client host mounts the filesystem itself
(ceph-fuse over ssh) and works in a directory of its own, or with ``--shared-dir`` in the
run's one directory; afterwards, and after a kill then ``cleanup``, no mount, ceph-fuse or
directory is left on any host."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from cephbench.store import Store
from tests.helpers import assert_own_mounts_gone, fuse_daemons, own_mountpoints
from tests.interrupt_lab import start
from tests.lab.test_cephfs_lab import _fs_root


@pytest.fixture
def in_lab(lab_cephfs_hosts, monkeypatch):
    monkeypatch.setenv("CEPHBENCH_LAB_DIR", str(lab_cephfs_hosts.dir))
    return lab_cephfs_hosts


def _assert_nothing_left(lab, tmp_path: Path, db: Path) -> None:
    assert_own_mounts_gone(db)  # the hosts share /tmp: their mount points are these too
    assert [n for n in _fs_root(lab, tmp_path) if n.startswith("cephbench-")] == []
    with Store(db) as s:
        assert s.open_resources() == []


ONE_WRITE = "[seq_wr]\nrw=write\nbs=1M\ntime_based=1\nruntime=1\n"
"""One workload is enough: what is checked is where each client's files go, not the suite."""


@pytest.mark.parametrize("shared", [False, True])
def test_each_client_mounts_and_nothing_is_left(in_lab, invoke, invoke_json, db, tmp_path, shared):
    jobs = tmp_path / "one.fio"
    jobs.write_text(ONE_WRITE)
    args = ["--clients", "lab", "--size", "8m", *(["--shared-dir"] if shared else [])]
    invoke("run", str(jobs), "--target", "cephfs:lab", *args)
    run = invoke_json("show", "last")
    assert run["status"] == "complete" and run["params"]["clients"] == ["host0", "host1"]
    assert [r["workload"] for r in run["results"]] == ["seq_wr"]
    with Store(db) as s:
        text = s.outputs(run["id"])[0]["input_text"]
    if shared:
        assert f"cephbench-{run['id']}-host0.dat" in text and "client-host0" not in text
    else:
        assert "client-host0/" in text and "client-host1/" in text
    _assert_nothing_left(in_lab, tmp_path, db)


def test_kill_then_cleanup_unmounts_every_host(in_lab, db, tmp_path):
    run = start(
        db,
        in_lab,
        "quick",
        "--target",
        "cephfs:lab",
        "--clients",
        "lab",
        "--runtime",
        "3",
        "--size",
        "8m",
    )
    try:
        run.wait_for(lambda: run.child("fio", "--client="))  # with every host mounted
        own = own_mountpoints(db)  # this machine's and each client host's
        assert len(own) == 3 and len(fuse_daemons(*own)) == 3
        run.proc.send_signal(signal.SIGKILL)
        run.proc.communicate(timeout=60)
    finally:
        if run.proc.poll() is None:
            run.proc.kill()
    env = {**os.environ, "CEPHBENCH_DB": str(db)}
    cephbench = run.proc.args[0]
    subprocess.run([cephbench, "runs"], env=env, capture_output=True, check=True)
    cleaned = subprocess.run([cephbench, "cleanup"], env=env, capture_output=True, text=True)
    assert cleaned.returncode == 0, cleaned.stderr
    assert cleaned.stdout.count("removed remote_cephfs_mount") == 2
    _assert_nothing_left(in_lab, tmp_path, db)
