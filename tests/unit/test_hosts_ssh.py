"""The ssh command line and the remote quoting: what cephbench sends is exactly the argv it
meant, whatever the names contain (pure)."""

from __future__ import annotations

import gc
import os
import shlex
import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cephbench.hosts.inventory import Host, Inventory
from cephbench.hosts.ssh import (
    Ssh,
    remote_command,
    remove_control_dir,
    ssh_options,
    stale_control_dirs,
    unreachable_cause,
)

SSH_DATA = Path(__file__).parents[1] / "data" / "ssh" / "9.2p1"
H = Host("n1", "10.0.0.1")


@given(st.lists(st.text(min_size=0, max_size=20), min_size=1, max_size=6))
def test_remote_command_round_trips(argv):
    assert shlex.split(remote_command(H, argv)) == argv


def test_hostile_arguments_stay_arguments():
    argv = ["echo", "$(reboot)", "; rm -rf /", "`id`", "a b", "'q'", "\n"]
    assert shlex.split(remote_command(H, argv)) == argv


def test_root_through_sudo_only_when_needed():
    argv = ["sh", "-c", "echo 3 > /proc/sys/vm/drop_caches"]
    sudoer = Host("n1", "10.0.0.1", user="ceph", sudo=True)
    assert shlex.split(remote_command(sudoer, argv, root=True)) == ["sudo", "-n", "--", *argv]
    assert shlex.split(remote_command(sudoer, argv)) == argv
    root = Host("n1", "10.0.0.1", user="root", sudo=True)
    assert shlex.split(remote_command(root, argv, root=True)) == argv
    assert shlex.split(remote_command(H, argv, root=True)) == argv  # logs in as root


def test_ssh_options(tmp_path: Path):
    inv = Inventory((H,), "lab", tmp_path / "config")
    host = Host("n2", "10.0.0.2", user="bench", port=2022)
    opts = ssh_options(inv, host, tmp_path, 4.6)
    assert opts[:2] == ["-F", str(tmp_path / "config")]
    pairs = dict(o.split("=", 1) for o in opts[3::2] if "=" in o)
    assert pairs["BatchMode"] == "yes" and pairs["ControlMaster"] == "auto"
    assert pairs["ControlPath"] == f"{tmp_path}/%C" and pairs["ConnectTimeout"] == "5"
    assert opts[-4:] == ["-l", "bench", "-p", "2022"]
    own = ssh_options(Inventory((H,), "list"), H, tmp_path, 10)
    assert "-F" not in own and "-l" not in own and "-p" not in own  # the user's config rules


def test_argv_ends_with_address_after_double_dash(monkeypatch):
    monkeypatch.setattr("cephbench.hosts.ssh.which", lambda *a: "/usr/bin/ssh")
    with Ssh(Inventory((H,), "list")) as ssh:
        argv = ssh.argv(H, "true")
        control = ssh.control_dir
        assert stat.S_IMODE(control.stat().st_mode) == 0o700
    assert argv[0] == "/usr/bin/ssh" and argv[-3:] == ["--", "10.0.0.1", "true"]
    assert not control.exists()  # closing removes the private directory


def test_an_ssh_never_closed_leaves_no_directory():
    ssh = Ssh(Inventory((H,), "list"))
    control = ssh.control_dir
    assert control.name.startswith(f"cb-ssh-{os.getpid()}-")
    del ssh
    gc.collect()
    assert not control.exists()


def test_stale_control_dirs_are_those_of_processes_gone(tmp_path):
    never = int(Path("/proc/sys/kernel/pid_max").read_text())  # pids stay below it
    live = tmp_path / f"cb-ssh-{os.getpid()}-abc"
    dead = tmp_path / f"cb-ssh-{never}-xyz"
    for d in (live, dead, tmp_path / "cb-ssh-old_form", tmp_path / "cb-ssh-x-1"):
        d.mkdir()
    (dead / "not-a-socket").write_text("")
    assert stale_control_dirs(tmp_path) == [dead]
    remove_control_dir(dead)
    assert not dead.exists() and live.exists()
    assert stale_control_dirs(tmp_path) == []


@pytest.mark.parametrize(
    "name, reason",
    [
        ("refused", "connect to host 127.0.0.1 port 1: Connection refused"),
        ("resolve", "Could not resolve hostname nosuchhost.invalid: Name or service not known"),
        ("unreachable", "connect to host 10.99.0.1 port 22: Network is unreachable"),
    ],
)
def test_unreachable_causes_from_real_ssh(name, reason):
    cause = unreachable_cause((SSH_DATA / f"{name}.stderr").read_text(), H)
    assert cause is not None and cause[0] == reason
    assert "10.0.0.1" in cause[1]


def test_a_failing_remote_command_is_not_unreachable():
    assert unreachable_cause("ls: cannot access '/x': No such file or directory\n", H) is None


def test_each_raises_the_first_error_after_all_finished():
    ssh = Ssh(Inventory((H,), "list"), fanout=2)
    hosts = [Host(f"h{i}", f"h{i}") for i in range(5)]
    done = []

    def fn(h: Host) -> str:
        done.append(h.name)
        if h.name in ("h1", "h3"):
            raise ValueError(h.name)
        return h.name.upper()

    with pytest.raises(ValueError, match="h1"):
        ssh.each(hosts, fn)
    assert sorted(done) == [h.name for h in hosts]
    assert ssh.each(hosts[:1], fn) == {"h0": "H0"}
