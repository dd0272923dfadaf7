"""A run from one client (one pod, one host) shows no per-client block: its table is that
client's figures; a run from many shows the block in lines that fit 80 columns, no client's
name split; the prefill of many volumes is one note with their number (issue 34, item 3).

The figures are real fio 3.33 client/server output (two servers on loopback, see
tests/data/fio/3.33/clients2_randrw_numjobs2.source.md), its clients named as pods are."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from cephbench.model import RawOutput, Run, WorkloadOutcome
from cephbench.store import Store
from cephbench.tables.clients import client_notes
from cephbench.tools.fio.parse import extract, parse
from tests.helpers import FIO_DATA

PODS = ("cephbench-12-b59c-fio-0@node-with-a-long-name", "cephbench-12-b59c-fio-1@node-b")


def _outcome(clients: int) -> WorkloadOutcome:
    """The recorded workload, from its two clients or (as one pod's run stores it) the first."""
    text = (FIO_DATA / "clients2_randrw_numjobs2.json").read_text()
    entries = [c for c in extract(text).data["client_stats"] if c["jobname"] != "All clients"]
    keys = list(dict.fromkeys(f"{e['hostname']}:{e['port']}" for e in entries))
    (job,) = parse(text, hosts=dict(zip(keys, PODS, strict=True)))
    results = job.results
    if clients == 1:
        results = tuple(replace(r, clients=r.clients[:1]) for r in results)
    return WorkloadOutcome(job.name, results)


def _prefill(pod: str | None, seconds: float) -> RawOutput:
    argv = ["fio", "--name=prefill", "--rw=write", "--bs=4M", "--size=1G"]
    return RawOutput(
        "fio-prefill",
        [f"pod/{pod}", *argv] if pod else argv,
        None,
        "{}",
        "",
        0,
        "2026-01-01T00:00:00+00:00",
        seconds,
    )


def _stored(db: Path, clients: int, prefills: list[RawOutput]) -> int:
    with Store(db) as store:
        run_id = store.start_run(
            label=None, suite="quick", target="rbd:lab", environment={}, params={}
        )
        for output in prefills:
            store.record_batch(run_id, 0, output, [])
        store.record_batch(run_id, 0, None, [_outcome(clients)])
        store.finish_run(run_id, "complete")
    return run_id


def _show_at_80(invoke, monkeypatch, run_id: int):
    monkeypatch.setenv("COLUMNS", "80")
    from cephbench.cli.common import console

    monkeypatch.setattr(console, "_console", None)  # a console of this width, as a pipe gets
    return invoke("show", str(run_id))


def test_one_client_has_no_per_client_block(db, invoke, monkeypatch):
    outcome = _outcome(1)
    assert all(len(r.clients) == 1 for r in outcome.results)  # stored as one pod's run is
    run = Run(
        1, None, "quick", "rbd:lab", "complete", "2026-01-01T00:00:00", results=outcome.results
    )
    assert client_notes(run) == []
    out = _show_at_80(invoke, monkeypatch, _stored(db, 1, [])).stdout
    assert "per client" not in out and "Aggregate of" not in out and "slowest" not in out


def test_many_clients_block_fits_80_columns_with_names_whole(db, invoke, monkeypatch):
    outcome = _outcome(2)
    run = Run(
        1, None, "quick", "rbd:lab", "complete", "2026-01-01T00:00:00", results=outcome.results
    )
    block = client_notes(run)
    assert block[0].startswith("Aggregate of 2 clients (")
    assert max(map(len, block)) <= 80
    text = " ".join(block)
    for r in outcome.results:
        slow = min(r.clients, key=lambda c: c.iops or 0.0)
        assert f"{r.workload} ({r.op}): IOPS " in text and f"({slow.host}, slowest)" in text
    out = _show_at_80(invoke, monkeypatch, _stored(db, 2, [])).stdout
    assert max(map(len, out.splitlines())) <= 80
    lines = [line.rstrip() for line in out.splitlines()]
    for line in block:  # printed as built: none wrapped again by the terminal's width
        assert line in lines, line
    for pod in PODS:
        assert pod in out


@pytest.mark.parametrize(
    ("pods", "expected"),
    [
        (
            None,
            "Prefill: the 3 new RBD images were each written once (1G each, sequential 4M), "
            "one after another, in 6.0 s before the workloads.",
        ),
        (
            ("a", "b", "c"),
            "Prefill: the 3 new volumes were each written once (1G each, sequential 4M), by "
            "their 3 pods at once, in 3.0 s before the workloads.",
        ),
    ],
)
def test_the_prefill_of_many_volumes_is_one_note_with_their_number(
    db, invoke, monkeypatch, pods, expected
):
    seconds = (1.0, 2.0, 3.0) if pods is None else (3.0, 3.0, 3.0)
    outputs = [_prefill(p, s) for p, s in zip(pods or (None,) * 3, seconds, strict=True)]
    stderr = _show_at_80(invoke, monkeypatch, _stored(db, 2, outputs)).stderr
    notes = [line for line in stderr.splitlines() if line.startswith("Prefill:")]
    assert " ".join(stderr.split()).count("Prefill:") == 1
    assert " ".join(stderr.split()).find(expected) >= 0, stderr
    assert len(notes) == 1


def test_the_prefill_of_one_image_says_so_as_before(db, invoke, monkeypatch):
    stderr = _show_at_80(invoke, monkeypatch, _stored(db, 1, [_prefill(None, 4.25)])).stderr
    assert (
        "Prefill: the new RBD image was written once (1G, sequential 4M) in 4.2 s before the "
        "workloads." in " ".join(stderr.split())
    )


def test_compare_of_one_client_runs_has_no_per_client_table(db, invoke, monkeypatch):
    one = [_stored(db, 1, []) for _ in range(2)]
    monkeypatch.setenv("COLUMNS", "200")
    assert "Per-client IOPS" not in invoke("compare", *map(str, one)).stdout
    many = _stored(db, 2, [])
    assert "Per-client IOPS" in invoke("compare", str(one[0]), str(many)).stdout
