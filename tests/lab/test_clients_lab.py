"""fio from many clients at once on the 3-host lab (``--clients lab``): each client's figures
stored under the aggregate, which is their sum exactly, with the measured start skew; each
client's own image prefilled, the prefills stored with the run; and
Ctrl-C in the middle of the run leaves no fio server, remote directory or image anywhere."""

from __future__ import annotations

import json
import math
import os
import signal
from pathlib import Path

import pytest

from cephbench.hosts.load import load_lab
from cephbench.store import Store
from tests.helpers import wait_for
from tests.interrupt_lab import query, start

ARGS = ("quick", "--clients", "lab", "--size", "16m", "--pg-num", "8")


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


def _measuring(db: Path) -> int:
    """How many clients' jobs are past their start gate, doing I/O: the gate writes the
    time it opened in the server's directory (execution/clients.py), removed once read."""
    dirs = [n.partition(":")[2] for (n,) in query(db, _DIRS)]
    return sum(len(list(Path(d).glob("*.prerun.txt"))) for d in dirs if d.startswith("/tmp/"))


_DIRS = "SELECT name FROM resources WHERE kind = 'remote_dir' AND removed_at IS NULL"


@pytest.fixture
def hosts(lab3, monkeypatch):
    monkeypatch.setenv("CEPHBENCH_LAB_DIR", str(lab3.dir))
    return load_lab(lab3.dir)


def _stored_workloads(db: Path) -> int:
    return len(query(db, "SELECT DISTINCT workload_id FROM results WHERE host IS NOT NULL"))


def test_clients_add_up_to_the_aggregate_and_ctrl_c_leaves_no_fio_server(lab3, hosts, db):
    """One run (the lab budget): Ctrl-C once the first workload is stored and the second
    does I/O on every client. (Ctrl-C during its set-up works as well, but fio's servers then
    end their jobs without closing the images, whose watches cost ~8 s an image to end.)"""
    addresses = [h.address for h in hosts.hosts]
    run = start(db, lab3, *ARGS, "--runtime", "1")
    try:
        run.wait_for(
            lambda: (
                _stored_workloads(db) == 1 and run.child("fio", "--client=") and _measuring(db) == 3
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
        prefills = [o for o in store.outputs(stored.id) if o["tool"] == "fio-prefill"]
    names = [h.name for h in hosts.hosts]
    # each client's image written once before the reads, each prefill stored with the run
    images = sorted(a.partition("=")[2] for o in prefills for a in o["argv"] if "rbdname=" in a)
    assert len(images) == 3 and images[1:] == [f"{images[0]}-c2", f"{images[0]}-c3"]
    assert all(
        json.loads(o["stdout"])["jobs"][0]["write"]["io_bytes"] == 16 << 20 for o in prefills
    )
    assert stored.status == "aborted" and stored.params["clients"] == names
    # the second workload stopped (or, if it ended before Ctrl-C reached it, the third)
    assert [r.workload for r in stored.results][:1] == ["seq_wr"] and len(stored.results) <= 2
    for r in stored.results:
        assert r.host is None and [c.host for c in r.clients] == names
        assert all(c.iops and c.iops > 0 and c.workload == r.workload for c in r.clients)
        assert r.iops == math.fsum(c.iops for c in r.clients)
        assert r.bw_bytes_per_s == math.fsum(c.bw_bytes_per_s for c in r.clients)
        assert r.total_ios == sum(c.total_ios for c in r.clients)
        assert r.io_bytes == sum(c.io_bytes for c in r.clients)
        assert dict(r.metrics)["start_skew_ms"] >= 0
