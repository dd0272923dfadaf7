"""The diagnosis' load phases bounded by time, on outputs recorded from the lab
(``tests/data/ceph/16.2.15/diagnose-bounded.source.md``): a slow part ends the prefill and the
4 MiB ``osd bench`` early rather than making them longer, and the figures are the bytes each
wrote over its own time."""

from __future__ import annotations

import json

import pytest

from cephbench.diagnose.load import next_bench, summed
from cephbench.diagnose.session import DiagnoseOptions
from cephbench.diagnose.target import OBJECT_BYTES, QUICK_IMAGE, prefilled
from cephbench.tools.osd_bench import driver as osd_bench
from tests.helpers import DATA

REC = json.loads((DATA / "ceph" / "16.2.15" / "diagnose-bounded.json").read_text())
SLOW, HEALTHY = REC["slow_disk_osd1_150iops"], REC["healthy"]
MiB = 1 << 20


def _first(case: dict, osd: str) -> dict:
    return json.loads(case["osd_bench_4m"][osd][0])


def test_a_slow_disks_osd_writes_its_first_quarter_only():
    """osd.1 on a disk held to 150 IOPS wrote its first 4 MiB in 0.40 s: 16 MiB at that rate
    is 1.6 s, past the 1 s bound, so it writes no more; its peers' first 4 MiB took 0.01 s."""
    bound = DiagnoseOptions(quick=True).bench_large_seconds
    total = DiagnoseOptions(quick=True).bench_large_bytes
    slow = _first(SLOW, "1")
    assert (slow["bytes_written"], round(slow["elapsed_sec"], 2)) == (4 * MiB, 0.4)
    assert next_bench(total, 4 * MiB, 0, 0.0, bound) == slow["bytes_written"]
    assert next_bench(total, 4 * MiB, slow["bytes_written"], slow["elapsed_sec"], bound) == 0
    for osd in ("0", "2"):
        peer = _first(SLOW, osd)
        assert next_bench(total, 4 * MiB, 4 * MiB, peer["elapsed_sec"], bound) == 12 * MiB
    for osd in ("0", "1", "2"):  # healthy: every OSD writes the rest
        f = _first(HEALTHY, osd)
        assert next_bench(total, 4 * MiB, 4 * MiB, f["elapsed_sec"], bound) == 12 * MiB
    # what each OSD of the recorded runs did next, as the bound says
    assert [len(SLOW["osd_bench_4m"][o]) for o in ("0", "1", "2")] == [2, 1, 2]
    assert [len(HEALTHY["osd_bench_4m"][o]) for o in ("0", "1", "2")] == [2, 2, 2]


@pytest.mark.parametrize(
    ("total", "bs", "written", "elapsed", "bound", "size"),
    [
        (16 * MiB, 4 * MiB, 0, 0.0, 1.0, 4 * MiB),  # nothing written yet: the first quarter
        (4 * MiB, 4 * MiB, 0, 0.0, 1.0, 4 * MiB),  # at least one block
        (128 * MiB, 4 * MiB, 0, 0.0, 10.0, 32 * MiB),  # without --quick: 8 blocks first
        (16 * MiB, 4 * MiB, 4 * MiB, 0.25, 1.0, 12 * MiB),  # the whole ends at the bound: the rest
        (16 * MiB, 4 * MiB, 4 * MiB, 0.26, 1.0, 0),  # just past it: no more
        (4 * MiB, 4096, 0, 0.0, None, 4 * MiB),  # no bound (the 4 KiB bench): the whole at once
        (16 * MiB, 4 * MiB, 16 * MiB, 0.1, 1.0, 0),  # done
    ],
)
def test_next_bench(total, bs, written, elapsed, bound, size):
    assert next_bench(total, bs, written, elapsed, bound) == size


def test_two_benches_are_their_bytes_over_the_osds_own_time():
    """osd.0's quarter and rest (recorded, healthy) as one bench: 16 MiB over the two
    elapsed_sec the OSD printed, not the wall time of the two commands."""
    a, b = (json.loads(t) for t in HEALTHY["osd_bench_4m"]["0"])
    one = summed([a, b])
    elapsed = a["elapsed_sec"] + b["elapsed_sec"]
    assert one["bytes_written"] == 16 * MiB and one["elapsed_sec"] == pytest.approx(elapsed)
    assert one["bytes_per_sec"] == pytest.approx(16 * MiB / elapsed)
    assert one["iops"] == pytest.approx(4 / elapsed)
    r = osd_bench.from_data(one, "osd.0")
    assert (r.io_bytes, r.bs, r.total_ios) == (16 * MiB, 4 * MiB, 4)
    # one bench stays as the OSD printed it
    slow = _first(SLOW, "1")
    assert summed([slow]) == slow
    assert osd_bench.from_data(summed([slow]), "osd.1").bw_bytes_per_s == slow["bytes_per_sec"]


def test_releases_without_elapsed_sec_are_timed_by_their_rate():
    old = [{"bytes_written": 4 * MiB, "blocksize": 4 * MiB, "bytes_per_sec": 2 * MiB}] * 2
    assert summed(old)["elapsed_sec"] == pytest.approx(4.0)


def test_the_prefill_ends_at_its_bound_and_the_load_runs_on_what_it_wrote():
    """Under the slow disk the recorded prefill (bounded then at 0.5 s) wrote 17 objects of
    256 KiB; the healthy lab's wrote the whole 16 MiB image."""
    assert "--runtime=500ms" in SLOW["prefill_argv"] and "--bs=256K" in SLOW["prefill_argv"]
    assert prefilled(SLOW["prefill"], QUICK_IMAGE) == 17 * OBJECT_BYTES
    assert prefilled(HEALTHY["prefill"], QUICK_IMAGE) == QUICK_IMAGE


def test_a_prefill_fio_said_nothing_of_leaves_the_whole_image():
    assert prefilled("", QUICK_IMAGE) == QUICK_IMAGE
    assert prefilled("fio: pool not found\n", QUICK_IMAGE) == QUICK_IMAGE
    assert prefilled('{"jobs": []}', QUICK_IMAGE) == QUICK_IMAGE
