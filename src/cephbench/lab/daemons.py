"""Starting and stopping the lab's Ceph daemons, by the pids they recorded, never by name.

Before any signal, ``/proc/PID/cmdline`` must contain the lab's ceph.conf path: a recycled
pid or someone else's daemon is never touched.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from cephbench.lab.errors import LabError
from cephbench.lab.paths import Layout
from cephbench.lab.state import Daemon
from cephbench.system.process import ProcessResult, run

START_TIMEOUT = 180.0
# What `cephbench lab env` exports for client use; a daemon must not inherit it (a client's
# keyring makes an OSD fail "failed to fetch mon config")
CLIENT_ENV = ("CEPH_KEYRING", "CEPH_ARGS")
LOG_LINES = 15
_CRASH_DUMP = "--- begin dump of recent events ---"
_BACKTRACE = re.compile(r"^\s*(\d+: |NOTE: )")


def command(layout: Layout, daemon: Daemon, *extra: str) -> list[str]:
    """argv running ``ceph-<kind> -i <id>`` with the lab's conf, inside the daemon's netns."""
    argv = [f"ceph-{daemon.kind}", "-i", daemon.ident, "-c", str(layout.conf), *extra]
    if daemon.chroot:
        argv = ["chroot", daemon.chroot, *argv]
    if daemon.netns:
        argv = ["ip", "netns", "exec", daemon.netns, *argv]
    return argv


def log_tail(path: Path, lines: int = LOG_LINES) -> tuple[str, ...]:
    """The last telling lines of a Ceph log: before any crash dump, without backtraces."""
    try:
        with open(path, "rb") as f:
            f.seek(max(0, os.fstat(f.fileno()).st_size - 256 * 1024))
            text = f.read().decode(errors="replace")
    except OSError:
        return ()
    text = text.split(_CRASH_DUMP, 1)[0]
    kept = [ln.rstrip()[:300] for ln in text.splitlines() if ln.strip()]
    kept = [ln for ln in kept if not _BACKTRACE.match(ln)]
    return tuple(kept[-lines:])


def failure(layout: Layout, name: str, what: str, result: ProcessResult | None = None) -> LabError:
    """A LabError for daemon ``name``, carrying the end of its log."""
    detail = f": {result.last_error_line()}" if result is not None else ""
    return LabError(
        f"{name} {what}{detail}",
        hint=f"its log: {layout.log_file(name)}",
        log_lines=log_tail(layout.log_file(name)),
    )


def run_tool(layout: Layout, daemon: Daemon, *extra: str, what: str) -> ProcessResult:
    """Run the daemon's binary to completion (mkfs...); a LabError with its log if it fails."""
    argv = command(layout, daemon, *extra)
    result = run(argv, timeout=START_TIMEOUT, env=daemon.env, unset=CLIENT_ENV)
    if result.returncode != 0:
        raise failure(layout, daemon.name, what, result)
    return result


def start(layout: Layout, daemon: Daemon) -> int:
    """Start the daemon (it forks into the background once initialised); return its pid."""
    pid_file = layout.pid_file(daemon.name)
    pid_file.unlink(missing_ok=True)
    run_tool(layout, daemon, what="failed to start")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            pid = int(pid_file.read_text().strip())
        except (FileNotFoundError, ValueError):
            time.sleep(0.05)
            continue
        if is_ours(pid, layout.conf):
            return pid
        break
    raise failure(layout, daemon.name, "exited right after starting")


def is_ours(pid: int | None, conf: Path) -> bool:
    """True if ``pid`` is a live process started with our ceph.conf (zombies are not)."""
    if not pid:
        return False
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return str(conf).encode() in argv


def stop(
    pids: Iterable[int | None], conf: Path, grace: float = 5.0, sig: int = signal.SIGTERM
) -> None:
    """Signal our processes among ``pids``, wait up to ``grace`` s, then SIGKILL the rest."""
    alive = [p for p in pids if p and is_ours(p, conf)]
    left = signal_until_gone(alive, lambda p: is_ours(p, conf), sig, grace)
    if left:
        raise LabError(f"processes {left} survived SIGKILL")


def signal_until_gone(
    pids: Iterable[int],
    alive: Callable[[int], bool],
    sig: int = signal.SIGTERM,
    grace: float = 5.0,
    kill_wait: float = 10.0,
) -> list[int]:
    """Send ``sig`` to ``pids``, wait up to ``grace`` s for ``alive`` to say each is gone,
    then SIGKILL the rest and wait up to ``kill_wait`` s; the pids still alive after that."""
    left = sorted(set(pids))
    for sig_now, wait in ((sig, grace), (signal.SIGKILL, kill_wait)):
        for pid in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig_now)
        deadline = time.monotonic() + wait
        while left and time.monotonic() < deadline:
            time.sleep(0.05)
            left = [p for p in left if alive(p)]
        if not left:
            break
    return left


def ours(conf: Path) -> list[int]:
    """Every live process whose command line names ``conf`` (to prove none is left)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and is_ours(int(entry.name), conf):
            found.append(int(entry.name))
    return found


def rss_mib(pid: int | None) -> float | None:
    """Resident memory of ``pid`` in MiB, None if it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except (OSError, ValueError):
        pass
    return None
