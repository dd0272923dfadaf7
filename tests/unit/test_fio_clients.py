"""fio's client/server output (real fio 3.33, two servers on loopback): each client's results
and cephbench's aggregate, against figures computed independently by record_clients.py; the
aggregate is the clients' sum exactly, fio's "All clients" entry never used; a run's stored
results keep each client's under the aggregate."""

from __future__ import annotations

import json
import math

import pytest

from cephbench.model import Result
from cephbench.store import Store
from cephbench.tools.fio.clients import host_names
from cephbench.tools.fio.parse import extract, parse
from tests.corpus import FIO_FIELDS
from tests.helpers import FIO_DATA

RECORDED = ("clients2_randread", "clients2_randrw_numjobs2")


def _load(name: str) -> tuple[str, dict]:
    return (
        (FIO_DATA / f"{name}.json").read_text(),
        json.loads((FIO_DATA / f"{name}.expected.json").read_text()),
    )


def _same(got, want) -> bool:
    if isinstance(want, float) and isinstance(got, float):
        return math.isclose(got, want, rel_tol=1e-9)
    return got == want


def _check(result: Result, want: dict) -> None:
    assert result.op == want["op"]
    wrong = {
        k: (getattr(result, k), want[k])
        for k in FIO_FIELDS
        if not _same(getattr(result, k), want[k])
    }
    assert not wrong


@pytest.mark.parametrize("name", RECORDED)
def test_each_client_and_the_aggregate_as_computed_independently(name):
    text, expected = _load(name)
    (job,) = parse(text)
    (want,) = expected["runs"][0]["workloads"]
    assert job.name == want["name"] and len(job.results) == len(want["results"])
    for result, agg in zip(job.results, want["results"], strict=True):
        _check(result, agg)
        assert result.host is None
        assert [c.host for c in result.clients] == list(expected["clients"])  # hostname:port
        for client in result.clients:
            (theirs,) = expected["clients"][client.host]
            mine = [r for r in theirs["results"] if r["op"] == result.op]
            _check(client, mine[0])


@pytest.mark.parametrize("name", RECORDED)
def test_the_aggregate_is_the_clients_sum_exactly_not_fios_all_clients(name):
    text, _ = _load(name)
    (job,) = parse(text)
    everyone = [c for c in extract(text).data["client_stats"] if c["jobname"] == "All clients"]
    assert everyone  # fio printed its own sum; it is not what is stored
    for r in job.results:
        assert len(r.clients) == 2
        assert r.iops == math.fsum(c.iops for c in r.clients)
        assert r.bw_bytes_per_s == math.fsum(c.bw_bytes_per_s for c in r.clients)
        assert r.total_ios == sum(c.total_ios for c in r.clients)
        assert r.io_bytes == sum(c.io_bytes for c in r.clients)
        assert r.numjobs == r.clients[0].numjobs
        assert r.lat_max_us == max(c.lat_max_us for c in r.clients)
        # the means weighted by the clients' I/Os (each client's mean is over its own I/Os)
        weighted = sum(c.lat_mean_us * c.total_ios for c in r.clients) / r.total_ios
        assert r.lat_mean_us == pytest.approx(weighted, rel=1e-6)
        assert min(c.lat_p99_us for c in r.clients) <= r.lat_p99_us
        assert r.lat_p99_us <= max(c.lat_p99_us for c in r.clients)


def test_clients_are_named_by_the_hosts_given_else_by_hostname():
    text, _ = _load("clients2_randread")
    entries = [c for c in extract(text).data["client_stats"] if c["jobname"] != "All clients"]
    keys = [f"{e['hostname']}:{e['port']}" for e in entries]
    assert host_names(entries, {}) == {k: k for k in keys}  # one hostname, two ports
    named = {keys[0]: "node1", keys[1]: "node2"}
    (job,) = parse(text, hosts=named)
    assert [c.host for c in job.results[0].clients] == ["node1", "node2"]
    one = [dict(e, hostname=f"10.0.0.{i}") for i, e in enumerate(entries)]
    assert list(host_names(one, {}).values()) == ["10.0.0.0", "10.0.0.1"]


def test_stored_with_their_hosts_under_the_aggregate(tmp_path):
    text, _ = _load("clients2_randrw_numjobs2")
    (job,) = parse(text, hosts={})
    with Store(tmp_path / "r.db") as store:
        run_id = store.start_run(label=None, suite="s", target="t", environment={}, params={})
        store.record_batch(run_id, 0, None, [job.outcome()])
        run = store.get_run(run_id)
        hosts = [r[0] for r in store.conn.execute("SELECT host FROM results ORDER BY id")]
    assert run.results == job.results  # every figure, the clients' included, as parsed
    assert hosts == [None, *[c.host for c in job.results[0].clients]] * 2
    assert json.loads(json.dumps(run.to_json()))["results"][0]["clients"][1]["host"] == hosts[2]


def test_show_notes_the_spread_and_names_the_slowest_client():
    from cephbench.model import Run
    from cephbench.tables.run_table import run_table

    text, _ = _load("clients2_randrw_numjobs2")
    (job,) = parse(text, hosts={})
    run = Run(1, None, "s", "t", "complete", "2026-01-01T00:00:00", results=job.results)
    notes = [
        n for n in run_table(run).notes if not n.startswith(("[", "Every row:"))
    ]  # not the footnotes
    read = job.results[0]
    slow = min(read.clients, key=lambda c: c.iops)
    assert notes[0].startswith("Aggregate of 2 clients")
    assert notes[1].startswith("c2_randrw (read): IOPS ") and f"({slow.host}, slowest)" in notes[1]
    alone = Run(
        2, None, "s", "t", "complete", "2026-01-01T00:00:00", results=(replace_clients(read),)
    )
    assert not [
        n for n in run_table(alone).notes if not n.startswith(("[", "Every row:"))
    ]  # as before


def replace_clients(r: Result) -> Result:
    from dataclasses import replace

    return replace(r, clients=())


def test_an_imported_client_server_output_keeps_every_clients_figures(invoke):
    text, _ = _load("clients2_randrw_numjobs2")
    (job,) = parse(text, hosts={})
    invoke("import", str(FIO_DATA / "clients2_randrw_numjobs2.json"))
    back = json.loads(invoke("show", "last", "--format", "json").stdout)
    assert [r["clients"] for r in back["results"]] == [r.to_json()["clients"] for r in job.results]
