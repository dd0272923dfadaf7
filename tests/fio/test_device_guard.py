"""A device that holds data is refused unless --destroy-data names exactly that device."""

from __future__ import annotations

import shutil
import subprocess

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
