"""Faults injected into the session's labs: each takes effect, shows, and leaves nothing behind.

The labs are shared with other tests: every test here ends with its fault cleared, the
cgroups gone, the OSDs back where they were and the links at the lab's own rate.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from cephbench.lab import ceph_json, faults
from cephbench.lab.ceph import not_ready
from cephbench.lab.paths import Layout
from cephbench.lab.state import load
from cephbench.system.process import run
from cephbench.tools.iperf3 import driver
from cephbench.tools.iperf3.hostexec import stop_local
from tests import helpers
from tests.helpers import invoke
from tests.lab.helpers import status_json

BLKIO = Path("/sys/fs/cgroup/blkio")
CPU = Path("/sys/fs/cgroup/cpu")
PORT = 5201  # inside host2's own network namespace


def osd_pid(lab, osd: int) -> int:
    state = load(Layout(lab.dir))
    assert state is not None
    pid = state.daemons[f"osd.{osd}"].pid
    assert pid is not None
    return pid


def cgroup_of(pid: int, controller: str) -> str:
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):
            return path
    raise AssertionError(f"process {pid} has no {controller} cgroup")


def our_cgroups(lab) -> list[Path]:
    """This lab's fault cgroups (other labs on the machine may have theirs)."""
    state = load(Layout(lab.dir))
    assert state is not None
    return [*BLKIO.glob(f"cephbench-{state.lab_id}-*"), *CPU.glob(f"cephbench-{state.lab_id}-*")]


def osd_bench(lab, osd: int, total: int, bs: int) -> dict:
    return ceph_json(lab, "tell", f"osd.{osd}", "bench", str(total), str(bs), timeout=120)


def serviced(cgroup: Path) -> int:
    """I/Os the cgroup's processes sent to any device (blkio.throttle.io_serviced Total)."""
    rows = [ln.split() for ln in (cgroup / "blkio.throttle.io_serviced").read_text().splitlines()]
    return sum(int(row[2]) for row in rows if len(row) == 3 and row[1] == "Total")


def healthy(lab) -> None:
    helpers.wait_for(
        lambda: not_ready(ceph_json(lab, "status"), len(lab.osds)) is None, "HEALTH_OK", 120, 0.3
    )


def test_slow_disk_caps_the_osds_device_iops_and_survives_a_restart(lab):
    assert our_cgroups(lab) == []
    pid, origin = osd_pid(lab, 1), cgroup_of(osd_pid(lab, 1), "blkio")
    fast = osd_bench(lab, 0, 4096000, 4096)
    fault = faults.inject(lab, "slow-disk", "osd.1", iops=150)
    try:
        [cgroup] = [c for c in our_cgroups(lab) if c.parent == BLKIO]
        assert list(fault.cgroups) == [str(cgroup)]
        assert [int(p) for p in (cgroup / "cgroup.procs").read_text().split()] == [pid]
        for name in ("read_iops_device", "write_iops_device"):
            assert (cgroup / f"blkio.throttle.{name}").read_text().split() == [fault.device, "150"]
        [shown] = status_json(lab.dir)["faults"]
        assert shown["kind"] == "slow-disk" and shown["target"] == "osd.1" and shown["active"]

        # the device rate over a window of the longest bench Ceph allows at 4 KiB (3000
        # writes, > 2 s here) that opens once the throttle's initial burst is spent: a
        # short window measures the burst (255 IOPS once over a 0.56 s bench)
        before = serviced(cgroup)
        with ThreadPoolExecutor(1) as pool:
            bench = pool.submit(osd_bench, lab, 1, 12288000, 4096)
            helpers.wait_for(
                lambda: bench.done() or serviced(cgroup) - before >= 45,  # 0.3 s at the cap
                "osd.1's first device I/Os through the throttle",
                60,
            )
            opened, count = time.monotonic(), serviced(cgroup)
            slow = bench.result()
            device_iops = (serviced(cgroup) - count) / (time.monotonic() - opened)
        # the OSD's own I/O went through the throttle, at the cap
        assert 0 < device_iops < 150 * 1.5, (device_iops, slow)
        assert slow["iops"] < fast["iops"] / 2, (slow, fast)

        invoke("lab", "restart-osd", "1", "--dir", lab.dir)
        new_pid = osd_pid(lab, 1)
        assert new_pid != pid
        assert [int(p) for p in (cgroup / "cgroup.procs").read_text().split()] == [new_pid]
        healthy(lab)
    finally:
        cleared = invoke("lab", "fault", "clear", "--dir", lab.dir).output
    assert "cleared: osd.1: disk" in cleared
    assert our_cgroups(lab) == [] and not cgroup.exists()
    assert cgroup_of(osd_pid(lab, 1), "blkio") == origin
    assert faults.list_faults(lab) == []
    assert osd_bench(lab, 1, 4096000, 4096)["iops"] > 2 * slow["iops"]


def test_cpu_fault_throttles_the_osd_then_goes(lab):
    pid, origin = osd_pid(lab, 2), cgroup_of(osd_pid(lab, 2), "cpu")
    with faults.injected(lab, "cpu", "osd.2", percent=15) as fault:
        [path] = fault.cgroups
        cgroup = Path(path)
        assert (cgroup / "cpu.cfs_quota_us").read_text().strip() == "15000"
        assert (cgroup / "cpu.cfs_period_us").read_text().strip() == "100000"
        assert cgroup_of(pid, "cpu") == "/" + cgroup.name
        listed = json.loads(
            invoke("lab", "fault", "list", "--format", "json", "--dir", lab.dir).stdout
        )
        assert [(f["kind"], f["target"], f["percent"], f["active"]) for f in listed] == [
            ("cpu", "osd.2", 15.0, True)
        ]
        osd_bench(lab, 2, 12288000, 4096)
        stat = dict(ln.split() for ln in (cgroup / "cpu.stat").read_text().splitlines())
        assert int(stat["nr_throttled"]) > 0 and int(stat["throttled_time"]) > 0, stat
    assert not cgroup.exists() and our_cgroups(lab) == []
    assert cgroup_of(pid, "cpu") == origin
    assert faults.list_faults(lab) == []


def test_slow_link_on_a_single_host_lab_is_refused(lab):
    result = invoke(
        "lab", "fault", "slow-link", "host0", "--rate", "100mbit", "--dir", lab.dir, expect=2
    )
    assert "single host" in result.output and "--hosts 3" in result.output
    assert faults.list_faults(lab) == []


def qdisc_rate(netns: str, dev: str) -> tuple[str, int]:
    argv = ["tc", *(["-n", netns] if netns else []), "-j", "qdisc", "show", "dev", dev]
    [q] = [q for q in json.loads(run(argv, check=True).stdout) if q.get("root")]
    return q["kind"], q["options"]["rate"] * 8


def test_slow_link_limits_one_host_both_ways_then_the_lab_rate_is_back(lab3, tmp_path):
    state = load(Layout(lab3.dir))
    assert state is not None
    ends = [("", state.links[2]), (state.namespaces[2], "eth0")]
    others = [("", state.links[1]), (state.namespaces[1], "eth0")]
    assert {qdisc_rate(*end) for end in ends + others} == {("tbf", 500_000_000)}
    fault = faults.inject(lab3, "slow-link", "host2", rate="100mbit")
    try:
        assert fault.links == ends
        assert {qdisc_rate(*end) for end in ends} == {("tbf", 100_000_000)}
        assert {qdisc_rate(*end) for end in others} == {("tbf", 500_000_000)}
        assert status_json(lab3.dir)["faults"][0]["active"] is True
        received = iperf3(state, tmp_path, server=2, client=0)
        assert 50e6 < received < 100e6 * 1.05, received
    finally:
        faults.clear(lab3)
    assert {qdisc_rate(*end) for end in ends + others} == {("tbf", 500_000_000)}
    assert faults.list_faults(lab3) == []


def iperf3(state, tmp_path: Path, server: int, client: int) -> float:
    """Bits/s received by ``server`` in one second from ``client`` (iperf3 in their netns)."""
    pidfile = str(tmp_path / "iperf3.pid")
    addr = state.host_addrs[server]
    serve = driver.server_argv(addr, PORT, pidfile)
    run(["ip", "netns", "exec", state.namespaces[server], *serve], check=True, timeout=30)
    try:
        send = ["ip", "netns", "exec", state.namespaces[client], *driver.client_argv(addr, PORT, 1)]
        # the daemonized server may not listen yet when its parent returns
        out = helpers.wait_for(
            lambda: "Connection refused" not in (r := run(send, timeout=30)).stdout and r,
            "iperf3 to connect",
            30,
        )
        bw = driver.parse(out.stdout, f"host{client}->host{server}").bw_bytes_per_s
        assert bw is not None
        return bw * 8
    finally:
        helpers.wait_for(lambda: Path(pidfile).exists(), "the iperf3 server's pid file", 30)
        stop_local(pidfile)
