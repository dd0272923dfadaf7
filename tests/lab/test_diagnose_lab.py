"""``cephbench diagnose --quick`` on the shared 3-host lab: healthy, then with each fault
injected (and cleared however the test ends): the top finding names what was injected."""

from __future__ import annotations

import json

import pytest

from cephbench.lab import ceph_json, ensure_pool, faults, remove_pool
from cephbench.store import Store


@pytest.fixture
def on_lab3(lab3, monkeypatch):
    monkeypatch.setenv("CEPHBENCH_LAB_DIR", str(lab3.dir))
    return lab3


def diagnose(invoke_json) -> dict:
    return invoke_json("diagnose", "--quick", "--no-osd-bench")


def test_healthy_lab_no_finding_above_info_and_nothing_left(on_lab3, invoke, invoke_json, db):
    d = diagnose(invoke_json)
    assert all(f["severity"] == "info" for f in d["findings"]), d["findings"]
    assert d["budget"]["client_ms"] > 0
    # lab3 answers ssh: iperf3 ran on the hosts themselves, over ssh
    assert any("iperf3" in c["check"] and "ssh" in c["check"] for c in d["checked"]), d["checked"]
    with Store(db) as s:
        assert s.open_resources() == []  # pool, image, history size, iperf3 servers: undone
        outputs = s.outputs(d["run"])
    # the network was measured while the pool was made: before the prefill first wrote to it
    prefill = next(o for o in outputs if o["tool"] == "fio-prefill")
    doc = json.loads(prefill["stdout"][prefill["stdout"].index("{") :])
    prefill_began = (doc["timestamp_ms"] - doc["jobs"][0]["job_runtime"]) / 1000
    sent = [json.loads(o["stdout"]) for o in outputs if o["tool"] == "iperf3"]
    assert len(sent) == 3, [o["tool"] for o in outputs]  # the ring of --quick
    for iperf in sent:
        assert iperf["start"]["timestamp"]["timesecs"] + iperf["end"]["sum_received"]["seconds"] < (
            prefill_began + 1  # iperf3 gives its start to the second
        )
    shown = invoke("show", str(d["run"]), "--format", "md").stdout
    assert "Checked" in shown and "Latency budget" in shown
    assert invoke_json("show", str(d["run"]))["findings"] == d["findings"]


@pytest.mark.parametrize(
    ("kind", "target", "params", "layers", "component"),
    [
        ("slow-disk", "osd.1", {"iops": 150}, {"device", "osd"}, "osd.1"),
        ("slow-link", "host2", {"rate": "100mbit"}, {"network"}, "host2"),
        ("cpu", "osd.2", {"percent": 15}, {"osd"}, "osd.2"),
    ],
)
def test_the_top_finding_names_the_fault(
    on_lab3, invoke_json, kind, target, params, layers, component
):
    with faults.injected(on_lab3, kind, target, **params):
        d = diagnose(invoke_json)
    top = d["findings"][0]
    assert top["layer"] in layers and top["component"] == component, d["findings"]
    assert faults.list_faults(on_lab3) == []


POOL_PROPERTIES = ("pg_num", "pg_placement_num", "pg_num_target", "pg_autoscale_mode")


def pool_properties(lab, name: str) -> dict:
    [pool] = [p for p in ceph_json(lab, "osd", "pool", "ls", "detail") if p["pool_name"] == name]
    return {k: pool[k] for k in POOL_PROPERTIES}


def test_too_few_pgs_is_named_and_the_pool_is_put_back(on_lab3, invoke_json):
    ensure_pool(on_lab3, "cb-fewpgs", pg_num=4)  # 4 PGs merge to 1 in seconds
    try:
        before = pool_properties(on_lab3, "cb-fewpgs")
        with faults.injected(on_lab3, "too-few-pgs", "cb-fewpgs"):
            during = pool_properties(on_lab3, "cb-fewpgs")
            d = diagnose(invoke_json)
        after = pool_properties(on_lab3, "cb-fewpgs")
    finally:
        remove_pool(on_lab3, "cb-fewpgs")  # the lab is shared: no pool splitting back left
    assert during == {**during, "pg_num": 1, "pg_placement_num": 1, "pg_autoscale_mode": "off"}
    named = [f for f in d["findings"] if f["component"] == "pool cb-fewpgs"]
    assert [(f["evidence"]["pg_num"], f["evidence"]["osds"]) for f in named] == [(1, 3)], named
    assert after["pg_num_target"] == before["pg_num_target"] == 4
    assert after["pg_autoscale_mode"] == before["pg_autoscale_mode"]
    assert faults.list_faults(on_lab3) == []


def test_under_a_slow_disk_the_bounded_phases_end_early(on_lab3, invoke_json, db):
    """A disk held to 150 IOPS ends the load's fixed-size phases early rather than making
    them longer: osd.1's 4 MiB bench writes its first quarter only (its peers all 16 MiB),
    the prefill stops at its time bound and the load runs on the part it wrote; nothing is
    left (the image went with the pool); the top finding still names osd.1."""
    from cephbench.diagnose.stored import evidence

    with faults.injected(on_lab3, "slow-disk", "osd.1", iops=150):
        d = invoke_json("diagnose", "--quick")
    assert d["findings"][0]["component"] == "osd.1", d["findings"]
    with Store(db) as s:
        e = evidence(s, d["run"])
        outputs = s.outputs(d["run"])
        assert s.open_resources() == []  # pool, and the image with it: recorded as gone
    wrote: dict[str, int] = {}  # the 4 MiB benches each OSD ran, as recorded
    for o in outputs:
        if o["tool"] == "osd-bench" and o["argv"][-3] == str(4 << 20):
            at = o["argv"].index("bench")
            wrote[o["argv"][at - 1]] = wrote.get(o["argv"][at - 1], 0) + int(o["argv"][at + 1])
    assert wrote == {"osd.0": 16 << 20, "osd.1": 4 << 20, "osd.2": 16 << 20}, wrote
    benches = {osd: info["bench_4m"] for osd, info in e["osds"].items()}
    assert benches["1"]["bytes"] == 4 << 20 and benches["1"]["benches"] == 1, benches
    assert all(benches[o]["bytes"] == 16 << 20 for o in ("0", "2")), benches
    region = e["client"]["load_bytes"]
    prefill = next(o for o in outputs if o["tool"] == "fio-prefill")
    written = json.loads(prefill["stdout"][prefill["stdout"].index("{") :])["jobs"][0]["write"]
    assert region == written["io_bytes"] < 16 << 20
    loads = [o for o in outputs if o["tool"] == "fio" and "--ioengine=rbd" in o["argv"]]
    assert len(loads) == 2 and all(f"--size={region}" in o["argv"] for o in loads)
