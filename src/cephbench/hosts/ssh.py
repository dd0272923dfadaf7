"""Reaching hosts: the system ``ssh``, so the user's ``~/.ssh/config``, ProxyJump and agent
work as they already do; never a password (``BatchMode=yes``), one master connection per host
(``ControlMaster``) with its socket in a private directory, and a bounded fan-out.

Every remote command is an argument list quoted for the remote shell here, in one place.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import tempfile
import threading
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from cephbench.errors import CephbenchError, ToolFailed
from cephbench.hosts.inventory import Host, Inventory
from cephbench.system.process import ProcessResult, ProcessTimeout, run, which

T = TypeVar("T")

CONTROL_PERSIST = 60
"""Seconds a master connection outlives its last use (``close`` ends it sooner)."""
DEFAULT_FANOUT = 16
"""Hosts contacted at once: sshd accepts about 10 new sessions a second (MaxStartups)."""
SSH_FAILED = 255
CONTROL_PREFIX = "cb-ssh-"
"""The master sockets' directory: ``cb-ssh-PID-XXXX`` in the temp dir, so ``cleanup`` can tell
one a killed process left (its PID gone) from one in use."""

_UNREACHABLE = (
    (re.compile(r"Permission denied|Too many authentication failures"), "key"),
    (re.compile(r"Host key verification failed|REMOTE HOST IDENTIFICATION"), "hostkey"),
    (re.compile(r"Could not resolve hostname|Name or service not known"), "resolve"),
    (
        re.compile(
            r"Connection refused|timed out|No route to host|Network is unreachable|"
            r"Connection closed|Connection reset|kex_exchange_identification|lost connection|"
            r"Broken pipe|Could not request local forwarding"
        ),
        "connect",
    ),
)


class HostUnreachable(CephbenchError):
    """ssh could not log in to a host: one line naming it, and what to do."""

    def __init__(self, host: Host, reason: str, hint: str):
        super().__init__(f"cannot reach host {host.name} ({host.address}) over ssh: {reason}", hint)
        self.host = host


class Ssh:
    """The system ssh with BatchMode=yes, ControlMaster=auto, ControlPersist, ControlPath in a
    private directory; a context manager (closing stops the masters)."""

    def __init__(
        self, inventory: Inventory, *, connect_timeout: float = 10, fanout: int = DEFAULT_FANOUT
    ):
        if fanout < 1:
            raise ValueError("fanout must be at least 1")
        self.inventory = inventory
        self.connect_timeout = connect_timeout
        self.fanout = fanout
        self._control: Path | None = None
        self._used: set[str] = set()
        self._lock = threading.Lock()
        self._finalizer: weakref.finalize[[Path], Ssh] | None = None

    def __enter__(self) -> Ssh:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def control_dir(self) -> Path:
        """The private (0700) directory of the master sockets, made on first use."""
        with self._lock:
            if self._control is None:
                # mkdtemp makes it 0700; a short path: sockets are limited to ~100 bytes
                self._control = Path(tempfile.mkdtemp(prefix=f"{CONTROL_PREFIX}{os.getpid()}-"))
                # an Ssh nobody closed still stops its masters and leaves no directory
                self._finalizer = weakref.finalize(self, remove_control_dir, self._control)
            return self._control

    def argv(self, host: Host, remote: str) -> list[str]:
        """The local ssh argv that runs the (already quoted) ``remote`` command on ``host``."""
        return [
            which("ssh", "openssh-client"),
            *ssh_options(self.inventory, host, self.control_dir, self.connect_timeout),
            "--",
            host.address,
            remote,
        ]

    def run(
        self,
        host: Host,
        argv: list[str],
        *,
        root: bool = False,
        timeout: float | None = 60,
        check: bool = True,
        input: str | None = None,
    ) -> ProcessResult:
        """``argv`` on ``host`` (quoted for its shell; ``sudo -n`` when ``root`` needs it).

        An unreachable host raises :class:`HostUnreachable` within ``connect_timeout``; with
        ``check``, a command that fails raises ToolFailed naming the host and the command.
        """
        with self._lock:
            self._used.add(host.address)
        local = self.argv(host, remote_command(host, argv, root=root))
        limit = None if timeout is None else timeout + self.connect_timeout
        try:
            result = run(local, timeout=limit, stdin=input)
        except ProcessTimeout as e:
            if e.result.returncode == SSH_FAILED or not e.result.stdout:
                cause = unreachable_cause(e.result.stderr, host)
                if cause is not None:
                    raise HostUnreachable(host, *cause) from None
            raise ToolFailed(
                f"{argv[0]} on host {host.name} did not finish within {timeout:g} s",
                hint="is the host overloaded, or the command stuck?",
            ) from None
        if result.returncode == SSH_FAILED:
            cause = unreachable_cause(result.stderr, host)
            if cause is not None:
                raise HostUnreachable(host, *cause)
        if root and _needs_password(result.stderr):
            raise CephbenchError(
                f"host {host.name}: sudo asks for a password",
                hint=f"allow passwordless sudo for {host.user or 'the ssh user'} there, "
                "or log in as root",
            )
        if check and result.returncode != 0:
            raise ToolFailed(f"{argv[0]} on host {host.name} failed: {result.last_error_line()}")
        return result

    def each(self, hosts: Sequence[Host], fn: Callable[[Host], T]) -> dict[str, T]:
        """``fn`` on every host, at most ``fanout`` at once; the first error (in host order)
        is raised after all have finished, so no host is left half done."""
        if not hosts:
            return {}
        with ThreadPoolExecutor(max_workers=min(self.fanout, len(hosts))) as pool:
            futures = [(h, pool.submit(fn, h)) for h in hosts]
        out: dict[str, T] = {}
        first: BaseException | None = None
        for h, fut in futures:
            err = fut.exception()
            if err is not None:
                first = first or err
            else:
                out[h.name] = fut.result()
        if first is not None:
            raise first
        return out

    def close(self) -> None:
        """Stop the master connections and remove their private directory."""
        with self._lock:
            control, used = self._control, sorted(self._used)
            finalizer = self._finalizer
            self._control, self._used, self._finalizer = None, set(), None
        if control is None:
            return
        if finalizer is not None:
            finalizer.detach()
        ssh = shutil.which("ssh")
        for address in used:
            host = next((h for h in self.inventory.hosts if h.address == address), None)
            if host is None or ssh is None:
                continue
            opts = ssh_options(self.inventory, host, control, self.connect_timeout)
            with contextlib.suppress(CephbenchError):
                run([ssh, *opts, "-O", "exit", "--", address], timeout=self.connect_timeout)
        shutil.rmtree(control, ignore_errors=True)


def remove_control_dir(control: Path) -> None:
    """Stop the master connection behind every socket in ``control`` and remove it: for an
    Ssh that was never closed, or the directory of a process that was killed."""
    ssh = shutil.which("ssh")
    with contextlib.suppress(OSError):
        for sock in control.iterdir():
            if ssh is not None and sock.is_socket():
                with contextlib.suppress(CephbenchError):  # a master already gone: nothing to do
                    run(
                        [ssh, "-o", f"ControlPath={sock}", "-O", "exit", "--", "cephbench"],
                        timeout=10,
                    )
    shutil.rmtree(control, ignore_errors=True)


def stale_control_dirs(tmp: Path | None = None) -> list[Path]:
    """The master-socket directories of cephbench processes that no longer exist (killed
    before they could remove them), this user's only."""
    stale = []
    for d in sorted(Path(tmp or tempfile.gettempdir()).glob(f"{CONTROL_PREFIX}*-*")):
        pid = d.name[len(CONTROL_PREFIX) :].split("-", 1)[0]
        with contextlib.suppress(OSError):
            mine = pid.isdigit() and d.is_dir() and d.stat().st_uid == os.getuid()
            if mine and not Path(f"/proc/{pid}").exists():
                stale.append(d)
    return stale


def ssh_options(
    inventory: Inventory, host: Host, control_dir: Path, connect_timeout: float
) -> list[str]:
    """ssh's options for ``host``: the lab's config file when it has one, else the user's."""
    opts: list[str] = []
    if inventory.ssh_config is not None:
        opts += ["-F", str(inventory.ssh_config)]
    opts += [
        "-o", "BatchMode=yes",
        "-o", "ControlMaster=auto",
        "-o", f"ControlPersist={CONTROL_PERSIST}",
        "-o", f"ControlPath={control_dir}/%C",
        "-o", f"ConnectTimeout={max(1, round(connect_timeout))}",
        "-o", "ServerAliveInterval=5",
        "-o", "ServerAliveCountMax=3",
    ]  # fmt: skip
    if host.user:
        opts += ["-l", host.user]
    if host.port:
        opts += ["-p", str(host.port)]
    return opts


def remote_command(host: Host, argv: Sequence[str], *, root: bool = False) -> str:
    """``argv`` as one string the remote shell splits back into exactly ``argv``."""
    if not argv:
        raise ValueError("empty remote command")
    words = list(argv)
    if root and host.sudo and host.user != "root":
        words = ["sudo", "-n", "--", *words]
    return shlex.join(words)


def unreachable_cause(stderr: str, host: Host) -> tuple[str, str] | None:
    """(reason, hint) when ssh's stderr says it could not log in to ``host``; else None."""
    line = next((ln.strip() for ln in stderr.splitlines() if _match(ln) is not None), None)
    if line is None:
        return None
    kind = _match(line)
    login = f"{host.user}@{host.address}" if host.user else host.address
    hints = {
        "key": f"set up key login (ssh-copy-id {login}); cephbench never asks for a password",
        "hostkey": f"check the host's key, then accept it once: ssh {login} true",
        "resolve": f"check the name {host.address} or give the IP address in the inventory",
        "connect": f"is the host up and sshd running there? try: ssh {login} true",
    }
    return line.removeprefix("ssh: "), hints[kind or "connect"]


def _match(line: str) -> str | None:
    for pattern, kind in _UNREACHABLE:
        if pattern.search(line):
            return kind
    return None


def _needs_password(stderr: str) -> bool:
    return "sudo: a password is required" in stderr or "sudo: a terminal is required" in stderr
