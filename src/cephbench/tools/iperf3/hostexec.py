"""Where the network suite runs its commands: on the lab's hosts through their network
namespaces (``ip netns exec``, a lab started without ``--ssh``), or on real hosts over ssh.

Both give the suite the same four things: run a command on a host, start an iperf3 server
daemon on it (recorded in the resource log before it starts), stop it (by pid, after
checking the process is that server), and a place for its pidfile. The suite's logic
(pairs, processes, ping, MTU) is the same whichever way the commands travel.
"""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path

from cephbench.execution.cleanup import undoes
from cephbench.store import Resource, ResourceLog
from cephbench.system.process import ProcessResult, run

SERVER_KIND = "iperf3_server"


@dataclass(frozen=True)
class NetHost:
    """A host of the suite: the name results use, the address servers bind and peers reach."""

    name: str
    address: str


@dataclass(frozen=True)
class Server:
    host: NetHost
    port: int
    pidfile: str
    handle: object
    """What the executor needs to stop it (a resource id, a remote process)."""


class HostExec(ABC):
    """Commands on the suite's hosts."""

    hosts: list[NetHost]
    avoid_ports: list[tuple[int, int]] = []
    """Port ranges no server may take (the lab's daemons' blocks)."""
    transport: str

    @abstractmethod
    def run(self, host: NetHost, argv: list[str], timeout: float) -> ProcessResult:
        """``argv`` on ``host`` to its end; a non-zero exit is returned, not raised."""

    @abstractmethod
    def start_server(self, host: NetHost, argv: list[str], port: int, pidfile: str) -> Server:
        """Record, then start a daemonizing server that writes ``pidfile``."""

    @abstractmethod
    def stop_server(self, server: Server) -> None:
        """Stop it (only if its pid is still that server) and mark it removed."""

    @abstractmethod
    def pidfile(self, host: NetHost, port: int) -> str:
        """Where the server of ``port`` on ``host`` writes its pid."""

    def close(self) -> None:
        """Release the transport (ssh masters); servers are stopped before."""


class NetnsExec(HostExec):
    """The lab's hosts are network namespaces of this machine: ``ip netns exec NS argv``."""

    transport = "netns"

    def __init__(
        self,
        hosts: list[NetHost],
        namespaces: dict[str, str],
        resources: ResourceLog,
        run_id: int,
        avoid_ports: list[tuple[int, int]],
    ):
        self.hosts, self.namespaces, self.resources = hosts, namespaces, resources
        self.run_id, self.avoid_ports = run_id, avoid_ports

    def run(self, host: NetHost, argv: list[str], timeout: float) -> ProcessResult:
        return run(["ip", "netns", "exec", self.namespaces[host.name], *argv], timeout=timeout)

    def pidfile(self, host: NetHost, port: int) -> str:
        return f"{tempfile.gettempdir()}/cephbench-iperf3-{self.run_id}-{host.name}-{port}.pid"

    def start_server(self, host: NetHost, argv: list[str], port: int, pidfile: str) -> Server:
        ns = self.namespaces[host.name]
        rid = self.resources.add(SERVER_KIND, host.name, {"pidfile": pidfile, "netns": ns})
        server = Server(host, port, pidfile, rid)
        try:
            run(["ip", "netns", "exec", ns, *argv], timeout=15, check=True)
        except BaseException:
            self.stop_server(server)
            raise
        return server

    def stop_server(self, server: Server) -> None:
        stop_local(server.pidfile)
        assert isinstance(server.handle, int)
        self.resources.removed(server.handle)


def _pid_of(pidfile: str) -> int | None:
    """The iperf3 server's pid from its pidfile, only if that process is the one we started."""
    try:
        pid = int(Path(pidfile).read_text().strip().rstrip("\0"))
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except (OSError, ValueError):
        return None
    return pid if "iperf3" in cmdline and pidfile in cmdline else None


def stop_local(pidfile: str) -> None:
    """Stop the local (namespaced) iperf3 server of ``pidfile`` and wait until it is gone."""
    pid = _pid_of(pidfile)
    if pid is not None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 5
        while _pid_of(pidfile) is not None and time.monotonic() < deadline:
            time.sleep(0.05)
        if (pid := _pid_of(pidfile)) is not None:  # pragma: no cover - iperf3 ignored SIGTERM
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    Path(pidfile).unlink(missing_ok=True)


@undoes(SERVER_KIND)
def _undo_server(resource: Resource) -> None:
    stop_local(resource.detail["pidfile"])
