"""Things cephbench starts or makes on other hosts (fio and iperf3 servers, temporary
directories), recorded in the resource log *before* they exist so that ``cephbench cleanup``
can reach the host and undo them after a killed run.

A daemon is stopped by pid only after ``/proc/PID/cmdline`` shows it is still the program
cephbench started: a pid reused by something else is never signalled.
"""

from __future__ import annotations

import posixpath
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from cephbench.errors import CephbenchError, ToolFailed
from cephbench.hosts.inventory import Host, Inventory
from cephbench.hosts.ssh import Ssh
from cephbench.resources.undo import undoes
from cephbench.store.resources import Resource, ResourceLog

WAIT_SECONDS = 15
"""How long a daemon may take to write its pid file, and to exit once asked."""
TEMP_PREFIX = "cephbench-"

# Remote helper scripts: constant text run by `sh -c`, every variable a positional argument
# (so nothing the user named is ever parsed by the remote shell).
_START = """
pidfile=$1 tries=$2
shift 2
"$@" || exit $?
i=0
while [ ! -s "$pidfile" ]; do
  i=$((i+1)); [ "$i" -gt "$tries" ] && { echo "no pid file $pidfile" >&2; exit 3; }
  sleep 0.1
done
cat "$pidfile"
"""
"""Start a self-daemonizing program (the arguments after the pid file and the tries) and print
its pid once its pid file holds it: one ssh call."""
_STOP = """
pidfile=$1 program=$2 limit=$3
[ -s "$pidfile" ] || exit 0
pid=$(cat "$pidfile")
case "$pid" in ''|*[!0-9]*) echo "bad pid file $pidfile" >&2; exit 4;; esac
running() {
  [ -r /proc/$pid/cmdline ] || return 1
  exe=$(tr '\\000' '\\n' < /proc/$pid/cmdline | head -n 1)
  [ "${exe##*/}" = "$program" ]
}
if running; then
  kill -TERM "$pid" 2>/dev/null
  i=0
  while running; do
    i=$((i+1))
    if [ "$i" -gt "$limit" ]; then kill -KILL "$pid" 2>/dev/null; fi
    [ "$i" -gt $((limit*2)) ] && { echo "pid $pid ($program) did not stop" >&2; exit 5; }
    sleep 0.1
  done
fi
rm -f -- "$pidfile"
"""


@dataclass(frozen=True)
class RemoteProcess:
    """A daemon cephbench started on a host, as recorded in the resource log."""

    host: Host
    pidfile: str
    program: str
    resource_id: int
    pid: int | None = None
    root: bool = False


def start_daemon(
    ssh: Ssh,
    host: Host,
    argv: list[str],
    *,
    kind: str,
    resources: ResourceLog,
    pidfile: str,
    root: bool = False,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
) -> RemoteProcess:
    """Start a self-daemonizing program (``fio --server --daemonize=PIDFILE``, ``iperf3 -s
    -D -I PIDFILE``) on ``host``: recorded first, then started, then its pid read back.
    ``env``: variables the program runs with, ``cwd`` its directory (set through ``env``,
    which execs it: the pid is still the program's own)."""
    if not posixpath.isabs(pidfile):
        raise ValueError(f"pid file {pidfile} must be an absolute path")
    program = posixpath.basename(argv[0])
    rid = resources.add(
        "remote_process",
        f"{host.name}:{pidfile}",
        recorded_detail(
            ssh.inventory, host, pidfile=pidfile, program=program, daemon=kind, root=root
        ),
    )
    proc = RemoteProcess(host, pidfile, program, rid, None, root)
    chdir = ["-C", cwd] if cwd else []
    setenv = ["env", *chdir, *(f"{k}={v}" for k, v in (env or {}).items())] if env or cwd else []
    try:
        out = ssh.run(
            host,
            ["sh", "-c", _START, "sh", pidfile, str(WAIT_SECONDS * 10), *setenv, *argv],
            root=root,
            check=False,
        )
        if out.returncode != 0 or not out.stdout.strip().isdigit():
            raise ToolFailed(
                f"{program} on host {host.name} did not start: {out.last_error_line()}",
                hint=f"run it by hand there to see why: {' '.join(argv)}",
            )
    except BaseException:  # a failure or a Ctrl-C: it may still be starting, stop what is there
        stop_daemon(ssh, proc, resources)
        raise
    return RemoteProcess(host, pidfile, program, rid, int(out.stdout.strip()), root)


def stop_daemon(ssh: Ssh, proc: RemoteProcess, resources: ResourceLog) -> None:
    """Stop the daemon (TERM, then KILL) if its pid is still that program; mark it removed."""
    halt_daemon(ssh, proc)
    resources.removed(proc.resource_id)


def halt_daemon(ssh: Ssh, proc: RemoteProcess) -> None:
    """:func:`stop_daemon` without marking the record: for stopping on many hosts at once
    from worker threads (the caller marks the records, from the store's own thread)."""
    _stop(ssh, proc.host, proc.pidfile, proc.program, proc.root)


def remote_tempdir(ssh: Ssh, host: Host, resources: ResourceLog) -> str:
    """A new private directory under /tmp on ``host``, recorded before it is made."""
    path = f"/tmp/{TEMP_PREFIX}{uuid.uuid4().hex[:12]}"
    resources.add(
        "remote_dir", f"{host.name}:{path}", recorded_detail(ssh.inventory, host, path=path)
    )
    ssh.run(host, ["mkdir", "-m", "700", "--", path])
    return path


def remove_tempdir(ssh: Ssh, host: Host, path: str) -> None:
    """Remove a directory :func:`remote_tempdir` made (and only such a directory)."""
    if not posixpath.basename(path).startswith(TEMP_PREFIX) or posixpath.dirname(path) != "/tmp":
        raise CephbenchError(f"{path} on {host.name} is not a cephbench directory; not removing it")
    ssh.run(host, ["rm", "-rf", "--", path])


def _stop(ssh: Ssh, host: Host, pidfile: str, program: str, root: bool) -> None:
    ssh.run(
        host,
        ["sh", "-c", _STOP, "sh", pidfile, program, str(WAIT_SECONDS * 10)],
        root=root,
        timeout=WAIT_SECONDS * 3,
    )


def recorded_detail(inventory: Inventory, host: Host, **extra: Any) -> dict[str, Any]:
    """What cleanup needs to reach the host again: the host and the ssh config used."""
    return {
        "host": host.to_json(),
        "ssh_config": str(inventory.ssh_config) if inventory.ssh_config else None,
        "source": inventory.source,
        **extra,
    }


def reach(resource: Resource) -> tuple[Ssh, Host]:
    """An Ssh and the host a resource recorded with :func:`recorded_detail` lives on."""
    d = resource.detail
    inv = Inventory.from_json(
        {
            "hosts": [d["host"]],
            "source": d.get("source", "recorded"),
            "ssh_config": d.get("ssh_config"),
        }
    )
    return Ssh(inv, connect_timeout=10), inv.hosts[0]


@undoes("remote_process")
def undo_process(resource: Resource) -> None:
    ssh, host = reach(resource)
    d = resource.detail
    with ssh:
        _stop(ssh, host, d["pidfile"], d["program"], bool(d.get("root")))


@undoes("remote_dir")
def undo_dir(resource: Resource) -> None:
    ssh, host = reach(resource)
    with ssh:
        remove_tempdir(ssh, host, resource.detail["path"])


def start_daemons(
    ssh: Ssh,
    argvs: dict[str, list[str]],
    *,
    kind: str,
    resources: ResourceLog,
    pidfiles: dict[str, str],
) -> list[RemoteProcess]:
    """:func:`start_daemon` on several hosts at once (host name -> its argv and pid file):
    all recorded first (here: the resource log is this thread's), then started and their
    pids read back in parallel. On any failure every one that started is stopped."""
    hosts = [ssh.inventory.host(name) for name in argvs]
    procs: dict[str, RemoteProcess] = {}
    for h in hosts:
        if not posixpath.isabs(pidfiles[h.name]):
            raise ValueError(f"pid file {pidfiles[h.name]} must be an absolute path")
        program = posixpath.basename(argvs[h.name][0])
        rid = resources.add(
            "remote_process",
            f"{h.name}:{pidfiles[h.name]}",
            recorded_detail(
                ssh.inventory, h, pidfile=pidfiles[h.name], program=program, daemon=kind
            ),
        )
        procs[h.name] = RemoteProcess(h, pidfiles[h.name], program, rid)

    def start(h: Host) -> int:
        out = ssh.run(
            h,
            ["sh", "-c", _START, "sh", pidfiles[h.name], str(WAIT_SECONDS * 10), *argvs[h.name]],
            check=False,
        )
        if out.returncode != 0 or not out.stdout.strip().isdigit():
            raise ToolFailed(
                f"{procs[h.name].program} on host {h.name} did not start: {out.last_error_line()}",
                hint=f"run it by hand there to see why: {' '.join(argvs[h.name])}",
            )
        return int(out.stdout.strip())

    try:
        pids = ssh.each(hosts, start)
    except BaseException:
        stop_daemons(ssh, list(procs.values()), resources)
        raise
    return [replace(p, pid=pids[name]) for name, p in procs.items()]


def stop_daemons(ssh: Ssh, procs: list[RemoteProcess], resources: ResourceLog) -> None:
    """:func:`stop_daemon` on several hosts at once; each marked removed once stopped."""
    by_host = {p.host.name: p for p in procs}

    def stop(h: Host) -> BaseException | None:
        p = by_host[h.name]
        try:
            _stop(ssh, h, p.pidfile, p.program, p.root)
        except Exception as e:  # kept open in the log: `cephbench cleanup` tries again
            return e
        return None

    errors = ssh.each([p.host for p in procs], stop)
    for name, err in errors.items():
        if err is None:
            resources.removed(by_host[name].resource_id)
    first = next((e for e in errors.values() if e is not None), None)
    if first is not None:
        raise first
