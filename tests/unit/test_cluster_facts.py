"""diagnose's cluster probe reads what the run's fingerprint already holds (collected as the
run started) from the fingerprint, and asks the cluster only for the rest; an entry the
fingerprint could not read (its error) is asked again. Recorded lab outputs, no cluster."""

from __future__ import annotations

import json
from contextlib import ExitStack
from types import SimpleNamespace

from cephbench.diagnose.facts import ClusterFacts
from cephbench.diagnose.session import DiagnoseOptions, Session
from cephbench.tools.base import Step
from tests.helpers import DATA

CEPH = DATA / "ceph" / "16.2.15"
RECORDED = {
    ("osd", "tree"): "osd-tree.json",
    ("osd", "dump"): "osd-dump.json",
    ("osd", "pool", "ls", "detail"): "osd-pool-ls-detail.json",
    ("osd", "crush", "rule", "dump"): "crush-rule-dump.json",
    ("status",): "status.json",
}


def _json(args: tuple[str, ...]):
    name = RECORDED.get(args)
    return json.loads((CEPH / name).read_text()) if name else {}


def _probe(facts: dict) -> tuple[Session, list[tuple[str, ...]]]:
    ctx = SimpleNamespace(cluster_facts=facts, target=SimpleNamespace(pool=None))
    session = Session(ctx, DiagnoseOptions(quick=True), ExitStack())  # type: ignore[arg-type]
    asked: list[tuple[str, ...]] = []

    def ceph_many(*commands):
        asked.extend(commands)
        return [(Step(0, None, []), _json(c)) for c in commands]

    session.ceph_many = ceph_many  # type: ignore[method-assign]
    list(ClusterFacts().run(session))
    return session, asked


def test_what_the_fingerprint_holds_is_not_asked_again():
    facts = {
        "osd_tree": _json(("osd", "tree")),
        "pools": _json(("osd", "pool", "ls", "detail")),
        "crush_rules": _json(("osd", "crush", "rule", "dump")),
        "status": _json(("status",)),
    }
    with_facts, asked = _probe(facts)
    assert asked == [("osd", "dump"), ("pg", "dump", "pgs_brief"), ("config", "get", "client")]
    without, asked_all = _probe({})
    assert len(asked_all) == 7
    assert with_facts.evidence == without.evidence  # the same evidence either way
    assert with_facts.evidence["osds"] and with_facts.evidence["pools"]


def test_an_entry_the_fingerprint_could_not_read_is_asked():
    _, asked = _probe({"osd_tree": {"error": "timed out"}, "status": _json(("status",))})
    assert ("osd", "tree") in asked and ("status",) not in asked
