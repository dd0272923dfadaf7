"""``--clients``: a ``fio --server`` on every client host over ssh, for the run and no longer.

Each server listens on a free port of that host's own address (never on every interface:
fio's server has no authentication), is recorded in the resource log before it starts
(hosts/remote.py), and is stopped when the run ends, however it ends: success, error,
Ctrl-C (the runner's clean-up is shielded), and after a kill ``cephbench cleanup`` reaches
the host. Every client's fio must be the version of this machine's fio (the one that talks
to them): fio's protocol differs between versions. Each client gets an RBD image of its
own (made, prefilled and removed like the run's own) unless ``--shared-image``.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from cephbench.errors import ToolFailed, UsageError
from cephbench.resources.shield import deferred_interrupts
from cephbench.store import ResourceLog
from cephbench.targets import FioTarget, Target
from cephbench.tools.fio import command as fio_command
from cephbench.tools.fio.many import Clients, FioServer, read_start

if TYPE_CHECKING:
    from cephbench.ceph.tools import CephTools
    from cephbench.hosts.inventory import Host, Inventory
    from cephbench.hosts.ssh import Ssh

PORTS = (20000, 60999)
"""Where a server's port is drawn from (one no socket of the host listens on)."""
START_ATTEMPTS = 3
_LISTENING = """
i=0
until ss -Htln "sport = :$1" | grep -q .; do
  i=$((i+1)); [ "$i" -gt "$2" ] && exit 1
  sleep 0.05
done
"""


def load_clients(spec: str, target: Target) -> Inventory:
    """The client hosts of ``--clients SPEC``; UsageError unless the target is an RBD one."""
    from cephbench.hosts.load import load_inventory

    if target.kind not in ("rbd", "cephfs"):
        raise UsageError(
            f"--clients runs fio on the client hosts against Ceph; {target.spec} is not there",
            hint="use an rbd: or cephfs: target, e.g. --target rbd:lab or cephfs:lab",
        )
    if target.wants_tree:
        raise UsageError(
            "the metadata suite does not run with --clients",
            hint="run it on this machine (without --clients)",
        )
    inventory = load_inventory(spec, target.cluster)
    if not client_hosts(inventory):
        raise UsageError(f"--clients {spec}: no hosts", hint="name at least one client host")
    return inventory


def preflight_clients(inventory: Inventory, target: Target | None = None) -> None:
    """Before the run starts: every client reachable, with the version of the fio that
    drives them (this machine's, or the Ceph tools' when they reach one: a release lab's)."""
    from cephbench.hosts.ssh import Ssh

    with Ssh(inventory) as ssh:
        found = ssh.each(client_hosts(inventory), lambda h: _fio_version(ssh, h))
    check_versions(found, fio_command.version(_tools(target)))


def _tools(target: Target | None) -> CephTools | None:
    """The Ceph tools of a Ceph target (its fio drives the clients when they reach one)."""
    from cephbench.targets.cluster import CephTarget

    return target.conn.tools if isinstance(target, CephTarget) else None


def client_hosts(inventory: Inventory) -> list[Host]:
    """The hosts that run fio: those with the client role, else every host."""
    return inventory.with_role("client") or list(inventory.hosts)


def check_versions(versions: dict[str, str], local: str) -> None:
    """Every client's fio the version of this machine's; one line naming who differs."""
    wrong = {h: v for h, v in versions.items() if v != local}
    if wrong:
        listed = ", ".join(f"{h} has {v or 'no fio'}" for h, v in wrong.items())
        raise UsageError(
            f"fio versions differ: this machine has {local}, {listed}",
            hint="install the same fio version on every client (fio's client/server protocol "
            "changes between versions)",
        )


@contextmanager
def fio_servers(
    inventory: Inventory, resources: ResourceLog, env: dict[str, str]
) -> Iterator[tuple[tuple[FioServer, ...], Callable[[], dict[str, float]]]]:
    """A fio server on every client host for the block, each in a private directory of its
    host (where fio writes its jobs' ``exec_prerun`` output), stopped and removed afterwards,
    always; and how to read the start times the jobs' gates wrote there. The hosts are set
    up at once, and stopped at once (hosts/relay.py: the resource log still written from
    this thread, each record before what it records is made)."""
    from cephbench.hosts.relay import on_hosts
    from cephbench.hosts.ssh import Ssh

    hosts = client_hosts(inventory)
    with Ssh(inventory) as ssh, ExitStack() as stop:
        # a port for each (which also opens every master connection)
        ports = ssh.each(hosts, lambda h: _free_port(ssh, h))
        made: dict[str, list] = {h.name: [None, None] for h in hosts}  # [directory, server]

        def set_up(host: Host, log: ResourceLog) -> FioServer:
            from cephbench.hosts.remote import remote_tempdir

            made[host.name][0] = remote_tempdir(ssh, host, log)
            server, proc = _start(ssh, host, log, env, made[host.name][0], ports[host.name])
            made[host.name][1] = proc
            return server

        with deferred_interrupts():  # all made and their removal registered; or none begun
            started = on_hosts(hosts, resources, set_up, ssh.fanout)
            stop.callback(_stop_all, ssh, hosts, made, resources)
        failed = [e for e in started.values() if isinstance(e, BaseException)]
        if failed:
            raise failed[0]
        servers = tuple(s for s in started.values() if isinstance(s, FioServer))

        def read_starts() -> dict[str, float]:
            found = ssh.each(hosts, lambda h: _read_starts(ssh, h, made[h.name][0]))
            return {name: t for name, t in found.items() if t is not None}

        yield servers, read_starts


_STARTS = 'cat "$1"/*.prerun.txt 2>/dev/null; rm -f "$1"/*.prerun.txt'


def _stop_all(ssh: Ssh, hosts: list[Host], made: dict[str, list], resources: ResourceLog) -> None:
    """Stop every host's server and remove its directory, all hosts at once; then mark the
    records of what went (from this thread); the first failure raised after that."""
    from cephbench.hosts.relay import on_hosts
    from cephbench.hosts.remote import halt_daemon, remove_tempdir

    resources_done: list[int] = []  # appended to from the worker threads
    dirs_done: list[str] = []

    def down(host: Host, _log: ResourceLog) -> None:
        workdir, proc = made[host.name]
        if proc is not None:
            halt_daemon(ssh, proc)
            resources_done.append(proc.resource_id)
        if workdir is not None:
            remove_tempdir(ssh, host, workdir)
            dirs_done.append(f"{host.name}:{workdir}")

    outcome = on_hosts(hosts, resources, down, ssh.fanout)
    for rid in resources_done:
        resources.removed(rid)
    for r in resources.store.open_resources():
        if r.kind == "remote_dir" and r.name in dirs_done:
            resources.removed(r.id)
    failed = [e for e in outcome.values() if isinstance(e, BaseException)]
    if failed:
        raise failed[0]


def _read_starts(ssh: Ssh, host: Host, workdir: str) -> float | None:
    """The earliest start a job's gate wrote in ``workdir`` (the files removed)."""
    out = ssh.run(host, ["sh", "-c", _STARTS, "sh", workdir], check=False, timeout=30).stdout
    times = [t for line in out.splitlines() if (t := read_start(line)) is not None]
    return min(times) if times else None


def _fio_version(ssh: Ssh, host: Host) -> str:
    result = ssh.run(host, ["fio", "--version"], check=False, timeout=30)
    return result.stdout.strip() if result.returncode == 0 else ""


def _start(
    ssh: Ssh, host: Host, resources: ResourceLog, env: dict[str, str], workdir: str, port: int
):
    """A fio server on a free port of ``host``'s address, listening before it is used."""
    from cephbench.hosts.remote import start_daemon, stop_daemon

    for attempt in range(START_ATTEMPTS):
        port = port if attempt == 0 else _free_port(ssh, host)
        pidfile = f"/tmp/cephbench-fio-{uuid.uuid4().hex[:12]}.pid"
        argv = ["fio", f"--server={host.address},{port}", f"--daemonize={pidfile}"]
        proc = start_daemon(
            ssh,
            host,
            argv,
            kind="fio-server",
            resources=resources,
            pidfile=pidfile,
            env=env,
            cwd=workdir,
        )
        listening = ssh.run(host, ["sh", "-c", _LISTENING, "sh", str(port), "200"], check=False)
        if listening.returncode == 0:
            return FioServer(host.name, host.address, port), proc
        stop_daemon(ssh, proc, resources)  # lost the port to another program: another one
    raise ToolFailed(
        f"fio --server did not start listening on host {host.name} ({host.address})",
        hint=f"run it there by hand to see why: fio --server={host.address},PORT",
    )


def _free_port(ssh: Ssh, host: Host) -> int:
    out = ssh.run(host, ["ss", "-Htln"], timeout=30).stdout
    used = set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) >= 4 and fields[3].rpartition(":")[2].isdigit():
            used.add(int(fields[3].rpartition(":")[2]))
    while True:
        port = random.randint(*PORTS)
        if port not in used:
            return port


@contextmanager
def client_targets(
    target: Target,
    fio_target: FioTarget,
    run_id: int,
    resources: ResourceLog,
    clients: int,
    shared: bool,
) -> Iterator[tuple[dict[str, str], ...]]:
    """Each client's fio target options: the run's image for the first client, and (unless
    ``shared``) an image of its own for each other one, ``<image>-c<N>``, in the same pool
    (checked, and made if need be, with the run's own), made, prefilled (the prefill stored
    with the run, as the run's image's is) and removed as the run's own is."""
    from cephbench.targets.rbd import RbdTarget

    if target.kind == "cephfs":
        raise AssertionError("cephfs clients mount on their hosts: cephfs_client_targets")
    if shared or clients == 1:
        yield (fio_target.options,) * clients
        return
    assert isinstance(target, RbdTarget), "load_clients refuses other targets"
    pool, image = fio_target.options["pool"], fio_target.options["rbdname"]
    with ExitStack() as stack:
        options = [fio_target.options]
        for n in range(2, clients + 1):
            own = stack.enter_context(target.image(pool, f"{image}-c{n}", resources))
            options.append(own.options)
        yield tuple(options)


@contextmanager
def cephfs_client_targets(
    target: Target,
    fio_target: FioTarget,
    run_id: int,
    inventory: Inventory,
    resources: ResourceLog,
    shared: bool,
) -> Iterator[tuple[dict[str, str], ...]]:
    """Each client host mounts the run's filesystem itself (hosts/cephfs.py) and works in a
    directory of its own, ``client-<host>``, made in the run's directory (so removed with
    it), or with ``shared`` (``--shared-dir``) in the run's directory itself, a file each."""
    from cephbench.hosts import cephfs as remote_fs
    from cephbench.hosts.ssh import Ssh
    from cephbench.targets.cephfs import CephfsTarget

    assert isinstance(target, CephfsTarget) and fio_target.tree is not None
    workdir = Path(fio_target.tree)
    hosts = client_hosts(inventory)
    with Ssh(inventory) as ssh, ExitStack() as undo:
        options = []
        for host in hosts:
            with deferred_interrupts():  # recorded and mounted, its removal registered
                made = remote_fs.mount(
                    ssh, host, target.conn, target.fs_name, target.root, resources
                )
                undo.callback(_unmount, ssh, made, resources)
            own = workdir if shared else workdir / f"client-{host.name}"
            own.mkdir(exist_ok=True)
            remote = f"{made.mountpoint}/{workdir.name}" + ("" if shared else f"/{own.name}")
            name = f"cephbench-{run_id}-{host.name}.dat" if shared else f"cephbench-{run_id}.dat"
            options.append({**fio_target.options, "filename": f"{remote}/{name}"})
        yield tuple(options)


def _unmount(ssh, made, resources: ResourceLog) -> None:
    from cephbench.hosts import cephfs as remote_fs

    with deferred_interrupts():
        remote_fs.unmount(ssh, made)
        resources.removed(made.resource_id)


def open_clients(
    stack: ExitStack,
    inventory: Inventory,
    target: Target,
    fio_target: FioTarget,
    run_id: int,
    resources: ResourceLog,
    *,
    shared: bool,
) -> Clients:
    """The run's clients, set up in ``stack``: images first, so the servers (stopped first,
    as the stack unwinds) have let go of them before they are removed."""
    hosts = client_hosts(inventory)
    if target.kind == "cephfs":
        made = cephfs_client_targets(target, fio_target, run_id, inventory, resources, shared)
        options = stack.enter_context(made)
    else:
        options = stack.enter_context(
            client_targets(target, fio_target, run_id, resources, len(hosts), shared)
        )
    servers, read_starts = stack.enter_context(
        fio_servers(inventory, resources, dict(fio_target.env))
    )
    return Clients(servers, options, read_starts, tools=_tools(target))
