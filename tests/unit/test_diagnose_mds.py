"""The MDS layer of diagnose: the probe's parsers on real recordings (tests/data/ceph/16.2.15/
cephfs.source.md) and the rule's findings, by code."""

from __future__ import annotations

import json

from cephbench.ceph.cephfs import fs_summaries
from cephbench.diagnose import codes
from cephbench.diagnose.finding import Diagnosis, Finding, Severity, Status
from cephbench.diagnose.mds import mds_health, perf_figures, pool_osds, sessions
from cephbench.diagnose.rules import rules
from cephbench.diagnose.rules.cluster import Health
from cephbench.diagnose.rules.mds import mds_findings
from tests.helpers import DATA

CEPH = DATA / "ceph" / "16.2.15"


def _evidence(**daemon: object) -> dict:
    perf = perf_figures(json.loads((CEPH / "mds-perf-dump.json").read_text()))
    listing = sessions(json.loads((CEPH / "mds-session-ls.json").read_text()))
    (fs,) = fs_summaries(json.loads((CEPH / "fs-dump-cephfs-lab.json").read_text()))
    fs = {**fs, "metadata_pool_name": "cephfs.lab.meta", "metadata_osds": [0, 1, 2]}
    return {
        "mds": {
            "filesystems": [fs],
            "daemons": {"mds.a": {**perf, "sessions": listing, **daemon}},
            "health": {},
        }
    }


def test_perf_dump_figures():
    fig = perf_figures(json.loads((CEPH / "mds-perf-dump.json").read_text()))
    assert (fig["requests"], fig["slow_replies"], fig["queue"]) == (57, 0, 0)
    assert fig["reply_ms"] == 0.4858
    assert fig["request_ms"]["create"]["count"] == 50
    assert set(fig["request_ms"]) == {"create", "getattr", "mkdir", "readdir"}


def test_sessions_and_pool_osds():
    listing = sessions(json.loads((CEPH / "mds-session-ls.json").read_text()))
    assert len(listing) == 3 and listing[0]["client"] == "client.4126" and listing[0]["caps"] == 1
    assert pool_osds({"pg_stats": [{"acting": [1, 0, 2]}, {"acting": [2, 1, 0]}]}) == [0, 1, 2]
    status = {
        "health": {
            "checks": {
                "MDS_SLOW_REQUEST": {"summary": {"message": "1 MDSs report slow requests"}},
                "OSD_DOWN": {},
            }
        }
    }
    assert mds_health(status) == {"MDS_SLOW_REQUEST": "1 MDSs report slow requests"}


def test_a_healthy_mds_is_checked_not_found():
    d = Diagnosis()
    mds_findings(_evidence(), d)
    assert d.findings == []
    assert {c.check for c in d.checked} == {
        "MDS ranks of lab",
        "mds.a requests",
        "mds.a caps",
        "metadata pool of lab",
    }
    assert all(c.layer == "mds" for c in d.checked)


def test_no_cephfs_is_not_possible():
    d = Diagnosis()
    mds_findings({"mds": None}, d)
    assert d.findings == [] and d.checked[0].status == Status.NOT_POSSIBLE


def test_slow_queued_and_caps_findings():
    e = _evidence(reply_ms=250.0, queue=400)
    e["mds"]["health"] = {
        "MDS_CLIENT_LATE_RELEASE": "1 clients failing to respond to capability release"
    }
    d = Diagnosis()
    mds_findings(e, d)
    assert [f.code for f in d.findings] == [
        codes.MDS_SLOW_REQUESTS,
        codes.MDS_QUEUED,
        codes.MDS_CAPS_HELD,
    ]
    assert all(f.layer == "mds" for f in d.findings)


def test_no_active_mds_and_a_slow_metadata_osd():
    e = _evidence()
    fs = e["mds"]["filesystems"][0]
    e["mds"]["filesystems"][0] = {**fs, "active": 0, "ranks": []}
    d = Diagnosis()
    d.findings.append(
        Finding(codes.OSD_CPU_STARVED, "osd.1", Severity.WARNING, "slow", Health([]), "", 3.0)
    )
    mds_findings(e, d)
    got = [f.code for f in d.findings[1:]]
    assert got == [codes.MDS_NOT_ACTIVE, codes.MDS_METADATA_ON_SLOW_OSD]
    assert d.findings[-1].component == "osd.1"


def test_the_rule_is_registered_after_the_osd_rules():
    names = list(rules())
    assert names.index("mds") > names.index("osd-peers")
