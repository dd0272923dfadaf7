"""The misconfiguration rule: debug levels raised for the OSDs, librbd's cache off, a pool
with fewer PGs than OSDs; and the config-db probe's parse of ``ceph config dump``."""

from __future__ import annotations

import json

from cephbench.diagnose.config_db import entries
from cephbench.diagnose.finding import Diagnosis
from cephbench.diagnose.rules.misconfig import level, misconfig_findings
from tests.helpers import DATA

# `ceph config dump -f json` of the lab (Ceph 16.2.15) after `cephbench lab fault debug-logging`
RECORDED = json.loads((DATA / "ceph" / "16.2.15" / "config-dump-debug-logging.json").read_text())
# hand-made beside it: a monitor's debug level and a low OSD one, neither the OSDs' problem
DUMP = [
    *RECORDED,
    {"section": "mon", "name": "debug_mon", "value": "20/20", "level": "advanced", "mask": ""},
    {"section": "osd", "name": "debug_ms", "value": "0/5", "level": "advanced", "mask": ""},
]


def evidence(**more):
    e = {"osds": {"0": {}, "1": {}, "2": {}}, "config_db": entries(DUMP), "pools": []}
    e.update(more)
    return e


def codes(e):
    d = Diagnosis()
    misconfig_findings(e, d)
    return d, [f.code.name for f in d.findings]


def test_debug_levels_raised_for_the_osds_are_named_and_others_are_not():
    d, found = codes(evidence())
    assert found == ["osd.debug_logging"]
    names = [x["name"] for x in d.findings[0].evidence.to_json()["entries"]]
    assert names == ["debug_bluestore", "debug_osd"]  # not the mon's, not 0/5


def test_defaults_find_nothing_and_say_what_was_checked():
    d, found = codes(
        evidence(config_db=entries(DUMP[:1]), client={"rbd_cache": {"rbd_cache": "true (default)"}})
    )
    assert found == [] and any("debug levels" in c.check for c in d.checked)


def test_rbd_cache_off_is_named():
    assert codes(evidence(config_db=[], client={"rbd_cache": {"rbd_cache": "false"}}))[1] == [
        "client.rbd_cache_off"
    ]


def test_a_pool_with_fewer_pgs_than_osds_is_named_but_not_the_diagnosis_own():
    pools = [
        {"name": "rbd", "pg_num": 1, "size": 3, "ours": False},
        {"name": "cephbench-diagnose", "pg_num": 1, "size": 3, "ours": True},
        {"name": "big", "pg_num": 32, "size": 3, "ours": False},
    ]
    d, found = codes(evidence(config_db=[], pools=pools))
    assert found == ["placement.too_few_pgs"]
    assert d.findings[0].evidence.to_json() == {"pool": "rbd", "pg_num": 1, "size": 3, "osds": 3}


def test_levels():
    assert level("20/20") == 20 and level("1/5") == 5 and level("0") == 0 and level("") == 0


def test_the_managers_own_pool_is_not_too_few_pgs():
    """Reef and later keep the manager's data in ``.mgr``, one PG by design (a healthy
    Tentacle lab's pool, as ``ceph osd pool ls detail`` recorded it, application mgr)."""
    from cephbench.diagnose.evidence import pools as pool_evidence

    detail = json.loads((DATA / "ceph" / "20.2.4" / "pool-ls-detail.json").read_text())
    found = pool_evidence(detail, [], {}, None)
    assert [(p["name"], p["pg_num"], p["applications"]) for p in found] == [(".mgr", 1, ["mgr"])]
    assert codes(evidence(config_db=[], pools=found))[1] == []
