"""How cephbench reaches a cluster's own client programs: the one seam for ``ceph``, ``rados``,
``rbd``, ``ceph-fuse``, ``rbd-fuse`` and fio's Ceph engines.

A client must be of a release that can talk to its cluster (a Pacific client cannot even read a
Tentacle keyring). So a :class:`CephTools` says where those programs are reached: on this
machine (the default), in a release lab's root (``chroot ROOT``), or through a prefix the user
names, as admins reach their own cluster (``cephadm shell --``, Rook's toolbox ``kubectl -n
rook-ceph exec deploy/rook-ceph-tools --``). A :class:`~cephbench.ceph.connection.Connection`
carries one; nothing else knows how a command is reached.

A user's prefix reaches the cluster's command-line tools (``ceph``, ``rados``, ``rbd``): fio's
Ceph engines and ``ceph-fuse`` run on this machine as they always did. A release root holds
every client program of its release, fio with its librbd included.

:func:`classify` is the one reading of why such a program failed (not found, denied,
unreachable, too old), and :func:`failure` the one error each of those is to the user.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from cephbench.errors import AccessDenied, CephbenchError, ToolFailed, ToolMissing
from cephbench.system.process import ProcessResult, run, which

#: The Debian package each client program comes from (for the "install it" hint).
PACKAGES = {
    "ceph": "ceph-common",
    "rados": "ceph-common",
    "rbd": "ceph-common",
    "ceph-authtool": "ceph-common",
    "monmaptool": "ceph-base",
    "ceph-fuse": "ceph-fuse",
    "rbd-fuse": "rbd-fuse",
    "fio": "fio",
}
_CEPH_VERSION = re.compile(r"ceph version ((\d+)\.\d+\.\d+\S*) \(\w+\) (\w+)")
CLI_PROGRAMS = frozenset({"ceph", "rados", "rbd"})
ROOT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
"""PATH inside a release root (Debian's default)."""
"""What a user's prefix reaches: the cluster's own command-line tools."""


@dataclass(frozen=True)
class CephTools:
    """Where the Ceph client programs run: ``prefix`` is put before each argv (empty: this
    machine's own programs, found on PATH)."""

    prefix: tuple[str, ...] = ()
    release: str | None = None
    """The release the programs are of, when known (a release lab's root says)."""
    programs: frozenset[str] | None = None
    """The programs reached through ``prefix``; None: every Ceph client program (a release
    root). The others (e.g. fio beside a user's ``cephadm shell --``) are this machine's."""

    @property
    def local(self) -> bool:
        """The programs are this machine's own (so this process's librados may stand in)."""
        return not self.prefix

    def reaches(self, program: str) -> bool:
        """``program`` runs through the prefix (not this machine's own)."""
        return not self.local and (self.programs is None or program in self.programs)

    def argv(self, program: str, *args: str, cwd: str | None = None) -> list[str]:
        """argv running ``program ARGS`` where these tools are reached. ``cwd``: the
        directory it runs in, when that matters through a prefix (``chroot`` starts in
        its root's ``/``): ``env -C`` changes to it there; here the caller's own cwd does."""
        if not self.reaches(program):
            return [which(program, PACKAGES.get(program)), *args]
        if self.prefix[:1] == ("chroot",):  # the root's own PATH, never the caller's (whose
            # entries the view may hold too: `lab env`'s scripts would run themselves)
            chdir = ["-C", cwd] if cwd else []
            return [*self.prefix, "env", *chdir, f"PATH={ROOT_PATH}", program, *args]
        chdir = ["env", "-C", cwd] if cwd else []
        return [*self.prefix, *chdir, program, *args]

    def check(self, program: str) -> None:
        """ToolMissing when ``program`` is this machine's and not installed (through a
        prefix, the first command says whether it runs)."""
        if not self.reaches(program):
            which(program, PACKAGES.get(program))

    def run(
        self,
        program: str,
        *args: str,
        cwd: str | None = None,
        check: bool = False,
        **kwargs: Any,
    ) -> ProcessResult:
        """``program ARGS`` run where these tools are reached (``kwargs``: those of
        :func:`cephbench.system.process.run`); a prefix that cannot run it (its program
        missing, a release root gone) is one ToolMissing saying so."""
        try:
            result = run(self.argv(program, *args, cwd=cwd), cwd=cwd, **kwargs)
        except ToolMissing as e:
            if not self.reaches(program):
                raise
            raise self.unavailable(program, e.message) from None
        if self.prefix_failed(program, result):
            raise self.unavailable(program, result.last_error_line())
        if check and result.returncode != 0:
            raise ToolFailed(f"{program} failed: {result.last_error_line()}")
        return result

    def prefix_failed(self, program: str, result: ProcessResult) -> bool:
        """The prefix, not ``program``, failed: ``env``/``chroot``'s own 125 (a root
        missing), 126 (cannot run) and 127 (not found), said by the prefix's program."""
        if not self.reaches(program) or result.returncode not in (125, 126, 127):
            return False
        line = result.last_error_line()
        return result.returncode == 127 or line.startswith(f"{os.path.basename(self.prefix[0])}:")

    def unavailable(self, program: str, why: str) -> ToolMissing:
        return ToolMissing(
            f"cannot run {program} through `{self.describe()}`: {why}",
            hint=f"check --ceph-cli: `{self.describe()} {program} --version` should print "
            "the cluster's release",
        )

    def version(self) -> ClientVersion | None:
        """The Ceph release of these tools' ``ceph`` (None if it printed none); the error
        of :meth:`run` when it cannot be run."""
        return parse_version(self.run("ceph", "--version", timeout=60).stdout)

    def host_path(self, path: str) -> str:
        """Where a mount one of these programs makes at ``path`` is seen from this machine:
        the same path, except in a release root (``chroot ROOT``), whose mounts are made
        inside its view (a private mount tree: they never reach the machine's own paths)."""
        if self.prefix[:1] == ("chroot",) and len(self.prefix) == 2:
            return os.path.join(self.prefix[1], path.lstrip("/"))
        return path

    def describe(self) -> str:
        """Where the tools are, for messages and records."""
        return "this machine" if self.local else shlex.join(self.prefix)

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"prefix": list(self.prefix), "release": self.release}
        if self.programs is not None:
            out["programs"] = sorted(self.programs)
        return out

    @classmethod
    def from_json(cls, data: dict | None) -> CephTools:
        if not data:
            return cls()
        programs = data.get("programs")
        return cls(
            prefix=tuple(data.get("prefix") or ()),
            release=data.get("release"),
            programs=None if programs is None else frozenset(programs),
        )

    @classmethod
    def from_cli(cls, text: str | None) -> CephTools:
        """``--ceph-cli "cephadm shell --"``: the words put before every ``ceph``, ``rados``
        and ``rbd`` command (fio and ceph-fuse stay this machine's)."""
        if not text or not text.strip():
            return cls()
        return cls(prefix=tuple(shlex.split(text)), programs=CLI_PROGRAMS)


@dataclass(frozen=True)
class ClientVersion:
    """What ``ceph --version`` says of a client: ``20.2.4``, major 20, ``tentacle``."""

    version: str
    major: int
    release: str


def parse_version(text: str) -> ClientVersion | None:
    """The version ``ceph --version`` printed in ``text`` (pure); None if it printed none."""
    m = _CEPH_VERSION.search(text)
    return ClientVersion(m.group(1), int(m.group(2)), m.group(3)) if m else None


def chroot(root: str, release: str | None = None) -> CephTools:
    """The programs of a release root (a lab's view of it, see ``lab/releases.py``)."""
    return CephTools(prefix=("chroot", root), release=release)


class Outcome(StrEnum):
    """Why a Ceph client program failed, as :func:`classify` reads its output."""

    NOT_FOUND = "not found"
    """ENOENT: the pool, image or object does not exist."""
    DENIED = "denied"
    """The cluster refused the client: its key (or a keyring it cannot read), or its caps."""
    UNREACHABLE = "unreachable"
    """No monitor answered in time."""
    TOO_OLD = "too old"
    """The command is not one the client (or the cluster) knows."""
    UNAVAILABLE = "unavailable"
    """The prefix could not run the program at all."""
    FAILED = "failed"


_STAMP = re.compile(r"^\d{4}-\d\d-\d\dT[\d:.]+[+-]\d{4} [0-9a-f]+ +-?\d+ ")
"""The timestamp, thread and level Ceph's log lines begin with."""
_SIGNS: tuple[tuple[Outcome, tuple[str, ...]], ...] = (
    # denied before unreachable: "permission denied (error connecting to the cluster)"
    (
        Outcome.DENIED,
        (
            "malformed input",
            "handle_auth_bad_method",
            "permission denied",
            "access denied",
            "eacces",
            "operation not permitted",
            "keyring not found",
        ),
    ),
    (
        Outcome.UNREACHABLE,
        (
            "timed out",
            "error connecting",
            "couldn't connect",
            "failed to fetch mon config",
            "cannot identify monitors",
        ),
    ),
    (Outcome.NOT_FOUND, ("no such file or directory", "does not exist")),
    (Outcome.TOO_OLD, ("unrecognized command", "invalid command", "unknown option")),
)


def classify(
    result: ProcessResult, tools: CephTools | None = None, program: str | None = None
) -> Outcome:
    """Why ``result`` of ``program`` (``ceph``, ``rados``, ``rbd``, run as ``tools`` reach
    them) failed."""
    if tools is not None and program and tools.prefix_failed(program, result):
        return Outcome.UNAVAILABLE
    text = f"{result.stderr}\n{result.stdout}".lower()
    for outcome, signs in _SIGNS:
        if any(sign in text for sign in signs):
            return outcome
    return Outcome.FAILED


def telling_line(result: ProcessResult, outcome: Outcome) -> str:
    """The line that says ``outcome`` (without a log line's timestamp), else the last error."""
    signs = dict(_SIGNS).get(outcome, ())
    for text in (result.stderr, result.stdout):
        for line in text.splitlines():
            if any(sign in line.lower() for sign in signs):
                return _STAMP.sub("", line.strip())
    return result.last_error_line()


def failure(
    result: ProcessResult,
    what: str,
    tools: CephTools | None = None,
    *,
    client: str | None = None,
    where: str | None = None,
) -> CephbenchError:
    """The one error a failed Ceph command is: ``what`` names the command (``rbd info
    POOL/IMAGE``), ``client`` and ``where`` the cephx client and the cluster."""
    tools = tools or CephTools()
    program = what.split()[0] if what else "ceph"
    outcome = classify(result, tools, program)
    line = telling_line(result, outcome)
    via = f" (run through `{tools.describe()}`)" if tools.reaches(program) else ""
    who = client or "the client"
    if outcome is Outcome.UNAVAILABLE:
        return tools.unavailable(program, line)
    if outcome is Outcome.DENIED:
        if "malformed input" in line.lower():
            return AccessDenied(
                f"{what}: the keyring holds a key {program}{via} cannot read: {line}",
                hint="a newer release's key (Tentacle's begin AgA): use a client of the "
                'cluster\'s release, e.g. --ceph-cli "cephadm shell --"',
            )
        return AccessDenied(
            f"{what}: the cluster refused {who}{via}: {line}",
            hint=f"check --id and --keyring, and the client's caps (ceph auth get {who})",
        )
    if outcome is Outcome.UNREACHABLE:
        of = f" of {where}" if where else ""
        return CephbenchError(
            f"cannot reach the Ceph cluster{of} as {who}{via}: {line}",
            hint="is it running, and are --conf/--id/--keyring right? (cephbench lab status "
            "for the lab)",
        )
    if outcome is Outcome.TOO_OLD:
        return ToolFailed(
            f"{what}: {program}{via} does not know this command: {line}",
            hint="is the client of an older release than the cluster? compare "
            f"`{program} --version` with `ceph versions`",
        )
    return ToolFailed(f"{what} failed: {line}")
