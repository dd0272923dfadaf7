"""``compare`` shows what changed on one host between runs (``environment["hosts"]``), from
host facts recorded over the lab's ssh (tests/data/hosts-facts/debian12)."""

from __future__ import annotations

import copy

from cephbench.analysis.envdiff import env_diff
from cephbench.hosts.session import fingerprint, parse_drop
from cephbench.store import Store
from tests.helpers import ENV, store_run
from tests.unit.test_hosts_facts import facts

IOPS = [[1000, 2000, 30000, 12000]]


def _hosts(host2: dict) -> dict:
    return {"host1": fingerprint(facts("lab-host1")), "host2": fingerprint(host2)}


def test_mtu_and_kernel_changed_on_one_host(db, invoke_json):
    before = _hosts(facts("lab-host1"))  # host2 the same as host1 at first
    after = _hosts(facts("lab-host2-mtu1400"))
    newer = copy.deepcopy(after)
    newer["host2"]["kernel"] = "6.1.0-28-amd64"  # a copy edited: the recordings share a kernel
    ids = [store_run(db, f"r{i}", IOPS, env={**ENV, "hosts": h}) for i, h in enumerate(
        (before, after, newer))]  # fmt: skip
    with Store(db) as s:
        diffs = env_diff([s.get_run(i) for i in ids])
    got = {d.path: list(d.values.values()) for d in diffs}
    assert got == {
        "hosts.host2.nics.eth0.mtu": [1500, 1400, 1400],
        "hosts.host2.kernel": ["6.18.44-fc-v769", "6.18.44-fc-v769", "6.1.0-28-amd64"],
    }
    shown = invoke_json("compare", *map(str, ids))["env_diff"]
    assert {d["path"]: d["values"][str(ids[1])] for d in shown} == {
        "hosts.host2.nics.eth0.mtu": 1400,
        "hosts.host2.kernel": "6.18.44-fc-v769",
    }


def test_fingerprint_leaves_out_addresses():
    fp = fingerprint(facts("lab-host1"))
    assert fp["nics"] == {
        "eth0": {"mtu": 1500, "speed_mbps": 10000, "state": "up", "primary": True}
    }
    assert fp["disks"]["vda"] == {"model": None, "rotational": True, "size_bytes": 274877906944}
    assert "address" not in fp


def test_remote_drop_output():
    out = "Cached:          1231584 kB\nCached:           243520 kB\n"
    assert parse_drop(out) == {"cached_before": 1231584 * 1024, "cached_after": 243520 * 1024}
