"""The OSDs' CPU read on a cluster's hosts over ssh (``hosts.osd_cpu``): the script's recorded
output on two of the lab's hosts (tests/data/osd-cpu/README.source.md) parsed to each OSD's CPU
seconds, the hosts grouped into one machine by their boot id, and the ceilings of processes
spread over several machines."""

from __future__ import annotations

from pathlib import Path

import pytest

from cephbench.diagnose import capability
from cephbench.diagnose.ceiling_inputs import Capabilities, CpuUse, PoolLayout, Workload
from cephbench.diagnose.ceilings import explain
from cephbench.hosts import osd_cpu

DATA = Path(__file__).parents[1] / "data" / "osd-cpu"
BOOT = "9d2217d6-afb0-484b-88b1-6c1dd6ad3ab0"


def answer(host: str) -> osd_cpu.HostCpu:
    return osd_cpu.parse((DATA / f"lab-{host}.txt").read_text())


def test_the_recorded_output_gives_each_osds_cpu_seconds():
    a = answer("host1")
    assert (a.boot_id, a.cores) == (BOOT, 2)
    assert a.osd_seconds == pytest.approx({"osd.0": 55.65, "osd.1": 55.53, "osd.2": 55.19})
    b = answer("host2")
    assert b.osd_seconds == pytest.approx({"osd.0": 55.66, "osd.1": 55.53, "osd.2": 55.20})


def test_hosts_with_one_boot_id_are_one_machine_and_its_osds_count_once():
    answers = {"host1": answer("host1"), "host2": answer("host2")}
    m = osd_cpu.machines(answers)
    assert m.cores == {"host1+host2": 2}
    assert m.osds == {"osd.0": "host1+host2", "osd.1": "host1+host2", "osd.2": "host1+host2"}
    assert osd_cpu.osd_seconds(answers) == pytest.approx(answer("host1").osd_seconds)


@pytest.mark.parametrize(
    ("cmdline", "name"),
    [
        ("ceph-osd -i 0 -c /work/labm/lab/ceph.conf ", "osd.0"),  # the lab's
        ("/usr/bin/ceph-osd -n osd.3 -f --setuser ceph --setgroup ceph", "osd.3"),  # cephadm's
        ("ceph-osd --foreground --id 12 --setuser ceph", "osd.12"),
        ("ceph-osd --id=7", "osd.7"),
        ("ceph-osd --name=osd.9 -f", "osd.9"),
        ("ceph-osd -f --setuser ceph", None),
        ("ceph-osd -i 10x", None),
    ],
)
def test_the_osd_is_named_by_its_command_line(cmdline: str, name: str | None):
    assert osd_cpu.osd_name(cmdline) == name


def test_a_process_gone_between_pgrep_and_cat_is_left_out():
    lines = (DATA / "lab-host1.txt").read_text().splitlines()
    cut = "\n".join([*lines[:5], lines[5], "", *lines[7:]])  # osd.1's stat line empty
    assert set(osd_cpu.parse(cut).osd_seconds) == {"osd.0", "osd.2"}
    with pytest.raises(ValueError, match="not the OSD CPU script"):
        osd_cpu.parse("sh: 1: pgrep: not found\n")


def test_each_machine_gets_its_own_cpu_ceiling():
    # osd.0 and the client on a 2-core machine, osd.1 and osd.2 on a 4-core one
    cpu = CpuUse(
        1000.0,
        {"osd.0": 0.5, "client": 0.3, "osd.1": 0.6, "osd.2": 0.6},
        4.0,
        "several machines",
        machines={"a": (2.0, ("osd.0", "client")), "b": (4.0, ("osd.1", "osd.2"))},
    )
    caps = Capabilities([], PoolLayout("replicated", 3))
    w = Workload("rand_wr", "randwrite", 4096, 32, 1, 1000.0, 1000.0 * 4096, None)
    parts = {p.part: p for p in explain(caps, w, cpu).parts if p.layer == "cpu"}
    assert set(parts) == {"a's CPU", "b's CPU"}
    assert parts["a's CPU"].iops == pytest.approx(2.0 / (0.8 / 1000))  # 2,500 IOPS
    assert parts["b's CPU"].iops == pytest.approx(4.0 / (1.2 / 1000))  # 3,333 IOPS
    assert "osd.0 500 µs" in parts["a's CPU"].why


def test_cpu_records_of_a_run_on_hosts_keep_their_machines():
    records = [
        {
            "workloads": ["rand_wr"],
            "ios": 1000.0,
            "cpu_s": {"osd.0": 0.5, "osd.1": 0.6, "client": 0.3},
            "osd_cpu_measured": True,
            "cores": 2,
            "machine": "host0+host1",
            "machines": {"host0+host1": {"cores": 2, "processes": ["osd.0", "osd.1", "client"]}},
        }
    ]
    cpu = capability.cpu_use(records, "rand_wr")
    assert cpu is not None and cpu.machines == {"host0+host1": (2.0, ("osd.0", "osd.1", "client"))}
    assert cpu.by_machine()["host0+host1"][1] == {"osd.0": 0.5, "osd.1": 0.6, "client": 0.3}
