"""A read served from the page cache is flagged, on a real file system on a real loop device
whose backing file is on this machine's disk: the device behind the file (the backing file's,
the loop device running with direct I/O so it does not cache either) is read before and
after each workload and set against what fio read."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from cephbench.execution.behind import Devices, for_path
from cephbench.store import Store
from tests.helpers import needs_fio, needs_root

pytestmark = [needs_root, needs_fio, pytest.mark.root]

# fio drops a file's cached pages before each pass over it (invalidate=1, its default), so
# the buffered re-read keeps them (invalidate=0) as a program reading its data again would.
# The buffered re-read first: a window that ran into the direct read's device reads would
# hide its cache, so this also checks each chained workload is read at its own boundaries
JOBS = """\
[global]
ioengine=psync
bs=128k
size=16m
runtime=1
time_based=1

[buffered_rd]
rw=read
direct=0
invalidate=0

[direct_rd]
stonewall
rw=read
direct=1
ioengine=libaio
iodepth=4
"""


@pytest.fixture
def loop_fs(tmp_path):
    """An ext4 file system on a 128 MiB loop device (direct I/O to its backing file on this
    machine's disk), mounted; unmounted and detached afterwards whatever happens."""
    if shutil.which("losetup") is None or shutil.which("mkfs.ext4") is None:
        pytest.skip("losetup and mkfs.ext4 are needed")
    backing = tmp_path / "disk.img"
    with open(backing, "wb") as f:
        f.truncate(128 * 2**20)
    dev = subprocess.run(
        ["losetup", "--find", "--show", "--direct-io=on", str(backing)],
        capture_output=True,
        text=True,
    )
    if dev.returncode != 0:
        pytest.skip(f"no loop devices here: {dev.stderr.strip()}")
    device = dev.stdout.strip()
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    try:
        subprocess.run(["mkfs.ext4", "-q", "-F", device], check=True)
        subprocess.run(["mount", device, str(mnt)], check=True)
        try:
            yield device, mnt
        finally:
            subprocess.run(["umount", str(mnt)], check=False)
    finally:
        subprocess.run(["losetup", "--detach", device], check=False)


def test_a_page_cache_read_is_flagged_a_direct_read_is_not(
    invoke, invoke_json, loop_fs, tmp_path, db
):
    device, mnt = loop_fs
    behind = for_path(str(mnt))
    loop = Path(device).name
    assert isinstance(behind, Devices) and loop not in behind.leaves  # the disk under it
    assert f"behind {loop}" in behind.name
    jobs = tmp_path / "reads.fio"
    jobs.write_text(JOBS)
    invoke("run", str(jobs), "--target", f"file:{mnt}")
    run = invoke_json("show", "last")
    assert run["status"] == "complete"
    got = {r["workload"]: r for r in run["results"]}
    buffered, direct = got["buffered_rd"], got["direct_rd"]
    assert "cached" in buffered["flags"], buffered
    assert "cached" not in direct["flags"], direct
    # the figures are fio's; what the device served is beside them
    assert buffered["metrics"]["served_read_ratio"] < 0.5
    assert direct["metrics"]["served_read_ratio"] >= 0.5
    assert direct["metrics"]["served_read_bytes"] >= 0.5 * direct["io_bytes"]
    with Store(db) as store:
        records = {v["workload"]: v for s in store.series(run["id"], "served") for v in s.values}
    assert records["buffered_rd"]["window"] == ["buffered_rd"]  # its own boundaries
    assert records["buffered_rd"]["cache"] == "this machine's page cache"
    assert records["direct_rd"]["layer"] == behind.name
    print(
        f"buffered: fio read {buffered['io_bytes']:,} B, {behind.name} served "
        f"{records['buffered_rd']['served_read_bytes']:,} B; direct: fio read "
        f"{direct['io_bytes']:,} B, served {records['direct_rd']['served_read_bytes']:,} B"
    )


def test_a_file_on_tmpfs_has_no_device_behind_it(invoke, invoke_json, tmp_path):
    shm = Path("/dev/shm")
    if not shm.is_dir():
        pytest.skip("no /dev/shm here")
    d = shm / f"cephbench-test-{tmp_path.name}"
    d.mkdir()
    try:
        jobs = tmp_path / "read.fio"
        jobs.write_text(JOBS.split("[direct_rd]")[0])
        invoke("run", str(jobs), "--target", f"file:{d}")
        [result] = invoke_json("show", "last")["results"]
    finally:
        shutil.rmtree(d, ignore_errors=True)
    assert "no_device" in result["flags"] and "cached" not in result["flags"]
