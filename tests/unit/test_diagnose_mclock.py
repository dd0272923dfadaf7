"""The mClock rule on the schedulers recorded from Tentacle 20.2.4 labs (see
tests/data/ceph/20.2.4/release-lab.source.md): a healthy lab's built-in ``balanced`` profile
is no finding, only a check (and a capacity far from the measured writes is noted there);
``lab fault mclock osd.1`` is a warning on osd.1 with its limit in IOPS; Pacific's wpq is
nothing at all."""

from __future__ import annotations

import json

import pytest

from cephbench.ceph import scheduler
from cephbench.diagnose.config_db import entries
from cephbench.diagnose.finding import Diagnosis, Severity
from cephbench.diagnose.findings import diagnose
from cephbench.diagnose.rules.mclock import mclock_findings
from cephbench.diagnose.rules.osd import osd_figures
from tests.helpers import DATA

T = DATA / "ceph" / "20.2.4"


def _load(path):
    return json.loads(path.read_text())


def _evidence(faulty: bool, bench: float | None = 40771.0) -> dict:
    healthy = scheduler.keep(_load(T / "config-show-with-defaults-osd.0.json"))
    fault = scheduler.keep(_load(T / "config-show-with-defaults-osd.1-mclock-fault.json"))
    dump = entries(_load(T / "config-dump-mclock-fault.json")) if faulty else []
    osd1 = fault if faulty else healthy
    e = {
        "osds": {str(i): {"host": f"host{i}", "bench_4k": {"iops": bench}} for i in range(3)},
        "osd_scheduler": {
            "0": scheduler.parse("osd.0", healthy, True, dump).to_json(),
            "1": scheduler.parse("osd.1", osd1, True, dump).to_json(),
            "2": scheduler.parse("osd.2", healthy, True, dump).to_json(),
        },
    }
    return e


def test_the_mclock_fault_is_a_warning_on_its_osd_with_the_limit_in_iops():
    d = Diagnosis()
    mclock_findings(_evidence(faulty=True), d)
    [f] = d.findings
    assert (f.code.name, f.component, f.severity) == (
        "osd.mclock_client_limit",
        "osd.1",
        Severity.WARNING,
    )
    # the recorded fault left the profile's reservation (0.5) above the limit: mClock keeps it
    assert "holds client I/O to 250 small ops a second at most" in f.summary
    assert (
        "client_lim 0.2, under its reservation 0.5, which mClock keeps, of a capacity of "
        "500 IOPS, stored for this OSD" in f.summary
    )
    assert f.impact == 40771.0 / 250
    assert f.next_step.startswith("ceph config rm osd.1 osd_mclock_scheduler_client_lim")


def test_a_healthy_balanced_lab_is_a_check_noting_the_capacity_far_from_the_writes():
    d = Diagnosis()
    mclock_findings(_evidence(faulty=False), d)
    assert d.findings == []
    [c] = d.checked
    assert c.check == "mClock scheduler" and c.detail.startswith("profile balanced on 3 OSDs")
    assert "osd.0 315 against 40,771 measured" in c.detail


def test_without_a_measured_bench_the_limit_is_still_named_and_nothing_is_noted():
    d = Diagnosis()
    mclock_findings(_evidence(faulty=True, bench=None), d)
    assert [f.component for f in d.findings] == ["osd.1"] and d.findings[0].impact == 1.0
    assert "far from" not in (d.checked[0].detail or "")


def test_pacifics_wpq_says_nothing():
    wpq = scheduler.keep(_load(DATA / "ceph" / "16.2.15" / "config-show-with-defaults-osd.0.json"))
    e = {"osds": {"0": {}}, "osd_scheduler": {"0": scheduler.parse("osd.0", wpq, True).to_json()}}
    d = Diagnosis()
    mclock_findings(e, d)
    assert d.findings == [] and d.checked == []


@pytest.mark.parametrize("name", ["", "-b", "-c"])
def test_an_osd_that_mclock_limits_is_named_for_its_limit_not_its_cpu(name):
    """Three ``diagnose --quick`` of a 3-host Tentacle lab with ``lab fault mclock osd.1``
    (release-lab.source.md): osd.1's client writes wait in mClock's queue, up to 1,000x its
    peers'. That wait is the limit's, which the mClock rule names; the OSD peers' rule named
    it as CPU starvation too, with the OSD's device near its peers'. The limit alone now."""
    e = json.loads((T / f"diagnose-mclock-osd1{name}.evidence.json").read_text())
    queued = {o: f["queued_ms"] for o, f in osd_figures(e).items() if f.get("queued_ms")}
    assert queued["osd.1"] > 100 * max(v for o, v in queued.items() if o != "osd.1")
    d = diagnose(e)
    assert [(f.code.name, f.component) for f in d.findings] == [
        ("osd.mclock_client_limit", "osd.1")
    ]
