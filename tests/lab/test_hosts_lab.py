"""The hosts feature on the 3-host lab, reached over its own sshds (``lab up --ssh``):
``hosts check``, an unreachable host, ``--drop-caches --hosts``, and ``cleanup`` reaching a
host after a killed run."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from cephbench.hosts.load import load_inventory
from cephbench.hosts.session import RunHosts
from cephbench.lab import sshd
from cephbench.lab.info import info_from_state
from cephbench.lab.paths import Layout
from cephbench.lab.state import load, locked
from cephbench.store import Store
from tests.helpers import alive, wait_for


@pytest.fixture
def hosts_lab(lab3, monkeypatch):
    monkeypatch.setenv("CEPHBENCH_LAB_DIR", str(lab3.dir))
    layout = Layout(lab3.dir)
    state = load(layout)
    assert state is not None
    return layout, state


def _version(argv: list[str]) -> str:
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout.splitlines()[0]


def _ssh_clients(config: Path) -> list[int]:
    """ssh processes using the lab's ssh config (clients and their masters)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmd = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if cmd.startswith(b"ssh") and str(config).encode() in cmd and alive(int(entry.name)):
                found.append(int(entry.name))
    return found


def test_hosts_check_sees_the_three_lab_hosts(hosts_lab, invoke_json):
    layout, state = hosts_lab
    doc = invoke_json("hosts", "check", "--hosts", "lab")
    hosts = doc["hosts"]
    assert [(h["name"], h["address"]) for h in hosts] == [
        (f"host{i}", a) for i, a in enumerate(state.host_addrs)
    ]
    assert all(h["reachable"] and h["root"] for h in hosts)
    tools = info_from_state(layout, state).tools  # the lab's release's programs
    assert {h["fio"] for h in hosts} == {_version(tools.argv("fio", "--version"))}
    iperf3 = re.match(r"iperf (\S+)", _version(tools.argv("iperf3", "--version")))
    assert iperf3 and {h["iperf3"] for h in hosts} == {iperf3.group(1)}
    assert {h["kernel"] for h in hosts} == {os.uname().release}
    primary = [[n for n in h["nics"] if n["primary"]] for h in hosts]
    assert [p[0]["mtu"] for p in primary] == [1500, 1500, 1500]
    assert doc["warnings"] == []
    assert sorted(hosts[0]["roles"]) == ["client", "mgr", "mon", "osd"]
    assert not _ssh_clients(sshd.config_path(layout))  # masters stopped on the way out


def test_an_unreachable_host_is_one_line_naming_it(hosts_lab, invoke):
    layout, state = hosts_lab
    sshd.stop(layout, "host2", state.sshd["host2"])
    try:
        out = invoke("hosts", "check", "--hosts", "lab", "--connect-timeout", "3", expect=1)
        addr = state.host_addrs[2]
        assert f"Error: cannot reach host host2 ({addr}) over ssh: connect to host {addr}" in (
            out.output
        )
        assert f"try: ssh root@{addr} true" in out.output
        assert "Traceback" not in out.output
        assert not _ssh_clients(sshd.config_path(layout))  # nothing left running
    finally:
        pid = sshd.start(layout, state, "host2")
        with locked(layout) as s:
            s.sshd["host2"] = pid


def _resident(path: Path) -> int:
    out = subprocess.run(
        ["fincore", "--json", "--bytes", str(path)], capture_output=True, text=True, check=True
    ).stdout
    return int(json.loads(out)["fincore"][0]["res"])


def test_drop_caches_on_every_host(hosts_lab, invoke, invoke_json, db, tmp_path, bench_dir):
    _, state = hosts_lab
    warm = tmp_path / "warm"
    warm.write_bytes(os.urandom(4 << 20))
    # read inside host1's namespace, dropped by host1's own drop over ssh (and nothing else)
    subprocess.run(["ip", "netns", "exec", state.namespaces[1], "cat", str(warm)],
                   check=True, capture_output=True)  # fmt: skip
    assert _resident(warm) > 0
    inv = load_inventory("lab")
    with RunHosts(type(inv)((inv.host("host1"),), "lab", inv.ssh_config)) as one:
        dropped = one.drop()
    assert list(dropped) == ["host1"] and _resident(warm) == 0

    job = tmp_path / "one.fio"
    job.write_text("[read1]\nrw=randread\nbs=4k\nsize=4m\nruntime=1\ntime_based\n")
    invoke("run", str(job), "--target", f"file:{bench_dir}", "--drop-caches", "--hosts", "lab")
    run = invoke_json("show", "last")
    assert run["status"] == "complete" and run["params"]["hosts"] == "lab"
    assert sorted(run["environment"]["hosts"]) == ["host0", "host1", "host2"]
    assert run["environment"]["hosts"]["host2"]["nics"]["eth0"]["mtu"] == 1500
    with Store(db) as store:
        drops = [v for s in store.series(run["id"], "drop_caches") for v in s.values]
    assert len(drops) == 1 and sorted(drops[0]["hosts"]) == ["host0", "host1", "host2"]
    assert all(set(d) == {"cached_before", "cached_after"} for d in drops[0]["hosts"].values())


_KILLED_RUN = """
import os, sys
from cephbench.hosts.load import load_inventory
from cephbench.hosts.remote import start_daemon
from cephbench.hosts.ssh import Ssh
from cephbench.store import ResourceLog, Store

store = Store(sys.argv[1])
run_id = store.start_run(label=None, suite="t", target="t", environment={}, params={})
inv = load_inventory("lab")
h = inv.host("host1")
ssh = Ssh(inv)
p = start_daemon(ssh, h, ["iperf3", "-s", "-D", "-B", h.address, "-p", "5299", "-I", sys.argv[2]],
                 kind="iperf3_server", resources=ResourceLog(store, run_id), pidfile=sys.argv[2])
print(p.pid, ssh.control_dir, flush=True)
os.kill(os.getpid(), 9)
"""


def test_cleanup_after_a_killed_run_stops_the_remote_daemon(hosts_lab, invoke, db, tmp_path):
    pidfile = str(tmp_path / "iperf3.pid")
    proc = subprocess.run(
        [sys.executable, "-c", _KILLED_RUN, str(db), pidfile], capture_output=True, text=True
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    pid, control = int(proc.stdout.split()[0]), Path(proc.stdout.split()[1])
    assert alive(pid)  # the lab's hosts share this machine's pid space
    out = invoke("cleanup")
    # the console wraps long paths anywhere, even inside a word: compare without whitespace
    said = "".join(out.output.split())
    assert f"removedremote_processhost1:{pidfile}(run1)" in said
    wait_for(lambda: not alive(pid), "the remote iperf3 server to be gone", timeout=10)
    assert not Path(pidfile).exists()
    # the killed process's ssh master and its socket directory: ended as `close` would
    assert f"removedssh_control_dir{control}" in said
    assert not control.exists()
    wait_for(lambda: not _processes_naming(str(control)), "its ssh master to exit", timeout=10)
    assert "Nothing to clean up" in invoke("cleanup").output


def _processes_naming(text: str) -> list[int]:
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if text.encode() in cmdline.read_bytes():
                found.append(int(cmdline.parent.name))
        except OSError:
            continue
    return found
