"""CephFS's pure parts: the lab's MDS readiness, ``fs dump`` and mountinfo parsed from real
recordings (tests/data/ceph/16.2.15/cephfs.source.md), the target's location and errors,
and the metadata suite's job file on a target's tree."""

from __future__ import annotations

import json

import pytest

from cephbench.ceph.cephfs import (
    fs_summaries,
    kernel_argv,
    mount_error,
    mount_of,
    parse_mountinfo,
    pick_filesystem,
    with_pools,
)
from cephbench.ceph.connection import Connection
from cephbench.errors import TargetError, UsageError
from cephbench.lab import mds
from cephbench.lab.spec import LabSpec
from cephbench.system.process import ProcessResult
from cephbench.targets.cephfs import parse_location
from cephbench.tools.fio.plan import METADATA_FORMAT, dirs_to_make, make_fio_plan
from cephbench.tools.fio.suites import load_suite
from cephbench.tools.plan import Overrides
from tests.helpers import DATA

CEPH = DATA / "ceph" / "16.2.15"


def _dump() -> dict:
    return json.loads((CEPH / "fs-dump-cephfs-lab.json").read_text())


def test_fs_dump_of_the_lab():
    (fs,) = fs_summaries(_dump())
    assert fs["name"] == "lab" and fs["max_mds"] == 1 and fs["standby"] == 0
    assert fs["ranks"] == [{"rank": 0, "name": "a", "state": "up:active"}] and fs["active"] == 1
    assert (fs["metadata_pool"], fs["data_pools"]) == (1, [2])
    pools = {
        1: {"pool_name": "cephfs.lab.meta", "size": 3, "min_size": 2, "pg_num": 16},
        2: {"pool_name": "cephfs.lab.data", "size": 3, "min_size": 2, "pg_num": 32},
    }
    detailed = with_pools(fs, pools)
    assert detailed["metadata_pool"]["name"] == "cephfs.lab.meta"
    assert detailed["data_pools"][0] == {
        "id": 2,
        "name": "cephfs.lab.data",
        "size": 3,
        "min_size": 2,
        "pg_num": 32,
        "crush_rule": None,
    }


def test_filesystem_errors_are_one_line_each():
    summaries = fs_summaries(_dump())
    assert pick_filesystem(summaries, "lab")["name"] == "lab"
    with pytest.raises(TargetError, match="no CephFS filesystem named other") as e:
        pick_filesystem(summaries, "other")
    assert "lab" in (e.value.hint or "")
    with pytest.raises(TargetError, match="has no CephFS filesystem") as e:
        pick_filesystem([], "lab", lab=True)
    assert "lab up --cephfs" in (e.value.hint or "")
    no_mds = [{**summaries[0], "active": 0, "ranks": []}]
    with pytest.raises(TargetError, match="no active MDS"):
        pick_filesystem(no_mds, "lab")


def _failed(stderr: str) -> ProcessResult:
    return ProcessResult(("ceph-fuse",), 1, "", stderr, 0.1)


def test_mount_errors_say_ceph_fuses_reason():
    # what ceph-fuse 16.2.15 printed in the lab for each case
    no_path = "ceph-fuse[2715]: starting ceph client\nceph-fuse[2715]: ceph mount failed with (2) No such file or directory\n"
    assert mount_error(_failed(no_path), "lab", "/nope", "client.admin") == (
        "path /nope does not exist in CephFS lab"
    )
    caps = (
        '-1 client.4156 mds.0 rejected us (client doesn\'t have caps for FS "lab")\n'
        "ceph-fuse[2750]: ceph mount failed with (1) Operation not permitted\n"
    )
    assert "client.nocaps has no MDS caps for CephFS lab" in mount_error(
        _failed(caps), "lab", "/", "client.nocaps"
    )
    other = "ceph-fuse[1]: ceph mount failed with (110) Connection timed out\n"
    assert mount_error(_failed(other), "lab", "/", "client.admin") == (
        "ceph-fuse could not mount CephFS lab: Connection timed out"
    )


def test_mountinfo_of_a_ceph_fuse_mount():
    mounts = parse_mountinfo((CEPH / "mountinfo-ceph-fuse.txt").read_text())
    fuse = mount_of("/tmp/mi/some/dir", mounts)
    assert fuse is not None and fuse.is_cephfs and fuse.client == "ceph-fuse"
    assert fuse.mountpoint == "/tmp/mi" and fuse.options == "rw,nosuid,nodev,relatime"
    assert "allow_other" in fuse.super_options
    proc = mount_of("/proc/1", mounts)
    assert proc is not None and not proc.is_cephfs


@pytest.mark.parametrize(
    ("location", "expected"),
    [("lab", ("lab", "/")), ("myfs/some/dir", ("myfs", "/some/dir")), ("fs/", ("fs", "/"))],
)
def test_cephfs_locations(location, expected):
    assert parse_location(location) == expected


@pytest.mark.parametrize("location", ["/abs", "fs/../etc", "bad name"])
def test_bad_cephfs_locations(location):
    with pytest.raises(TargetError, match="is not FSNAME"):
        parse_location(location)


def test_lab_mds_ready_only_with_an_active_rank_and_its_pools_reported():
    active = {"fsmap": {"by_rank": [{"rank": 0, "status": "up:active"}]}}
    assert mds.not_ready({**active, "pgmap": {"num_pgs": 48}}) is None
    # the manager a report behind: the filesystem's 48 PGs not in its map yet
    assert "(0 of 48 PGs)" in (mds.not_ready({**active, "pgmap": {"num_pgs": 0}}) or "")
    assert "manager's report" in (mds.not_ready(active) or "")
    waiting = mds.not_ready({"fsmap": {"by_rank": [{"rank": 0, "status": "up:creating"}]}})
    assert waiting is not None and "up:creating" in waiting
    assert "no MDS" in (mds.not_ready({}) or "")
    entry = mds.status_entry(
        {"fsmap": {"by_rank": [{"rank": 0, "name": "a", "status": "up:active"}]}},
        [{"name": "lab", "metadata_pool": mds.META_POOL, "data_pools": [mds.DATA_POOL]}],
    )
    assert entry["exists"] and entry["ranks"] == [{"rank": 0, "name": "a", "state": "up:active"}]


def test_lab_spec_cephfs_makes_pools_and_filesystem():
    assert not LabSpec().cephfs and LabSpec(cephfs=True).cephfs
    lines = mds.setup_commands()
    assert f"fs new {mds.FS_NAME} {mds.META_POOL} {mds.DATA_POOL}" in lines


def test_metadata_suite_creates_stats_deletes_the_same_files_in_the_tree():
    spec = load_suite("metadata")
    engines = [w.options["ioengine"] for w in spec.workloads]
    assert engines == ["filecreate", "filestat", "filedelete"] * 2
    plan = make_fio_plan("metadata", Overrides())
    assert plan.metadata
    jf = plan.for_target({"filename": "/x/cephbench-1.dat"}, tree="/x/cephbench-1.d")
    assert jf.global_.get("filename_format") == METADATA_FORMAT
    assert not jf.global_.has("filename")
    dirs = [jf.merged(j)["directory"] for j in jf.jobs]
    assert dirs[:3] == ["/x/cephbench-1.d/dir0"] * 3  # the creates' files for the stats, deletes
    assert dirs[3] == ":".join(f"/x/cephbench-1.d/dir{i}" for i in range(4))
    assert dirs_to_make(jf) == [f"/x/cephbench-1.d/dir{i}" for i in range(4)]
    with pytest.raises(UsageError, match="need a directory target"):
        plan.for_target({"ioengine": "rbd", "pool": "p", "rbdname": "i"})


def test_kernel_mount_argv():
    conn = Connection(conf="/etc/ceph/ceph.conf", id="bench", keyring="/k")
    assert kernel_argv(conn, "myfs", "/dir", "/mnt/x") == [
        "mount",
        "-t",
        "ceph",
        "bench@.myfs=/dir",
        "/mnt/x",
        "-o",
        "name=bench,fs=myfs,conf=/etc/ceph/ceph.conf",
    ]


def test_the_note_of_a_mount_that_refused_fallocate():
    """The probe's output as kept on a Tentacle lab's ceph-fuse mount (20.2.4, Debian's
    testing suite; tests/releases/test_release_cephfs.py makes it)."""
    from cephbench.cli.show import fallocate_note

    output = {"stderr": "fallocate: fallocate failed: Operation not supported\n"}
    assert fallocate_note(output) == (
        "Files: the mount refused fallocate(2) (fallocate: fallocate failed: Operation not "
        "supported), so fio ran with fallocate=none: its files were laid out by writing them."
    )
    assert "(no reason given)" in fallocate_note({"stderr": ""})
