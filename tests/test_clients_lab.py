"""fio from many clients at once on the 3-host lab (``--clients lab``): each client's figures
stored under the aggregate, which is their sum exactly, with the measured start skew; and
Ctrl-C in the middle of the run leaves no fio server, remote directory or image anywhere."""

from __future__ import annotations

import math
import os
import signal
from pathlib import Path

import pytest

from cephbench.hosts.inventory import load_lab
from cephbench.store import Store
from tests.helpers import wait_for
from tests.interrupt_lab import query, start

pytestmark = pytest.mark.lab
# one image for all (--shared-image): an image per client costs its creation and, after a
# Ctrl-C mid-I/O (fio's servers end their jobs without closing the image), the wait for its
# watches and the blocklisting, ~8 s an image; the test is about the clients' figures and
# their servers, which are the same either way
ARGS = (
    *("quick", "--clients", "lab", "--shared-image"),
    *("--size", "16m", "--pg-num", "8", "--no-prefill"),
)


def _servers(addresses: list[str]) -> dict[int, int]:
    """fio servers bound to one of the lab's host addresses (whatever their parent), and
    the processes they forked to run a client's jobs: pid -> parent pid."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().decode(errors="replace")
            stat = Path(f"/proc/{entry}/stat").read_bytes()
        except OSError:
            continue
        if any(f"--server={a}," in argv for a in addresses):
            found[int(entry)] = int(stat[stat.rfind(b")") + 2 :].split()[1])
    return found


def _running_jobs(addresses: list[str]) -> int:
    """How many servers run a client's jobs (a forked fio under the daemon)."""
    servers = _servers(addresses)
    return len({parent for parent in servers.values() if parent in servers})


@pytest.fixture
def hosts(lab3, monkeypatch):
    monkeypatch.setenv("CEPHBENCH_LAB_DIR", str(lab3.dir))
    return load_lab(lab3.dir)


def _stored_workloads(db: Path) -> int:
    return len(query(db, "SELECT DISTINCT workload_id FROM results WHERE host IS NOT NULL"))


def test_clients_add_up_to_the_aggregate_and_ctrl_c_leaves_no_fio_server(lab3, hosts, db):
    """One run (the lab budget): Ctrl-C once the first workload is stored and the second
    runs on every client (each server running its client's jobs)."""
    addresses = [h.address for h in hosts.hosts]
    run = start(db, lab3, *ARGS, "--runtime", "1")
    try:
        run.wait_for(
            lambda: (
                _stored_workloads(db) == 1
                and run.child("fio", "--client=")
                and _running_jobs(addresses) == 3
            )
        )
        servers = _servers(addresses)
        daemons = [p for p, parent in servers.items() if parent not in servers]
        assert len(daemons) == 3  # one server on each client, bound to its address
        run.proc.send_signal(signal.SIGINT)
        _out, err = run.proc.communicate(timeout=180)
    finally:
        if run.proc.poll() is None:
            run.proc.kill()
            run.proc.wait()
    assert run.proc.returncode != 0 and "Traceback" not in err
    wait_for(lambda: _servers(addresses) == {}, "every fio server gone", timeout=30)
    with Store(db) as store:
        stored = store.get_run("last")
        assert store.open_resources() == []  # servers, their directories, images, pool
    names = [h.name for h in hosts.hosts]
    assert stored.status == "aborted" and stored.params["clients"] == names
    assert [r.workload for r in stored.results] == ["seq_wr"]
    for r in stored.results:
        assert r.host is None and [c.host for c in r.clients] == names
        assert all(c.iops and c.iops > 0 and c.workload == r.workload for c in r.clients)
        assert r.iops == math.fsum(c.iops for c in r.clients)
        assert r.bw_bytes_per_s == math.fsum(c.bw_bytes_per_s for c in r.clients)
        assert r.total_ios == sum(c.total_ios for c in r.clients)
        assert r.io_bytes == sum(c.io_bytes for c in r.clients)
        assert dict(r.metrics)["start_skew_ms"] >= 0
