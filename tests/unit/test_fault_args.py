"""The lab's faults without a lab: targets, validation, and the cgroup and tc values built."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cephbench.errors import UsageError
from cephbench.lab import cgroups, faults
from cephbench.lab.errors import LabError
from cephbench.lab.paths import Layout
from cephbench.lab.spec import LabSpec
from cephbench.lab.state import Daemon, Fault, LabState, load
from tests.helpers import invoke

# /proc/self/mounts of the Debian 12 machine the lab runs on (cgroup v1, cpu and cpuacct apart)
MOUNTS = """\
tmpfs /sys/fs/cgroup tmpfs rw,relatime,mode=755 0 0
cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0
cgroup /sys/fs/cgroup/cpuacct cgroup rw,relatime,cpuacct 0 0
cgroup /sys/fs/cgroup/blkio cgroup rw,relatime,blkio 0 0
cgroup /sys/fs/cgroup/systemd cgroup rw,relatime,name=systemd 0 0
cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0
"""


def state(hosts: int = 1, osds: int = 3, store: str = "bluestore", rate: str | None = None):
    spec = LabSpec(dir=Path("/tmp/lab-unit"), hosts=hosts, osds=osds, store=store, rate=rate)
    namespaces = [f"cb-ab12-host{h}" for h in range(hosts)] if hosts > 1 else []
    s = LabState(lab_id="ab12", phase="running", spec=spec, namespaces=namespaces)
    for i in range(osds):
        s.daemons[f"osd.{i}"] = Daemon(name=f"osd.{i}", host=f"host{i % hosts}", pid=100 + i)
    return s


def test_controller_root_finds_each_v1_hierarchy():
    assert cgroups.controller_root("blkio", MOUNTS) == Path("/sys/fs/cgroup/blkio")
    assert cgroups.controller_root("cpu", MOUNTS) == Path("/sys/fs/cgroup/cpu")
    assert cgroups.controller_root("cpuacct", MOUNTS) == Path("/sys/fs/cgroup/cpuacct")
    combined = "cgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,cpu,cpuacct 0 0\n"
    assert cgroups.controller_root("cpu", combined) == Path("/sys/fs/cgroup/cpu,cpuacct")
    v2_only = "cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid 0 0\n"
    assert cgroups.controller_root("blkio", v2_only) is None


def test_a_missing_controller_is_one_clear_line(tmp_path, monkeypatch):
    mounts = tmp_path / "mounts"
    mounts.write_text("cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid 0 0\n")
    monkeypatch.setattr(cgroups, "MOUNTS", mounts)
    with pytest.raises(LabError, match="cgroup v1 blkio controller is not mounted") as e:
        cgroups.root_of("blkio")
    assert e.value.hint and "mount -t cgroup -o blkio" in e.value.hint


def test_throttle_values_cap_read_and_write_alike():
    assert cgroups.throttle_values("254:0", 150, None) == {
        "blkio.throttle.read_iops_device": "254:0 150",
        "blkio.throttle.write_iops_device": "254:0 150",
    }
    both = cgroups.throttle_values("7:3", 200, 20 * 1024**2)
    assert both["blkio.throttle.read_bps_device"] == "7:3 20971520"
    assert both["blkio.throttle.write_bps_device"] == "7:3 20971520"
    assert both["blkio.throttle.write_iops_device"] == "7:3 200"
    assert len(both) == 4


def test_quota_is_a_share_of_one_core():
    assert cgroups.quota_us(15) == 15_000
    assert cgroups.quota_us(150) == 150_000
    assert cgroups.quota_us(15, period_us=50_000) == 7_500
    with pytest.raises(ValueError, match="minimum quota"):
        cgroups.quota_us(0.5)


def test_whole_disk_of_a_partition(tmp_path):
    disk = tmp_path / "devices" / "vda"
    (disk / "vda1").mkdir(parents=True)
    (disk / "dev").write_text("254:0\n")
    (disk / "vda1" / "dev").write_text("254:1\n")
    (disk / "vda1" / "partition").write_text("1\n")
    sysfs = tmp_path / "dev-block"
    sysfs.mkdir()
    (sysfs / "254:0").symlink_to(disk)
    (sysfs / "254:1").symlink_to(disk / "vda1")
    assert cgroups.whole_disk("254:1", sysfs) == "254:0"
    assert cgroups.whole_disk("254:0", sysfs) == "254:0"
    with pytest.raises(LabError, match="not a block device"):
        cgroups.whole_disk("8:0", sysfs)


@pytest.mark.parametrize(
    "text, osd, host", [("osd.1", "osd.1", None), ("2", "osd.2", "host2"), ("host3", None, "host3")]
)
def test_targets(text, osd, host):
    for parse, want in ((faults.osd_target, osd), (faults.host_target, host)):
        if want is None:
            with pytest.raises(UsageError):
                parse(text)
        else:
            assert parse(text) == want


def test_plan_checks_the_request_against_the_lab():
    s = state()
    assert faults.plan(s, "slow-disk", "osd.1", iops=150) == Fault(
        kind="slow-disk", target="osd.1", iops=150
    )
    assert faults.plan(s, "cpu", "2", percent=15).target == "osd.2"
    bad = [
        (("slow-disk", "osd.7"), {"iops": 150}, "no osd.7"),
        (("slow-disk", "osd.1"), {}, "--iops and/or --bps"),
        (("slow-disk", "osd.1"), {"iops": 0}, "at least 1"),
        (("cpu", "osd.1"), {}, "--percent"),
        (("cpu", "osd.1"), {"percent": 0.2}, "minimum quota"),
        (("freeze", "osd.1"), {}, "unknown fault"),
        (("slow-link", "host0"), {"rate": "100mbit"}, "single host"),
    ]
    for args, params, message in bad:
        with pytest.raises(UsageError, match=message):
            faults.plan(s, *args, **params)
    s.faults.append(Fault(kind="slow-disk", target="osd.1", iops=100))
    with pytest.raises(UsageError, match="already has a slow-disk fault"):
        faults.plan(s, "slow-disk", "osd.1", iops=150)
    assert faults.plan(s, "cpu", "osd.1", percent=15).kind == "cpu"
    with pytest.raises(UsageError, match="memstore"):
        faults.plan(state(store="memstore"), "slow-disk", "osd.0", iops=150)


def test_plan_slow_link_names_both_ends_and_the_rate_to_restore():
    s = state(hosts=3, rate="500mbit")
    fault = faults.plan(s, "slow-link", "host2", rate="100Mbit")
    assert fault.rate == "100mbit" and fault.restore_rate == "500mbit"
    assert fault.links == [("", "cb-ab12-h2"), ("cb-ab12-host2", "eth0")]
    for target, rate, message in [
        ("host3", "100mbit", "no host3"),
        ("host1", "100mb", "not a tc rate"),
        ("host1", None, "--rate"),
        ("osd.1", "100mbit", "not a lab host"),
    ]:
        with pytest.raises(UsageError, match=message):
            faults.plan(s, "slow-link", target, rate=rate)


def test_tc_argv_replaces_the_root_qdisc_and_restores_it():
    assert faults.tc_replace_argv("", "cb-ab12-h2", "100mbit") == [
        "tc",
        "qdisc",
        "replace",
        "dev",
        "cb-ab12-h2",
        "root",
        "tbf",
        "rate",
        "100mbit",
        "burst",
        str(256 * 1024),
        "latency",
        "100ms",
    ]
    argv = faults.tc_replace_argv("cb-ab12-host2", "eth0", "500mbit")
    assert argv[:3] == ["tc", "-n", "cb-ab12-host2"] and argv[9:11] == ["rate", "500mbit"]
    # a lab without a rate of its own had no qdisc: clearing deletes the fault's
    assert faults.tc_replace_argv("", "cb-ab12-h2", None) == [
        "tc",
        "qdisc",
        "del",
        "dev",
        "cb-ab12-h2",
        "root",
    ]


def test_entry_and_summary():
    fault = Fault(
        kind="slow-disk",
        target="osd.1",
        iops=150,
        device="254:0",
        cgroups={"/sys/fs/cgroup/blkio/cephbench-ab12-osd.1": "/sys/fs/cgroup/blkio"},
    )
    e = faults.entry(fault, True)
    assert e["summary"] == "osd.1: disk 254:0 capped at 150 IOPS (read and write each)"
    assert e["cgroups"] == ["/sys/fs/cgroup/blkio/cephbench-ab12-osd.1"] and e["active"] is True
    assert e["kind"] == "slow-disk" and e["iops"] == 150 and e["links"] == []
    link = Fault(
        kind="slow-link",
        target="host2",
        rate="100mbit",
        restore_rate="500mbit",
        links=[("", "cb-ab12-h2"), ("cb-ab12-host2", "eth0")],
    )
    assert faults.entry(link)["links"] == ["cb-ab12-h2", "cb-ab12-host2:eth0"]
    assert "100mbit both ways" in faults.entry(link)["summary"]
    cpu = Fault(kind="cpu", target="osd.2", percent=15)
    assert faults.entry(cpu)["summary"] == "osd.2: CPU capped at 15 % of one core"


def test_state_files_from_before_faults_still_load(tmp_path):
    s = state()
    old = json.loads(s.model_dump_json())
    del old["faults"]
    layout = Layout(tmp_path)
    layout.state.write_text(json.dumps(old))
    loaded = load(layout)
    assert loaded is not None and loaded.faults == [] and loaded.daemons == s.daemons


def test_cli_refuses_bad_arguments_in_one_line(tmp_path):
    result = invoke(
        "lab", "fault", "slow-disk", "osd.1", "--bps", "12Q", "--dir", tmp_path, expect=2
    )
    assert "--bps: not a size" in result.output and "Traceback" not in result.output
    result = invoke("lab", "fault", "cpu", "osd.1", "--dir", tmp_path, expect=2)
    assert "--percent" in result.output
    result = invoke("lab", "fault", "cpu", "osd.1", "--percent", "15", "--dir", tmp_path, expect=1)
    assert "no lab is running" in result.output
    assert invoke("lab", "fault", "list", "--dir", tmp_path).output.strip() == "No fault injected."
    assert invoke("lab", "fault", "clear", "--dir", tmp_path).output.strip() == "No fault to clear."


def test_a_pool_fault_names_the_pool_and_sets_its_autoscaler_off_before_pg_num():
    fault = faults.plan(state(), "too-few-pgs", "cb-bench")
    assert fault.target == "pool:cb-bench"
    assert [(e["who"], e["key"], e["value"]) for e in fault.config] == [
        ("pool:cb-bench", "pg_autoscale_mode", "off"),
        ("pool:cb-bench", "pg_num", "1"),
    ]
    assert fault.describe() == "pool cb-bench: pg_autoscale_mode = off, pg_num = 1"
    assert faults._normal("pool:cb-bench") == "pool:cb-bench"  # `lab fault clear pool:NAME`


def test_a_pools_property_is_what_it_is_set_to(monkeypatch):
    """``pg_num`` is the pool's target (what `osd pool set` set), not the PGs there now."""
    from cephbench.lab import misconfig
    from tests.helpers import DATA

    detail = json.loads((DATA / "ceph" / "16.2.15" / "osd-pool-ls-detail.json").read_text())
    merging = [{**detail[0], "pool_name": "merging", "pg_num": 9, "pg_num_target": 1}]
    monkeypatch.setattr(misconfig, "ceph_json", lambda conn, *args: detail + merging)
    assert misconfig.pool_property(None, "recpool", "pg_num") == "32"
    assert misconfig.pool_property(None, "recpool", "pg_autoscale_mode") == "off"
    assert misconfig.pool_property(None, "merging", "pg_num") == "1"
    assert misconfig.pool_property(None, "nosuch", "pg_num") is None
