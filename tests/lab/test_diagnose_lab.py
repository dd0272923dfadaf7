"""``cephbench diagnose --quick`` on the shared 3-host lab: healthy, then with each fault
injected (and cleared however the test ends): the top finding names what was injected."""

from __future__ import annotations

import pytest

from cephbench.lab import faults
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
        assert s.open_resources() == []  # pool, image, history size: all undone
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
