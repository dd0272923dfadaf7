"""``compare`` and ``report`` on runs from many clients: per workload and column the clients'
IOPS lowest - highest and the slowest client named, beside the aggregate; stored runs built
from real fio client/server outputs (tests/data/fio/3.33/clients2_*), the expected figures
from their independently computed ``.expected.json``; a comparison without such a run is as
it was (no spread in its JSON, no table)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from cephbench.model import WorkloadOutcome
from cephbench.store import Store
from cephbench.tools.fio.parse import parse
from tests.helpers import FIO_DATA

NAMES = ("node1", "node2")


def _recorded(name: str) -> tuple[str, dict]:
    text = (FIO_DATA / f"{name}.json").read_text()
    return text, json.loads((FIO_DATA / f"{name}.expected.json").read_text())


def _hosts(expected: dict) -> dict[str, str]:
    """fio's ``hostname:port`` of each recorded client -> the host name the run gave it."""
    return dict(zip(expected["clients"], NAMES, strict=True))


def _store(db: Path, label: str, name: str, *, clients: bool = True) -> int:
    """A stored run of the recorded output (its aggregate only, as from one machine, unless
    ``clients``)."""
    text, expected = _recorded(name)
    (job,) = parse(text, hosts=_hosts(expected))
    outcome = job.outcome()
    if not clients:
        outcome = WorkloadOutcome(
            outcome.name, results=tuple(replace(r, clients=()) for r in outcome.results)
        )
    with Store(db) as store:
        run_id = store.start_run(
            label=label, suite="clients", target="rbd:rbd/bench", environment={}, params={}
        )
        store.record_batch(run_id, 0, None, [outcome])
        store.finish_run(run_id, "complete")
    return run_id


def _want(name: str) -> dict[str, tuple[float, float, str]]:
    """op -> (lowest IOPS, highest, slowest host) from the expected per-client figures."""
    _, expected = _recorded(name)
    hosts = _hosts(expected)
    per_op: dict[str, dict[str, float]] = {}
    for key, (workload,) in expected["clients"].items():
        for r in workload["results"]:
            per_op.setdefault(r["op"], {})[hosts[key]] = r["iops"]
    return {
        op: (min(v.values()), max(v.values()), min(v, key=lambda h: v[h]))
        for op, v in per_op.items()
    }


@pytest.mark.parametrize("name", ["clients2_randread", "clients2_randrw_numjobs2"])
def test_compare_json_has_each_clients_iops_and_the_slowest(db, invoke_json, name):
    one = _store(db, "one machine", name, clients=False)
    many = _store(db, "two clients", name)
    doc = invoke_json("compare", str(one), str(many))  # checked against comparison-1
    want = _want(name)
    spread = doc["client_spread"]
    assert [(s["op"], s["column"]) for s in spread] == [(op, str(many)) for op in want]
    for s in spread:
        low, high, slowest = want[s["op"]]
        assert s["iops_min"] == pytest.approx(low, rel=1e-12)
        assert s["iops_max"] == pytest.approx(high, rel=1e-12)
        assert s["slowest"] == slowest and s["fastest"] != slowest
        assert sorted(s["iops"]) == sorted(NAMES) and s["samples"] == 1
        # the spread is of the clients of the aggregate the rows compare
        (row,) = [r for r in doc["rows"] if r["op"] == s["op"] and r["metric"] == "iops"]
        assert row["values"][str(many)] == pytest.approx(sum(s["iops"].values()), rel=1e-12)


def test_pooled_runs_give_each_clients_mean(db, invoke_json):
    base = _store(db, "base", "clients2_randread")
    a = _store(db, "again", "clients2_randread")
    b = _store(db, "again", "clients2_randread")
    doc = invoke_json("compare", str(base), str(a), str(b))
    low, high, slowest = _want("clients2_randread")["read"]
    by_column = {s["column"]: s for s in doc["client_spread"]}
    assert set(by_column) == {str(base), str(a)}
    pooled = by_column[str(a)]
    assert pooled["samples"] == 2  # the same figures twice: each client's mean is its figure
    assert (pooled["slowest"], pooled["iops_min"], pooled["iops_max"]) == (
        slowest,
        pytest.approx(low, rel=1e-12),
        pytest.approx(high, rel=1e-12),
    )


def test_table_and_markdown_name_the_slowest_client(db, invoke):
    one = _store(db, "one machine", "clients2_randrw_numjobs2", clients=False)
    many = _store(db, "two clients", "clients2_randrw_numjobs2")
    want = _want("clients2_randrw_numjobs2")
    md = invoke("compare", str(one), str(many), "--format", "md").stdout
    table = md[md.index("**Per-client IOPS") :]
    for op, (low, high, slowest) in want.items():
        line = next(x for x in table.splitlines() if x.startswith(f"| c2_randrw ({op}) |"))
        assert line == (
            f"| c2_randrw ({op}) | n/a | {low:.0f} - {high:.0f} (2 clients, slowest {slowest}) |"
        )
    rich = invoke("compare", str(one), str(many)).stdout
    assert "Per-client IOPS" in rich and f"slowest {want['read'][2]}" in rich


def test_no_spread_without_a_run_from_many_clients(db, invoke, invoke_json):
    a = _store(db, "a", "clients2_randread", clients=False)
    b = _store(db, "b", "clients2_randread", clients=False)
    assert "client_spread" not in invoke_json("compare", str(a), str(b))
    assert "Per-client" not in invoke("compare", str(a), str(b), "--format", "md").stdout


@pytest.mark.parametrize("suffix", [".html", ".md"])
def test_report_shows_the_spread(db, invoke, tmp_path, suffix):
    one = _store(db, "one machine", "clients2_randread", clients=False)
    many = _store(db, "two clients", "clients2_randread")
    out = tmp_path / f"report{suffix}"
    invoke("report", str(one), str(many), "-o", str(out))
    text = out.read_text()
    low, high, slowest = _want("clients2_randread")["read"]
    assert "Per-client IOPS" in text
    assert f"{low:.0f} - {high:.0f} (2 clients, slowest {slowest})" in text
