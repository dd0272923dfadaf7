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
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from cephbench.hosts.inventory import Inventory
from cephbench.hosts.remote import (
    RemoteProcess,
    remote_tempdir,
    remove_tempdir,
    start_daemon,
    stop_daemon,
)
from cephbench.hosts.ssh import DEFAULT_FANOUT, Ssh
from cephbench.resources.undo import undoes
from cephbench.store import Resource, ResourceLog, Store
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
    """Commands on the suite's hosts. Methods that record resources take the log to record
    in: the steps start and stop each host's servers from a thread of its own, with a log on
    that thread's own connection to the store (:func:`thread_log`)."""

    hosts: list[NetHost]
    resources: ResourceLog
    avoid_ports: tuple[tuple[int, int], ...] = ()
    """Port ranges no server may take (the lab's daemons' blocks)."""
    transport: str

    @abstractmethod
    def run(self, host: NetHost, argv: list[str], timeout: float) -> ProcessResult:
        """``argv`` on ``host`` to its end; a non-zero exit is returned, not raised."""

    @abstractmethod
    def pidfile(self, host: NetHost, port: int, log: ResourceLog) -> str:
        """Where the server of ``port`` on ``host`` writes its pid."""

    @abstractmethod
    def start_server(
        self, host: NetHost, argv: list[str], port: int, pidfile: str, log: ResourceLog
    ) -> Server:
        """Record, then start a daemonizing server that writes ``pidfile``."""

    @abstractmethod
    def stop_server(self, server: Server, log: ResourceLog) -> None:
        """Stop it (only if its pid is still that server) and mark it removed."""

    @abstractmethod
    def close(self) -> None:
        """Remove what ``pidfile`` made, release the transport (ssh masters); the servers
        are stopped before."""


@contextmanager
def thread_log(resources: ResourceLog) -> Iterator[ResourceLog]:
    """The run's resource log through a connection of the calling thread (an SQLite
    connection serves the thread that opened it only)."""
    with Store(resources.store.path) as store:
        yield ResourceLog(store, resources.run_id)


class NetnsExec(HostExec):
    """The lab's hosts are network namespaces of this machine: ``ip netns exec NS argv``."""

    transport = "netns"

    def __init__(
        self,
        hosts: list[NetHost],
        namespaces: dict[str, str],
        resources: ResourceLog,
        run_id: int,
        avoid_ports: tuple[tuple[int, int], ...],
    ):
        self.hosts, self.namespaces, self.resources = hosts, namespaces, resources
        self.run_id, self.avoid_ports = run_id, avoid_ports

    def run(self, host: NetHost, argv: list[str], timeout: float) -> ProcessResult:
        return run(["ip", "netns", "exec", self.namespaces[host.name], *argv], timeout=timeout)

    def pidfile(self, host: NetHost, port: int, log: ResourceLog) -> str:
        return f"{tempfile.gettempdir()}/cephbench-iperf3-{self.run_id}-{host.name}-{port}.pid"

    def start_server(
        self, host: NetHost, argv: list[str], port: int, pidfile: str, log: ResourceLog
    ) -> Server:
        ns = self.namespaces[host.name]
        rid = log.add(SERVER_KIND, host.name, {"pidfile": pidfile, "netns": ns})
        server = Server(host, port, pidfile, rid)
        try:
            run(["ip", "netns", "exec", ns, *argv], timeout=15, check=True)
        except BaseException:
            self.stop_server(server, log)
            raise
        return server

    def stop_server(self, server: Server, log: ResourceLog) -> None:
        stop_local(server.pidfile)
        assert isinstance(server.handle, int)
        log.removed(server.handle)

    def close(self) -> None:
        pass


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
def undo_server(resource: Resource) -> None:
    stop_local(resource.detail["pidfile"])


class SshExec(HostExec):
    """Real hosts (or a lab started with ``--ssh``): every command through the system ssh;
    servers' pidfiles in a private directory on each host, recorded and removed."""

    transport = "ssh"

    def __init__(self, inventory: Inventory, resources: ResourceLog):
        self.inventory, self.resources = inventory, resources
        self.ssh = Ssh(inventory)
        self.hosts = [NetHost(h.name, h.address) for h in inventory.hosts]
        self._by_name = {h.name: h for h in inventory.hosts}
        self._dirs: dict[str, str] = {}

    def run(self, host: NetHost, argv: list[str], timeout: float) -> ProcessResult:
        return self.ssh.run(self._by_name[host.name], argv, timeout=timeout, check=False)

    def pidfile(self, host: NetHost, port: int, log: ResourceLog) -> str:
        if host.name not in self._dirs:
            self._dirs[host.name] = remote_tempdir(self.ssh, self._by_name[host.name], log)
        return f"{self._dirs[host.name]}/iperf3-{port}.pid"

    def start_server(
        self, host: NetHost, argv: list[str], port: int, pidfile: str, log: ResourceLog
    ) -> Server:
        h = self._by_name[host.name]
        proc = start_daemon(self.ssh, h, argv, kind=SERVER_KIND, resources=log, pidfile=pidfile)
        return Server(host, port, pidfile, proc)

    def stop_server(self, server: Server, log: ResourceLog) -> None:
        assert isinstance(server.handle, RemoteProcess)
        stop_daemon(self.ssh, server.handle, log)

    def close(self) -> None:
        """Remove the pidfile directories (each marked removed), then end the masters."""
        try:
            dirs = list(self._dirs.items())
            with ThreadPoolExecutor(max_workers=max(1, min(DEFAULT_FANOUT, len(dirs)))) as pool:
                list(pool.map(lambda d: self._remove_dir(*d), dirs))  # the first error raised
            self._dirs = {}
            ids = self._dir_ids()
            for name, path in dirs:
                if (rid := ids.get(f"{name}:{path}")) is not None:
                    self.resources.removed(rid)
        finally:
            self.ssh.close()

    def _remove_dir(self, name: str, path: str) -> None:
        remove_tempdir(self.ssh, self._by_name[name], path)

    def _dir_ids(self) -> dict[str, int]:
        """The run's recorded, not yet removed ``remote_dir`` resources by name."""
        return {
            r.name: r.id
            for r in self.resources.store.open_resources()
            if r.kind == "remote_dir" and r.run_id == self.resources.run_id
        }
