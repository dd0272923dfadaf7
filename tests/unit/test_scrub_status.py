"""``ceph/scrub.py``'s readers on outputs recorded around ``ceph osd deep-scrub all`` on the
lab (tests/data/ceph/16.2.15/deep-scrub.source.md): the PGs deep-scrubbed between two
readings of ``ceph pg ls`` (3 of 16 in 6 s), those the ask still waits for, the PGs
deep-scrubbing at one look of ``ceph status``; and the OSD map flags that hold scrubs back."""

from __future__ import annotations

import json

from cephbench.ceph.scrub import deep_stamps, held, scrubbed, scrubbing, waiting
from tests.helpers import DATA

PACIFIC = DATA / "ceph" / "16.2.15"


def _read(name: str) -> dict:
    return json.loads((PACIFIC / name).read_text())


def test_the_pgs_scrubbed_between_two_readings_of_their_stamps():
    before = deep_stamps(_read("pg-ls-before-deep-scrub.json"))
    during = deep_stamps(_read("pg-ls-during-deep-scrub.json"))
    assert len(before) == len(during) == 16
    assert scrubbed(before, during) == 3
    assert waiting(before, during) == 13
    assert sorted(pg for pg in before if before[pg] != during[pg]) == ["1.1", "1.2", "1.e"]
    assert scrubbed(during, during) == 0 and waiting(during, during) == 16
    assert waiting({}, during) == 0  # nothing asked for, nothing waited for


def test_the_pgs_deep_scrubbing_at_one_look():
    assert scrubbing(_read("status-deep-scrubbing.json")) == 1
    states = [
        ("active+clean", 20),
        ("active+clean+scrubbing", 2),
        ("active+clean+deep+scrubbing", 3),
    ]
    status = {"pgmap": {"pgs_by_state": [{"state_name": s, "count": n} for s, n in states]}}
    assert scrubbing(status) == 3  # a shallow scrub is not a deep one; word order is free
    assert scrubbing({}) == 0


def test_the_flags_that_hold_deep_scrubs_back():
    assert held({"flags": "sortbitwise,recovery_deletes,purged_snapdirs"}) == []
    assert held({"flags": "noscrub,sortbitwise"}) == ["noscrub"]
    assert held({"flags": "nodeep-scrub,noscrub"}) == ["noscrub", "nodeep-scrub"]
    assert held({}) == []
