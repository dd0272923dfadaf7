"""fio's client/server mode for real, on loopback: two ``fio --server`` on free ports, one
workload started on both through the start gate, each client's figures under an aggregate
that is their sum exactly, and the measured start skew."""

from __future__ import annotations

import math
import os
import signal
import socket
from pathlib import Path
from types import SimpleNamespace

import pytest

from cephbench.system.process import run
from cephbench.tools.fio.jobfile import parse_jobfile
from cephbench.tools.fio.many import SKEW_METRIC, Clients, FioServer, read_start, run_clients_batch
from cephbench.tools.fio.plan import Batch
from tests.helpers import alive, wait_for

JOB = """[global]
filename={data}
size=8m
ioengine=libaio
direct=1
runtime=1
time_based
lat_percentiles=1
[lo_randread]
rw=randread
bs=4k
iodepth=4
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def servers(tmp_path):
    """Two fio servers, each in a directory of its own (where its jobs' prerun output lands)."""
    found, pids = [], []
    try:
        for k in range(2):
            home = tmp_path / f"server{k}"
            home.mkdir()
            port, pidfile = _free_port(), home / "fio.pid"
            run(
                ["fio", f"--server=127.0.0.1,{port}", f"--daemonize={pidfile}"],
                cwd=str(home),
                check=True,
            )
            pids.append(wait_for(lambda p=pidfile: p.exists() and int(p.read_text()), "pid"))
            wait_for(lambda p=port: _listening(p), "the server listening")
            found.append((FioServer(f"lo{k}", "127.0.0.1", port), home))
        yield found
    finally:
        for pid in pids:
            os.kill(pid, signal.SIGTERM)
        for pid in pids:
            wait_for(lambda p=pid: not alive(p), "the server gone", timeout=30)


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def _starts(homes: list[Path], names: list[str]) -> dict[str, float]:
    out = {}
    for home, name in zip(homes, names, strict=True):
        for f in home.glob("*.prerun.txt"):
            t = read_start(f.read_text())
            f.unlink()
            if t is not None:
                out[name] = t
    return out


def test_one_workload_on_two_servers_at_once(servers, tmp_path):
    homes = [h for _, h in servers]
    names = [s.name for s, _ in servers]
    clients = Clients(
        tuple(s for s, _ in servers),
        ({}, {}),
        lambda: _starts(homes, names),
    )
    batches = [
        Batch(parse_jobfile(JOB.format(data=tmp_path / f"data{k}")), chained=False)
        for k in range(2)
    ]
    work = tmp_path / "work"
    work.mkdir()
    ctx = SimpleNamespace(progress=SimpleNamespace(update=lambda *a: None))
    step = run_clients_batch(ctx, clients, 0, batches, work)  # type: ignore[arg-type]
    (outcome,) = step.outcomes
    assert outcome.error is None, step.raw.stderr if step.raw else ""
    (r,) = outcome.results
    assert [c.host for c in r.clients] == names
    assert all(c.iops > 0 and c.total_ios > 0 for c in r.clients)
    assert r.iops == math.fsum(c.iops for c in r.clients)
    assert r.total_ios == sum(c.total_ios for c in r.clients)
    skew = dict(r.metrics)[SKEW_METRIC]
    assert skew >= 0
    assert list(homes[0].glob("*.prerun.txt")) == []  # read and removed
    assert "--client=127.0.0.1," in " ".join(step.raw.argv)
