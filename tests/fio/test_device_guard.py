"""A device that holds data is refused unless --destroy-data names exactly that device."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import needs_fio, needs_root

pytestmark = [needs_root, needs_fio, pytest.mark.root]


@pytest.fixture
def loop_device(tmp_path):
    """A 64 MiB loop device, detached afterwards whatever happens."""
    if shutil.which("losetup") is None:
        pytest.skip("losetup is not installed")
    backing = tmp_path / "disk.img"
    with open(backing, "wb") as f:
        f.truncate(64 * 2**20)
    dev = subprocess.run(
        ["losetup", "--find", "--show", str(backing)], capture_output=True, text=True
    )
    if dev.returncode != 0:
        pytest.skip(f"no loop devices here: {dev.stderr.strip()}")
    device = dev.stdout.strip()
    try:
        yield device
    finally:
        subprocess.run(["losetup", "--detach", device], check=False)


def _run(invoke, device, *extra, expect):
    return invoke(
        "run",
        "quick",
        "--target",
        f"device:{device}",
        "--runtime",
        "1",
        "--size",
        "16m",
        *extra,
        expect=expect,
    )


def test_ext4_is_refused(invoke, invoke_json, loop_device):
    subprocess.run(["mkfs.ext4", "-q", "-F", loop_device], check=True)
    result = _run(invoke, loop_device, expect=1)
    assert "ext4 signature" in result.output and f"--destroy-data {loop_device}" in result.output
    assert invoke_json("runs")["runs"] == []
    assert subprocess.run(
        ["blkid", "-p", loop_device], capture_output=True, text=True
    ).stdout.count("ext4")


def test_destroy_data_must_name_this_device(invoke, loop_device):
    subprocess.run(["mkfs.ext4", "-q", "-F", loop_device], check=True)
    result = _run(invoke, loop_device, "--destroy-data", "/dev/loop-something-else", expect=1)
    assert "holds data" in result.output


def test_destroy_data_naming_the_device_allows_it(invoke, invoke_json, loop_device):
    subprocess.run(["mkfs.ext4", "-q", "-F", loop_device], check=True)
    _run(invoke, loop_device, "--destroy-data", loop_device, expect=0)
    assert invoke_json("show", "last")["status"] == "complete"


def test_partition_table_is_refused(invoke, loop_device):
    subprocess.run(["sfdisk", "-q", loop_device], input="label: gpt\n,,L\n", text=True, check=True)
    assert "partition table" in _run(invoke, loop_device, expect=1).output


def test_blank_device_is_used(invoke, invoke_json, loop_device):
    _run(invoke, loop_device, expect=0)
    run = invoke_json("show", "last")
    assert run["target"] == f"device:{loop_device}" and len(run["results"]) == 4


# A device in use is refused before anything starts, --destroy-data or not: fio never runs,
# no run is stored, and the message names the use.


def _refused_in_use(invoke, invoke_json, device, *words):
    result = _run(invoke, device, "--destroy-data", device, expect=1)
    assert f"{device} is in use" in result.output, result.output
    for word in words:
        assert word in result.output, result.output
    assert "--destroy-data or not" in result.output
    assert invoke_json("runs")["runs"] == []


def test_a_mounted_device_is_refused_even_with_destroy_data(
    invoke, invoke_json, loop_device, tmp_path
):
    subprocess.run(["mkfs.ext4", "-q", "-F", loop_device], check=True)
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    subprocess.run(["mount", loop_device, str(mnt)], check=True)
    try:
        _refused_in_use(invoke, invoke_json, loop_device, f"mounted on {mnt}")
    finally:
        subprocess.run(["umount", str(mnt)], check=True)


def test_the_root_filesystems_device_is_refused(invoke, invoke_json):
    """By device number: /proc/mounts may call it /dev/root, or a device with no partition."""
    number = os.stat("/").st_dev
    name = Path(f"/sys/dev/block/{os.major(number)}:{os.minor(number)}").resolve().name
    device = f"/dev/{name}"
    if not Path(device).exists():
        pytest.skip(f"/ is not on a block device here ({name})")
    _refused_in_use(invoke, invoke_json, device, "mounted on /")


def test_a_swap_device_is_refused(invoke, invoke_json, loop_device):
    subprocess.run(["mkswap", "-q", loop_device], check=True)
    on = subprocess.run(["swapon", loop_device], capture_output=True, text=True)
    if on.returncode != 0:
        pytest.skip(f"swapon is not allowed here: {on.stderr.strip()}")
    try:
        _refused_in_use(invoke, invoke_json, loop_device, f"swap on {loop_device}")
    finally:
        subprocess.run(["swapoff", loop_device], check=True)


def test_a_device_mapper_member_is_refused(invoke, invoke_json, loop_device):
    name = f"cb-test-{os.getpid()}"
    table = f"0 {64 * 2**20 // 512} linear {loop_device} 0"
    made = subprocess.run(["dmsetup", "create", name, "--table", table], capture_output=True)
    if made.returncode != 0:
        pytest.skip(f"device-mapper is not usable here: {made.stderr.decode().strip()}")
    try:
        _refused_in_use(invoke, invoke_json, loop_device, "a member of device-mapper", name)
    finally:
        subprocess.run(["dmsetup", "remove", name], check=True)


def test_a_device_a_process_has_locked_is_refused(invoke, invoke_json, loop_device):
    """As a running OSD's BlueStore flocks its block device."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); "
            "fcntl.flock(fd, fcntl.LOCK_EX); print('locked', flush=True); sys.stdin.read()",
            loop_device,
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        _refused_in_use(invoke, invoke_json, loop_device, f"(pid {holder.pid})")
    finally:
        holder.kill()
        holder.wait()
