"""``ceph`` commands over one librados connection per cluster, for a command's lifetime.

Each ``ceph`` process costs about 0.25 s of CPU (a Python interpreter, a connection, the
monitor's command descriptions), and a diagnosis makes some forty of them. Inside
:func:`scope` the same commands go over one connection in this process instead, a few
milliseconds each. They run as the ``ceph`` CLI runs them, with the modules it runs them with
(``python3-rados`` and ``ceph_argparse``, which the Debian package ``ceph-common`` installs
for the CLI itself): the target from ``find_cmd_target``, the words checked against the
daemon's own command descriptions by ``validate_command``, and the same output, exit status
and error lines, so a caller cannot tell the two apart. Anything else (``ceph daemon``, input
files, a cluster the connection cannot reach) is left to the CLI, or fails as the CLI would.

Outside a scope, and where the modules cannot be imported, every command is a ``ceph``
process as before: the lab's own set-up and tear-down keep to that. So is every command of a
connection whose tools are not this machine's (``ceph/tools.py``: a release root, a prefix the
user names): this process's librados is of this machine's release. Each time the CLI is used
instead, why is a :class:`Fallback`: :func:`fallback_reason` says a connection's, and
:attr:`Link.fallbacks` counts a connection's commands that went to the CLI, by reason.
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import io
import json
import os
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from enum import StrEnum
from types import ModuleType
from typing import Any, NamedTuple

from cephbench.ceph.connection import Connection
from cephbench.system.process import ProcessResult

CLI_ONLY_ENV = "CEPHBENCH_CEPH_CLI"
"""Set to 1: every ``ceph`` command is a ``ceph`` process, as outside a scope."""
DIST_PACKAGES = "/usr/lib/python3/dist-packages"
"""Where Debian installs python3-rados and ceph_argparse (outside any virtualenv)."""

_FORMAT_FLAGS = ("-f", "--format")
_TARGETS = ("mon", "osd", "mgr")
_CLI_ONLY = frozenset({"daemon", "daemonperf", "-i", "--in-file", "-o", "--out-file", "-w"})


class Fallback(StrEnum):
    """Why a ``ceph`` command went to the CLI rather than over this process's connection."""

    NO_SCOPE = "outside a command's scope"
    CLI_ONLY = f"{CLI_ONLY_ENV}=1"
    NOT_LOCAL = "the connection's tools are not this machine's"
    NO_MODULES = "python3-rados or ceph_argparse cannot be imported"
    NOT_CONNECTED = "librados would not connect with this configuration"
    CLI_WORDS = "a command only the CLI runs (daemon, input or output files, -w)"
    UNPARSED = "words the CLI's parser does not take"
    OTHER_DAEMON = "a command for a daemon other than mon, osd and mgr"
    NOT_SENT = "the command could not be sent"
    UNKNOWN = "a command the daemon does not describe"


class Reason(NamedTuple):
    """A connection's fallback and, for one librados would not make, its own words."""

    fallback: Fallback
    detail: str = ""


class Unreachable(Exception):
    """The connection could not be made, or a command not answered, in the time given."""


class _NotSent(Exception):
    """``json_command`` failed otherwise (the CLI is asked instead, and says why)."""


def _modules() -> tuple[ModuleType, ModuleType] | None:
    """librados's Python binding and the CLI's argument parser, or None without them. A
    virtualenv does not see Debian's packages: their folder is on the path for these two
    imports only, so that nothing else of Debian's is found in place of what is missing."""
    added = DIST_PACKAGES not in sys.path
    if added:
        sys.path.append(DIST_PACKAGES)
    try:
        rados, argparse = importlib.import_module("rados"), importlib.import_module("ceph_argparse")
    except ImportError:
        return None
    finally:
        if added:
            sys.path.remove(DIST_PACKAGES)
    # it prints why words match no command to sys.stderr: a command it does not take goes to
    # the CLI, whose stderr is captured and says the same
    setattr(argparse, "sys", _Unprinted())  # noqa: B010 (mypy: the module has no stub)
    return rados, argparse


class _Discard(io.TextIOBase):
    def write(self, s: str) -> int:
        return len(s)


class _Unprinted:
    """``sys`` as ``ceph_argparse`` sees it in this process: with a stderr that keeps nothing."""

    stderr = _Discard()

    def __getattr__(self, name: str) -> Any:
        return getattr(sys, name)


class Link:
    """One cluster connection and the command descriptions of each kind of daemon."""

    def __init__(self, conn: Connection, rados: ModuleType, argparse: ModuleType):
        self.conn, self._argparse = conn, argparse
        seconds = _seconds(conn.timeout)
        conf = {"client_mount_timeout": str(seconds)}  # as ``rados`` is given it
        if conn.keyring:
            conf["keyring"] = conn.keyring
        self.handle = rados.Rados(
            conffile=conn.conf or "",
            rados_id=conn.id,
            clustername=conn.cluster or "ceph",
            conf=conf,
        )
        self.handle.conf_parse_env()  # CEPH_ARGS, as the CLI reads it
        self._sigs: dict[str, list[_Sig]] = {}
        self.fallbacks: Counter[Fallback] = Counter()
        """This connection's commands that went to the CLI, by reason."""
        self._lock = threading.Lock()
        self._waiting = 0  # commands sent and not answered
        self._closed = False
        try:
            argparse.run_in_thread(self.handle.connect, timeout=seconds)
        except Exception as e:  # a connection still trying is left to the process's end
            raise Unreachable(str(e)) from None

    def close(self) -> None:
        """Disconnect, unless a command is still waiting for its reply (one that timed out):
        librados must not be shut down under it, and the process's end takes it down."""
        with self._lock:
            if self._waiting:
                return
            self._closed = True
        self.handle.shutdown()

    def run(self, args: Sequence[str], timeout: float) -> ProcessResult | None:
        """``ceph ARGS`` as the CLI runs it; None for what only the CLI does (its reason
        counted in :attr:`fallbacks`)."""
        result = self._run(args, timeout)
        if isinstance(result, Fallback):
            with self._lock:
                self.fallbacks[result] += 1
            return None
        return result

    def _run(self, args: Sequence[str], timeout: float) -> ProcessResult | Fallback:
        started = time.monotonic()
        words, fmt = _split_format(args)
        if words is None or not words or any(w in _CLI_ONLY for w in words):
            return Fallback.CLI_WORDS
        ap = self._argparse
        words = list(words)
        try:
            target = ap.find_cmd_target(words)
        except Exception:
            return Fallback.UNPARSED  # the CLI says what is wrong with it
        if target[0] not in _TARGETS:
            return Fallback.OTHER_DAEMON  # an MDS through libcephfs, a PG through pg_command
        if words[0] == "tell":
            words = words[2:]
            if "injectargs" in words:  # the CLI sends what follows it as one list
                words = [w for w in words[words.index("injectargs") :] if w != "--"]
            if not words:
                return Fallback.UNPARSED
        targets = [target]
        if target[1] == "*":
            try:
                ids = self._ids(target[0], timeout)
            except _NotSent:
                return Fallback.NOT_SENT
            if ids is None:
                return Fallback.OTHER_DAEMON
            targets = [(target[0], i) for i in ids]
        replies = []
        for one in targets:
            try:
                reply = self._command(one, words, fmt, timeout)
            except _NotSent:
                return Fallback.NOT_SENT
            if reply is None:
                return Fallback.UNKNOWN
            replies.append((one, *reply))
        out: list[str] = []
        err: list[str] = []
        code = 0
        for one, ret, outbuf, outs in replies:
            prefix = f"{one[0]}.{one[1]}: " if len(targets) > 1 else ""
            if fmt and fmt.startswith("json"):
                out.append("\n")  # the CLI prints an empty line before JSON
            text = outbuf.decode("utf-8", "replace") if outbuf else ""
            if prefix:
                text = text.rstrip()
            if text:
                out.append(prefix + text + ("\n" if prefix else ""))
            if ret < 0:
                code = -ret
                err.append(f"Error {errno.errorcode.get(code, 'Unknown')}: {outs}\n")
            elif outs:
                err.append(prefix + outs + "\n")
        argv = ("ceph", *args)
        return ProcessResult(argv, code, "".join(out), "".join(err), time.monotonic() - started)

    def _command(
        self, target: tuple[str, str], words: list[str], fmt: str | None, timeout: float
    ) -> tuple[int, bytes, str] | None:
        """One daemon's reply; None when the words are not a command it knows (the CLI then
        prints what it would have matched)."""
        ap = self._argparse
        sigs = self._descriptions(target, timeout)
        if sigs is None:
            return None
        valid = ap.validate_command(_candidates(sigs, words), words)
        if not valid:
            return None
        if fmt:
            valid["format"] = fmt
        ret, outbuf, outs = self._send(target=target, argdict=valid, timeout=_seconds(timeout))
        if ret == errno.ETIMEDOUT:  # as the CLI has it
            ret = -ret
            outs = (
                outs or "Connection timed out. Please check the client's permission and connection."
            )
        return ret, outbuf, outs

    def _descriptions(self, target: tuple[str, str], timeout: float) -> list[_Sig] | None:
        """The daemon's command descriptions, asked once per kind of daemon (every OSD of
        one cluster runs one version in practice; a command one of them lacks fails there)."""
        kind = target[0]
        with self._lock:
            if kind in self._sigs:
                return self._sigs[kind]
        ret, outbuf, _ = self._send(
            target=target, prefix="get_command_descriptions", timeout=_seconds(timeout)
        )
        if ret:
            return None
        parsed = self._argparse.parse_json_funcsigs(outbuf.decode("utf-8"), "cli")
        sigs = [
            _Sig(_literals(cmd["sig"], self._argparse), key, cmd) for key, cmd in parsed.items()
        ]
        with self._lock:
            self._sigs[kind] = sigs
        return sigs

    def _ids(self, kind: str, timeout: float) -> list[str] | None:
        """Every OSD, for ``tell osd.*`` (as the CLI lists them: ``osd ls``); None for other
        kinds, which the CLI lists its own way."""
        if kind != "osd":
            return None
        ret, outbuf, _ = self._send(
            prefix="osd ls", argdict={"format": "json"}, timeout=_seconds(timeout)
        )
        return None if ret else [str(i) for i in json.loads(outbuf)]

    def _send(self, **command: Any) -> tuple[int, bytes, str]:
        """``json_command`` on this connection, in a thread of its own. Ctrl-C waits for the
        reply of a command already sent (up to its timeout) before it goes on: the clean-up's
        commands then reach the cluster after it, as they would after a ``ceph`` process
        that was stopped (a pool being created is there for the clean-up to remove)."""
        box: dict[str, Any] = {}
        with self._lock:
            if self._closed:  # a thread still at work after its scope ended
                raise _NotSent("the connection is closed")
            self._waiting += 1

        def send() -> None:
            try:
                box["reply"] = self._argparse.json_command(self.handle, **command)
            except Exception as e:  # json_command's "timed out", or the connection gone
                box["error"] = e
            finally:
                with self._lock:
                    self._waiting -= 1

        worker = threading.Thread(target=send, name="ceph-command", daemon=True)
        worker.start()
        try:
            worker.join()
        except KeyboardInterrupt:
            worker.join(command.get("timeout") or None)
            raise
        if "error" in box:
            error = str(box["error"])
            raise Unreachable(error) if "timed out" in error else _NotSent(error)
        reply: tuple[int, bytes, str] = box["reply"]
        return reply


class _Sig(NamedTuple):
    """One command a daemon describes: the words it starts with, its key and description."""

    words: list[str]
    key: str
    command: dict[str, Any]


def _literals(sig: Sequence[Any], argparse: ModuleType) -> list[str]:
    """The fixed words a command's signature starts with (``osd pool get``)."""
    out = []
    for arg in sig:
        if arg.t is not argparse.CephPrefix:
            break
        out.append(arg.instance.prefix)
    return out


def _candidates(sigs: list[_Sig], words: list[str]) -> dict[str, dict[str, Any]]:
    """The commands whose fixed words ``words`` start with: the only ones that can match.
    ``validate_command`` over all ~600 of a monitor's takes ~100 ms of CPU; over these, ~1."""
    return {s.key: s.command for s in sigs if s.words == words[: len(s.words)]}


def _seconds(timeout: float) -> int:
    return max(1, int(timeout))


def _split_format(args: Sequence[str]) -> tuple[list[str] | None, str | None]:
    """The command's words and its output format (``-f json``, ``--format=json``); None for
    words when a flag other than these comes before the command."""
    words: list[str] = []
    fmt = None
    it = iter(args)
    for a in it:
        if a in _FORMAT_FLAGS:
            fmt = next(it, None)
        elif a.startswith("--format="):
            fmt = a.split("=", 1)[1]
        else:
            words.append(a)
    if words and words[0].startswith("-"):
        return None, fmt
    return words, fmt


class _Scope:
    def __init__(self) -> None:
        self.links: dict[Connection, Link | None] = {}
        self.reasons: dict[Connection, Reason] = {}
        """Why a connection has no link (its commands all go to the CLI)."""
        self.lock = threading.Lock()


_scope: _Scope | None = None
_scope_lock = threading.Lock()


@contextlib.contextmanager
def scope() -> Iterator[None]:
    """Within it, ``ceph`` commands go over one connection per cluster (made at its first
    command, closed at the end); nested scopes share the outer one."""
    global _scope
    with _scope_lock:
        nested = _scope is not None
        if not nested:
            _scope = _Scope()
    if nested:
        yield
        return
    try:
        yield
    finally:
        with _scope_lock:
            ending, _scope = _scope, None
        for link in ending.links.values() if ending else ():
            if link is not None:
                with contextlib.suppress(Exception):
                    link.close()


def link_for(conn: Connection) -> Link | None:
    """The scope's connection to ``conn``'s cluster (made now if it is the first command),
    or None (the CLI, for the reason :func:`fallback_reason` gives). Unreachable when it
    cannot be made."""
    current = _scope
    if current is None or os.environ.get(CLI_ONLY_ENV) == "1" or not conn.tools.local:
        return None
    with current.lock:
        if conn in current.links:
            return current.links[conn]
        modules = _modules()
        link = None
        if modules is None:
            current.reasons[conn] = Reason(Fallback.NO_MODULES)
        else:
            try:
                link = Link(conn, *modules)
            except Unreachable:
                raise
            except Exception as e:  # a configuration librados will not read: the CLI says why
                current.reasons[conn] = Reason(Fallback.NOT_CONNECTED, f"{type(e).__name__}: {e}")
        current.links[conn] = link
        return link


def fallback_reason(conn: Connection) -> Reason | None:
    """Why ``conn``'s ``ceph`` commands go to the CLI now; None when they go over this
    process's connection (or it is not made yet: its first command makes it)."""
    if not conn.tools.local:
        return Reason(Fallback.NOT_LOCAL, conn.tools.describe())
    if os.environ.get(CLI_ONLY_ENV) == "1":
        return Reason(Fallback.CLI_ONLY)
    current = _scope
    if current is None:
        return Reason(Fallback.NO_SCOPE)
    with current.lock:
        return current.reasons.get(conn)
