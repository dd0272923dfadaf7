"""Whether a read was served by the layer behind its target or by a cache: the decision on
recorded counters (see tests/data/served/README.md): ``/proc/diskstats`` around a buffered
re-read and a direct read of a file on a loop device, ``ceph df detail`` around the same two
reads on CephFS, each with fio's own output of that run."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from cephbench.execution.behind import (
    Devices,
    NoDevice,
    Served,
    diskstats,
    parse_mountinfo,
    pool_reads,
)
from cephbench.execution.served import MARGIN, Watch, judge, ratio
from cephbench.model import FLAGS, Result, WorkloadOutcome
from cephbench.tools.fio import parse as fio_parse

DATA = Path(__file__).parents[1] / "data" / "served"


def outcomes(name: str) -> list[WorkloadOutcome]:
    return [j.outcome() for j in fio_parse.parse((DATA / f"{name}-fio.json").read_text())]


@dataclass
class Replay:
    """The layer behind, as it was read during the recorded run: one reading per call."""

    readings: list[Served | None]
    name: str = "recorded"
    cache: str = "this machine's page cache"

    def read(self) -> Served | None:
        return self.readings.pop(0)


def loop_readings() -> list[Served | None]:
    rec = json.loads((DATA / "loop-diskstats.json").read_text())
    return [diskstats("\n".join(lines), tuple(rec["leaves"])) for lines in rec["readings"]]


def cephfs_readings() -> list[Served | None]:
    docs = json.loads((DATA / "cephfs-df-detail.json").read_text())
    return [pool_reads(d, "cephfs.lab.data") for d in docs]


def chained_run(readings: list[Served | None], outs: list[WorkloadOutcome]) -> dict[str, Result]:
    """The two workloads run as the runner runs them: a reading before the step, one as the
    first chained group ends, one after (the recording also read as the second one ended: the
    same counters as after the step, left out since)."""
    watch = Watch(Replay(readings[:2] + readings[3:]))
    watch.start()
    watch.group_ended(["buffered_rd"])  # the last group's end is the reading after the step
    flagged, records = watch.flag(outs, [], 0)
    assert [r["window"] for r in records] == [["buffered_rd"], ["direct_rd"]]
    return {o.name: o.results[0] for o in flagged}


@pytest.mark.parametrize("name", ["loop", "cephfs"])
def test_the_page_cache_read_is_flagged_and_the_direct_read_is_not(name):
    outs = outcomes(name)
    readings = loop_readings() if name == "loop" else cephfs_readings()
    got = chained_run(readings, outs)
    buffered, direct = got["buffered_rd"], got["direct_rd"]
    assert "cached" in buffered.flags and "cached" not in direct.flags
    m_buffered, m_direct = dict(buffered.metrics), dict(direct.metrics)
    assert m_buffered["served_read_ratio"] < 0.01  # 17 MB of 7 GB; on CephFS, nothing
    assert m_direct["served_read_ratio"] == pytest.approx(1.0, abs=0.001)
    # fio's figures as fio printed them: the flag and the served figures are beside them
    before = {o.name: o.results[0] for o in outs}
    for r in (buffered, direct):
        assert (r.iops, r.bw_bytes_per_s, r.io_bytes) == (
            before[r.workload].iops,
            before[r.workload].bw_bytes_per_s,
            before[r.workload].io_bytes,
        )


def test_on_cephfs_the_pool_served_exactly_the_direct_reads_bytes():
    outs = {o.name: o.results[0] for o in outcomes("cephfs")}
    first, after_buffered, after_direct, _ = cephfs_readings()
    assert first is not None and after_buffered is not None and after_direct is not None
    assert after_buffered - first == Served(0, 0)
    assert (after_direct - after_buffered).bytes == outs["direct_rd"].io_bytes
    assert (after_direct - after_buffered).ios == outs["direct_rd"].total_ios


def test_a_window_over_both_reads_judges_each_against_all_the_device_served():
    """Without a boundary between them (a job file run as written), each read is judged
    against everything the device served in the step: more than it served that read, so a
    flag is never wrong; the buffered re-read's 7 GB still dwarf the direct read's 0.6 GB."""
    readings = loop_readings()
    watch = Watch(Replay([readings[0], readings[-1]]))
    watch.start()
    flagged, records = watch.flag(outcomes("loop"), [], 0)
    got = {o.name: o.results[0] for o in flagged}
    assert "cached" in got["buffered_rd"].flags and "cached" not in got["direct_rd"].flags
    assert records[0]["window"] == ["buffered_rd", "direct_rd"]
    exact = dict(chained_run(loop_readings(), outcomes("loop"))["buffered_rd"].metrics)
    assert dict(got["buffered_rd"].metrics)["served_read_ratio"] > exact["served_read_ratio"]


def test_no_reading_after_a_step_that_did_not_read():
    """A Ceph pool's reading costs about a second: a step whose workloads wrote is not read
    after; the next step's first reading is then the one before it (writes serve no reads)."""
    behind = Replay([Served(0, 0), Served(3, 3000)])
    watch = Watch(behind)
    watch.start()
    write = WorkloadOutcome("w", (Result("w", 0, "write", io_bytes=10**9),))
    assert watch.flag([write], [], 0) == ([write], []) and len(watch.history) == 1
    watch.start()
    read = WorkloadOutcome("r", (Result("r", 0, "read", io_bytes=3000),))
    [got], [record] = watch.flag([read], [], 0)
    assert len(watch.history) == 2 and record["served_read_bytes"] == 3000
    assert "cached" not in got.results[0].flags


def test_the_margin():
    r = Result("w", 0, "read", io_bytes=1000, total_ios=10)
    behind = Devices(("vda",), "vda")
    assert "cached" in judge(r, Served(10, 499), behind).flags
    assert "cached" not in judge(r, Served(10, int(MARGIN * 1000)), behind).flags
    assert "cached" not in judge(r, Served(20, 4000), behind).flags  # readahead: more
    assert ratio(1000, Served(-1, -5)) is None  # a counter that went back: a reset device
    assert judge(r, None, behind) == r  # no reading: nothing said
    assert judge(Result("w", 0, "read", io_bytes=0), Served(0, 0), behind).flags == ()
    w = Result("w", 0, "write", io_bytes=1000)
    assert judge(w, Served(0, 0), behind) == w  # writes are not judged


def test_no_device_behind_flags_the_reads_only():
    tmpfs = NoDevice("tmpfs at /dev/shm")
    r = judge(Result("w", 0, "read", io_bytes=1000), None, tmpfs)
    assert r.flags == ("no_device",)
    assert judge(Result("w", 0, "write", io_bytes=1000), None, tmpfs).flags == ()
    assert {"cached", "no_device"} <= set(FLAGS)


def test_a_workload_reported_after_it_ran_is_judged_over_its_own_time():
    """A tool may report a workload in a later step (diagnose's load): its readings are the
    last before it began and the first after it ended, not the later step's."""
    times = iter([0.0, 10.0, 20.0])
    behind = Replay([Served(0, 0), Served(5, 5000), Served(5, 5000)])
    watch = Watch(behind, clock=lambda: next(times))
    watch.start()  # t=0
    early = WorkloadOutcome("early", (Result("early", 0, "read", io_bytes=100),))
    watch.flag([early], [], 0)  # t=10: the late read ran in this step too
    watch.start()
    read = WorkloadOutcome("late", (Result("late", 0, "read", io_bytes=5000),))
    [got], [record] = watch.flag([read], [(1.0, 9.0)], 0)  # t=20, its window 1-9 s
    assert record["served_read_bytes"] == 5000 and "cached" not in got.results[0].flags
    assert watch.served(1, 2) == Served(0, 0)  # the step's own time: nothing read


def test_mountinfo_gives_each_mount_its_device_number():
    line = (
        "29 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard\n"
        "35 22 0:26 / /dev/shm rw,relatime shared:3 - tmpfs tmpfs rw,size=24731708k\n"
        r"40 1 0:30 / /mnt/a\040b rw - overlay overlay rw,upperdir=/u,workdir=/w"
    )
    root, shm, over = parse_mountinfo(line)
    assert (root.devno, root.fstype, root.source) == ("254:0", "ext4", "/dev/vda")
    assert (shm.devno, shm.mountpoint) == ("0:26", "/dev/shm")
    assert over.mountpoint == "/mnt/a b" and "upperdir=/u" in over.super_options


def test_a_reading_that_failed_leaves_the_read_unjudged_and_says_so():
    """The pool could not be read after the step (the manager had no OSD's report in time):
    the read is neither flagged nor cleared, its record keeps why, and ``show`` says that a
    cache may have served it unflagged."""
    from cephbench.cli.show import served_unread

    behind = Replay([Served(0, 0), None], name="pool cephfs.lab.data")
    behind.error = "the manager had no report of osd.1 within 10 s"  # type: ignore[attr-defined]
    watch = Watch(behind)
    watch.start()
    read = WorkloadOutcome("buffered_rd", (Result("buffered_rd", 0, "read", io_bytes=10**9),))
    [got], [record] = watch.flag([read], [], 0)
    assert got == read and record["served_read_bytes"] is None and record["flag"] is None
    assert record["not_read"] == behind.error
    note = served_unread([record, {**record, "workload": "other"}, {"workload": "x"}])
    assert note == (
        "Not judged for a cache: buffered_rd, other: what pool cephfs.lab.data served around"
        " them could not be read (the manager had no report of osd.1 within 10 s); a cache on"
        " the client may have served them, unflagged."
    )
    assert served_unread([{**record, "not_read": None}]) is None
