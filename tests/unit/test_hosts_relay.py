"""Work on many hosts at once with one resource log (hosts/relay.py): the workers' log calls
are made by the thread that owns the store (SQLite refuses any other), each before the worker
goes on; every host's outcome is kept, a failure beside the others' results."""

from __future__ import annotations

import threading

from cephbench.hosts.inventory import Host
from cephbench.hosts.relay import on_hosts
from cephbench.store import ResourceLog, Store

HOSTS = [Host(f"host{i}", f"10.0.0.{i}") for i in range(5)]


def test_log_calls_from_workers_are_made_by_the_owner_and_failures_kept(tmp_path):
    owner = threading.get_ident()
    workers = set()

    def set_up(host: Host, log: ResourceLog) -> int:
        workers.add(threading.get_ident())
        rid = log.add("remote_dir", f"{host.name}:/tmp/x", {"host": host.name})
        if host.name == "host3":
            raise RuntimeError("host3 failed after its record")
        log.removed(rid)  # the record exists by now: the call returned its id
        return rid

    with Store(tmp_path / "r.db") as store:
        run_id = store.start_run(label=None, suite="s", target="t", environment={}, params={})
        log = ResourceLog(store, run_id)
        out = on_hosts(HOSTS, log, set_up, fanout=4)
        left = store.open_resources()
    assert owner not in workers  # the work ran in other threads
    assert list(out) == [h.name for h in HOSTS]
    failed = out.pop("host3")
    assert isinstance(failed, RuntimeError) and "host3" in str(failed)
    assert all(isinstance(v, int) for v in out.values()) and len(set(out.values())) == 4
    assert [r.name for r in left] == ["host3:/tmp/x"]  # recorded, never removed


def test_without_hosts_nothing_runs(tmp_path):
    with Store(tmp_path / "r.db") as store:
        log = ResourceLog(store, None)
        assert on_hosts([], log, lambda h, _log: h.name, fanout=16) == {}
