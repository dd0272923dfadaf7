"""The one place cephbench starts a subprocess.

Argument lists only (never a shell), captured output, a timeout, and the child is always
stopped when we stop: on timeout, on error, on Ctrl-C. A child that should flush its own
results when interrupted (fio prints its JSON on SIGINT) is sent SIGINT first and given
``grace`` seconds; the partial output travels with the :class:`ProcessInterrupted` error.

A child started from a thread other than the main one (a reading taken while the run sets up,
say) does not see the main thread's Ctrl-C: when cephbench exits with such a child still
running, the exit stops it (each child runs in a session of its own, so nothing else would,
and a ``ceph`` command whose cluster then goes away waits for it forever).
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import ctypes.util
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from cephbench.errors import Interrupted, ToolFailed, ToolMissing
from cephbench.model import RawOutput
from cephbench.system import interrupts

POLL_SECONDS = 0.2
GROUP_POLL_SECONDS = 0.05
KILL_WAIT_SECONDS = 10.0
PR_SET_PDEATHSIG = 1
_libc: ctypes.CDLL | None
try:  # glibc's name first: find_library runs `ldconfig -p`, a process at every start
    _libc = ctypes.CDLL("libc.so.6", use_errno=True)
except OSError:  # pragma: no cover - not glibc
    try:
        _libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    except OSError:  # not Linux
        _libc = None


_running: set[subprocess.Popen] = set()
"""Children under way, whatever thread started them."""
_running_lock = threading.Lock()


@atexit.register
def _stop_running() -> None:
    """At exit: every child still under way stopped, its process group with it."""
    with _running_lock:
        left = list(_running)
    for proc in left:
        _stop(proc, signal.SIGTERM, grace=2.0)


@dataclass(frozen=True)
class ProcessResult:
    """What a finished child left: its argv, exit code, output and wall time."""

    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    seconds: float

    def last_error_line(self) -> str:
        """The most telling line of stderr (else stdout), for one-line error messages."""
        for text in (self.stderr, self.stdout):
            lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
            for ln in reversed(lines):
                if "error" in ln.lower() or "fail" in ln.lower():
                    return ln
            if lines:
                return lines[-1]
        return f"exit status {self.returncode}"

    def as_raw(self, tool: str, started: str, input_text: str | None = None) -> RawOutput:
        """This result as the run keeps it: ``tool``'s raw output, begun at ``started``."""
        return RawOutput(
            tool,
            self.argv,
            input_text,
            self.stdout,
            self.stderr,
            self.returncode,
            started,
            self.seconds,
        )


class ProcessTimeout(ToolFailed):
    """The child ran longer than its timeout and was killed."""

    def __init__(self, result: ProcessResult, timeout: float):
        super().__init__(f"{result.argv[0]} did not finish within {timeout:g} s and was stopped")
        self.result = result


class ProcessInterrupted(Interrupted):
    """Ctrl-C (or SIGTERM) while the child ran; ``result`` holds what it printed until then."""

    def __init__(self, result: ProcessResult):
        super().__init__("interrupted")
        self.result = result


def which(program: str, package: str | None = None) -> str:
    """Path of ``program``, or ToolMissing naming the Debian package to install."""
    path = shutil.which(program)
    if path is None:
        pkg = package or program
        raise ToolMissing(
            f"{program} is not installed", hint=f"install it with: apt-get install {pkg}"
        )
    return path


def run(
    argv: Sequence[str],
    *,
    timeout: float | None = None,
    env: Mapping[str, str] | None = None,
    unset: Sequence[str] = (),
    cwd: str | None = None,
    stdin: str | None = None,
    check: bool = False,
    on_tick: Callable[[float], None] | None = None,
    interrupt_signal: int = signal.SIGTERM,
    grace: float = 10.0,
    die_with_parent: bool = False,
) -> ProcessResult:
    """Run ``argv`` to completion and return its result.

    ``env`` entries are added to the current environment, ``unset`` names removed from it. ``on_tick(elapsed)`` is called
    every POLL_SECONDS while the child runs (progress bars). With ``check``, a non-zero exit
    raises ToolFailed carrying the child's own last error line. ``die_with_parent`` makes the
    kernel stop the child if cephbench is killed (SIGKILL included); it uses ``preexec_fn``, so
    only call it with that from the main thread.
    """
    argv = tuple(str(a) for a in argv)
    full_env = (
        {k: v for k, v in {**os.environ, **(env or {})}.items() if k not in unset}
        if env or unset
        else None
    )
    start = time.monotonic()
    # Output goes to temporary files, not pipes: no deadlock however much the child prints.
    with tempfile.TemporaryFile("w+b") as out, tempfile.TemporaryFile("w+b") as err:
        before = interrupts.count()
        try:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                env=full_env,
                cwd=cwd,
                start_new_session=True,  # Ctrl-C reaches us, and we decide how the child stops
                preexec_fn=_die_with_parent if die_with_parent else None,
            )
        except FileNotFoundError as e:
            raise ToolMissing(f"{argv[0]} is not installed or not on PATH") from e
        except PermissionError as e:
            raise ToolFailed(f"cannot execute {argv[0]}: {e.strerror}") from e
        with _running_lock:
            _running.add(proc)

        def collect(code: int) -> ProcessResult:
            out.seek(0)
            err.seek(0)
            return ProcessResult(
                argv,
                code,
                out.read().decode(errors="replace"),
                err.read().decode(errors="replace"),
                time.monotonic() - start,
            )

        try:
            interrupts.raise_if_lost(before)  # a Ctrl-C during the fork, dropped by Python
            if stdin is not None:
                assert proc.stdin is not None
                proc.stdin.write(stdin.encode())
                proc.stdin.close()
            while True:
                try:
                    code = proc.wait(timeout=POLL_SECONDS)
                    break
                except subprocess.TimeoutExpired:
                    elapsed = time.monotonic() - start
                    if timeout is not None and elapsed > timeout:
                        _stop(proc, signal.SIGTERM, grace=2.0)
                        raise ProcessTimeout(collect(proc.returncode or -9), timeout) from None
                    if on_tick is not None:
                        on_tick(elapsed)
        except KeyboardInterrupt:
            code = _stop(proc, interrupt_signal, grace)
            raise ProcessInterrupted(collect(code)) from None
        except BaseException:
            _stop(proc, signal.SIGTERM, grace=2.0)
            raise
        finally:
            with _running_lock:
                _running.discard(proc)
        result = collect(code)
    if check and result.returncode != 0:
        raise ToolFailed(f"{os.path.basename(argv[0])} failed: {result.last_error_line()}")
    return result


def _die_with_parent() -> None:
    """In the child: get SIGTERM if cephbench dies, even by SIGKILL (Linux prctl)."""
    if _libc is not None:
        _libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def _stop(proc: subprocess.Popen, sig: int, grace: float) -> int:
    """Send ``sig`` to the child's process group, wait ``grace`` s, then SIGKILL it.

    Returns once the whole group is gone, not only the child: what its other processes hold
    (fio's job processes and their RBD watches, say) must be released before clean-up.
    """
    deadline = time.monotonic() + grace
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
    try:
        proc.wait(timeout=grace)
        while _group_alive(proc.pid) and time.monotonic() < deadline:
            time.sleep(GROUP_POLL_SECONDS)
    except (subprocess.TimeoutExpired, KeyboardInterrupt):  # too slow, or a second Ctrl-C
        pass
    if proc.poll() is None or _group_alive(proc.pid):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        killed = time.monotonic() + KILL_WAIT_SECONDS
        while _group_alive(proc.pid) and time.monotonic() < killed:
            time.sleep(GROUP_POLL_SECONDS)
    return proc.returncode


def _group_alive(pgid: int) -> bool:
    """Whether a process of group ``pgid`` still runs (zombies do not count: they hold nothing).

    Read from /proc, as signal 0 to the group also succeeds for zombies nobody reaps.
    """
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()  # after "pid (comm) ": state ppid pgrp
        if len(fields) > 2 and int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
            return True
    return False


def spawn(
    argv: Sequence[str],
    log: str,
    *,
    env: Mapping[str, str] | None = None,
    unset: Sequence[str] = (),
    cwd: str | None = None,
) -> int:
    """Start a long-running daemon in its own session, output appended to ``log``; its pid.

    For daemons that stay in the foreground (etcd, containerd, the kubelet): the caller
    records the pid and stops it by that pid. It is not waited for here.
    """
    argv = tuple(str(a) for a in argv)
    full_env = {k: v for k, v in {**os.environ, **(env or {})}.items() if k not in unset}
    with open(log, "ab") as out:
        try:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=full_env,
                cwd=cwd,
                start_new_session=True,
            )
        except FileNotFoundError as e:
            raise ToolMissing(f"{argv[0]} is not installed or not on PATH") from e
        except PermissionError as e:
            raise ToolFailed(f"cannot execute {argv[0]}: {e.strerror}") from e
    _spawned.append(proc)  # kept: Popen reaps it when it exits while we still run
    return proc.pid


_spawned: list[subprocess.Popen] = []
