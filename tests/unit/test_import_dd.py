"""Issue 25, import item 5a: GNU dd's own summary imports, every form coreutils printed, the
rate exactly bytes / seconds (never dd's rounded MB/s), the command line's operands kept.
Recorded outputs: tests/data/dd/ (corpus, with figures by hand in their .source.md)."""

from __future__ import annotations

import pytest

from cephbench.importing import importer
from cephbench.tools.dd import paste
from tests.helpers import DATA

DD = DATA / "dd"
OLD = "4294967296 bytes (4.3 GB) copied, 22.2571 s, 193 MB/s\n"
NEW = "4294967296 bytes (4.3 GB, 4.0 GiB) copied, 22.2571 s, 193 MB/s\n"


@pytest.mark.parametrize(
    "line",
    [OLD, NEW, "4294967296 bytes (4,3 GB, 4,0 GiB) copied, 22,2571 s, 193 MB/s\n"],
    ids=["before-8.24", "8.24-on", "comma-locale"],
)
def test_each_summary_form_is_bytes_over_seconds(line):
    (p,) = importer.plan("dd.txt", line, None)
    (r,) = p.as_run().results
    assert r.io_bytes == 4294967296 and r.runtime_s == 22.2571
    assert r.bw_bytes_per_s == 4294967296 / 22.2571
    assert p.found.parser == "dd"


def test_under_a_kilobyte_has_no_parentheses():
    (p,) = importer.plan("dd.txt", "1+0 records out\n512 bytes copied, 0.0001 s, 5.1 MB/s\n", None)
    (r,) = p.as_run().results
    assert (r.io_bytes, r.total_ios, r.bw_bytes_per_s) == (512, 1, 512 / 0.0001)


def test_the_command_line_gives_direction_block_size_and_parameters():
    (p,) = importer.plan("w.txt", (DD / "9.1" / "write-fdatasync.txt").read_text(), None)
    (r,) = p.as_run().results
    assert (r.op, r.bs, r.total_ios) == ("write", 4194304, 64)
    assert p.as_run().params == {
        "dd": {
            "write": {
                "if": "/dev/zero",
                "of": "/tmp/hi/ddw/test.img",
                "bs": "4M",
                "count": "64",
                "conv": "fdatasync",
            }
        }
    }
    assert p.warnings == ()


def test_of_dev_null_is_a_read():
    (p,) = importer.plan("r.txt", (DD / "9.1" / "read-devnull.txt").read_text(), None)
    (r,) = p.as_run().results
    assert (r.op, r.bs) == ("read", 1048576)


def test_a_command_line_in_the_block_above_is_used():
    post = "```\n$ dd if=/dev/vdb of=/dev/null bs=4M iflag=direct\n```\n\n```\n" + NEW + "```\n"
    (p,) = importer.plan("post.md", post, None)
    (r,) = p.as_run().results
    assert (r.op, r.bs) == ("read", 4194304)
    assert p.as_run().params["dd"]["read"]["iflag"] == "direct"


def test_raw_disk_and_vm_volume_are_two_runs():
    text = (
        "# dd if=/dev/zero of=/dev/sdb bs=4M count=1024 oflag=direct\n"
        + OLD
        + "# dd if=/dev/zero of=/mnt/vol/test bs=4M count=1024 conv=fdatasync\n"
        + OLD
    )
    runs = importer.plan("lab.txt", text, None)
    assert [p.as_run().params["dd"]["write"]["of"] for p in runs] == ["/dev/sdb", "/mnt/vol/test"]


def test_without_a_command_line_it_is_a_write_with_a_warning():
    (p,) = importer.plan("2014.txt", (DD / "2014" / "lab-writeup.txt").read_text(), None)
    assert p.warnings == ("write: no command line: stored as a write (what dd copies into of=)",)


@pytest.mark.parametrize(
    ("text", "size"), [("4M", 4 << 20), ("1k", 1024), ("512", 512), ("1MB", 10**6), ("2b", 1024)]
)
def test_dd_sizes(text, size):
    assert paste.size(text) == size
