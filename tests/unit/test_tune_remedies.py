"""Tune's remedies: each answers codes diagnose has, proposes only the settings it names, in
ab's setting kinds."""

from __future__ import annotations

import pytest

from cephbench.diagnose.rules import rules
from cephbench.errors import CephbenchError
from cephbench.tuning.remedies import remedies
from cephbench.tuning.remedies.base import Cost, FindingRef, Remedy
from cephbench.tuning.remedies.pg_num import pg_target
from cephbench.tuning.settings import REGISTRY as KINDS


def test_every_remedy_answers_codes_a_diagnose_rule_can_find():
    found = {c.name for r in rules().values() for c in r.codes}
    for name, remedy in remedies().items():
        assert remedy.name == name
        assert remedy.answers and set(remedy.answers) <= found, name
        assert set(remedy.kinds) <= set(KINDS), name


def test_debug_off_removes_each_raised_entry():
    f = FindingRef(
        "osd.debug_logging",
        "osd",
        evidence={
            "entries": [
                {"section": "osd", "name": "debug_osd", "value": "20/20"},
                {"section": "osd.1", "name": "debug_bluestore", "value": "20/20"},
            ]
        },
    )
    changes = remedies()["osd-debug-off"].propose(f)
    assert [c.text for c in changes] == [
        "ceph config rm osd debug_osd",
        "ceph config rm osd.1 debug_bluestore",
    ]


def test_a_remedy_does_not_answer_other_codes():
    assert remedies()["rbd-cache-on"].propose(FindingRef("osd.debug_logging", "osd")) == ()


def test_pg_num_moves_data_and_aims_at_100_per_osd():
    r = remedies()["pg-num-up"]
    assert r.cost is Cost.DATA_MOVEMENT
    assert pg_target(3, 3) == 128 and pg_target(10, 3) == 256 and pg_target(1, 1) == 128
    f = FindingRef(
        "placement.too_few_pgs",
        "pool bench",
        evidence={"pool": "bench", "osds": 3, "size": 3, "pg_num": 1},
    )
    assert [c.text for c in r.propose(f)] == ["ceph osd pool set bench pg_num 128"]


def test_an_osd_limited_by_a_custom_mclock_profile_goes_back_to_balanced():
    r = remedies()["mclock-balanced"]
    assert r.cost is Cost.ONLINE
    f = FindingRef("osd.mclock_client_limit", "osd.1", evidence={"profile": "custom"})
    assert [c.text for c in r.propose(f)] == ["ceph config set osd.1 osd_mclock_profile balanced"]


def test_a_change_outside_the_named_settings_is_refused():
    rogue = Remedy(
        "rogue",
        "",
        ("osd.debug_logging",),
        ("config",),
        ("debug_*",),
        (),
        Cost.ONLINE,
        lambda f: ["ceph config set osd osd_op_num_shards 1"],
    )
    with pytest.raises(CephbenchError, match="outside the settings it names"):
        rogue.propose(FindingRef("osd.debug_logging", "osd"))
