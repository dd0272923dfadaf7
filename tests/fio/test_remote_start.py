"""The one ssh call that starts a remote daemon (``hosts.remote._START``), its script run by a
real ``sh`` on this machine as ssh would run it on a host: a self-daemonizing iperf3 on
loopback started and its pid printed; a program that fails, or never writes its pid file,
said so without waiting out the tries."""

from __future__ import annotations

import os
import signal
import socket
from pathlib import Path

from cephbench.hosts.remote import _START
from cephbench.system.process import run, which


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_daemon_is_started_and_its_pid_printed(tmp_path: Path):
    pidfile = tmp_path / "iperf3.pid"
    argv = [which("iperf3"), "-s", "-D", "-1", "-B", "127.0.0.1", "-p", str(_free_port())]
    result = run(["sh", "-c", _START, "sh", str(pidfile), "50", *argv, "-I", str(pidfile)])
    pid = int(result.stdout.strip())
    try:
        assert result.returncode == 0
        assert Path(f"/proc/{pid}/comm").read_text().strip() == "iperf3"
        assert pidfile.read_text().strip() == str(pid)
    finally:
        os.kill(pid, signal.SIGTERM)


def test_a_program_that_fails_is_said_at_once(tmp_path: Path):
    result = run(["sh", "-c", _START, "sh", str(tmp_path / "x.pid"), "50", "false"])
    assert result.returncode == 1 and result.stdout == ""


def test_no_pid_file_after_the_tries_is_said(tmp_path: Path):
    pidfile = tmp_path / "never.pid"
    result = run(["sh", "-c", _START, "sh", str(pidfile), "3", "true"])
    assert result.returncode == 3
    assert f"no pid file {pidfile}" in result.stderr
