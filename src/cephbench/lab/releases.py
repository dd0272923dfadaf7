"""The Ceph releases a lab can run, and the root filesystem each newer one runs from.

Pacific is this machine's own packages (Debian 12). Reef and Tentacle come from newer Debian
suites: on first use their packages are installed into a root filesystem with ``mmdebstrap``
(a minute, ~650 MB), cached like the Kubernetes binaries under
``$XDG_CACHE_HOME/cephbench/releases/NAME``. A lab of such a release runs its daemons and every
client program (``ceph``, ``rados``, ``rbd``, fio with its rbd and rados engines, ``ceph-fuse``)
from that root, through a view of it (:mod:`.release_view`): a client must be of a release
that can talk to its cluster.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cephbench.ceph import compat
from cephbench.ceph.tools import chroot
from cephbench.lab.errors import LabError
from cephbench.lab.release_view import VIEWS, mounts_under
from cephbench.system.process import run

#: What a release root holds: the daemons, the client programs, fio, and sshd with what
#: cephbench runs on a host over ssh (iperf3, ping, pgrep, ss...): a release lab's hosts answer
#: ssh from inside its root, so their programs are the release's.
PACKAGES = (
    "ceph-mon",
    "ceph-osd",
    "ceph-mgr",
    "ceph-common",
    "ceph-mds",
    "ceph-fuse",
    "rbd-fuse",
    "fio",
    "iproute2",
    "openssh-server",
    "iperf3",
    "iputils-ping",
    "procps",
    "hostname",
)
DEFAULT_MIRROR = "http://deb.debian.org/debian"
BUILD_TIMEOUT = 1800.0
_STAMP = ".cephbench-release.json"
_FIO_VERSION = re.compile(r"fio-(\S+)")


@dataclass(frozen=True)
class Release:
    """One Ceph release a lab can run."""

    name: str
    major: int
    suite: str | None
    """The Debian suite its root is built from; None: this machine's own packages."""
    expired_release_file: bool = False
    """The mirror's Release file of ``suite`` is past its Valid-Until (Debian testing's is)."""
    key_type: int = 1
    """The cephx key type its own tools make (``ceph/keys.py``): Tentacle's is 2."""
    mgr_stand_ins: tuple[str, ...] = ()
    """Python modules the manager gets a stand-in for (:data:`MGR_STAND_IN`)."""

    @property
    def needs_root(self) -> bool:
        return self.suite is not None

    def source(self) -> str:
        return "this machine (Debian 12)" if self.suite is None else f"Debian {self.suite}"


RELEASES: dict[str, Release] = {
    r.name: r
    for r in (
        Release("pacific", 16, None),
        Release("reef", 18, "trixie", mgr_stand_ins=("bcrypt",)),
        Release("tentacle", 20, "forky", expired_release_file=True, key_type=2),
    )
}
DEFAULT = "pacific"

#: Reef's manager imports bcrypt in ``mgr_util`` for every module, and trixie's bcrypt is a
#: PyO3 build, which refuses to load in a second subinterpreter: eleven modules (iostat,
#: status, pg_autoscaler...) fail with "PyO3 modules do not yet support subinterpreters" and
#: the cluster stays HEALTH_WARN. Only the dashboard's passwords use bcrypt, and the lab has no
#: dashboard: the lab's manager finds this module first, and the rest load.
MGR_STAND_IN = '''"""cephbench lab: stands in for bcrypt in the manager (PyO3 cannot load in subinterpreters)."""


def _absent(*args, **kwargs):
    raise NotImplementedError("bcrypt is not available in the cephbench lab's manager")


gensalt = hashpw = checkpw = kdf = _absent
__version__ = "0"
'''


def get(name: str) -> Release:
    try:
        return RELEASES[name]
    except KeyError:
        raise LabError(
            f"no Ceph release '{name}' in the lab", hint="choose one of: " + ", ".join(RELEASES)
        ) from None


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "cephbench" / "releases"


def root(release: Release) -> Path:
    """Where ``release``'s root filesystem is (built or not)."""
    return cache_dir() / release.name


@dataclass(frozen=True)
class Built:
    """A built root: the exact Ceph and fio versions in it, its size and when it was built."""

    version: str
    fio: str
    bytes: int
    built_at: float
    seconds: float
    packages: tuple[str, ...] = ()


def built(release: Release) -> Built | None:
    """What the cached root of ``release`` holds; None if it is not built (or half built),
    or was built without a package this cephbench needs in it (it is built again)."""
    try:
        data = json.loads((root(release) / _STAMP).read_text())
        stamp = Built(**{**data, "packages": tuple(data.get("packages", ()))})
    except (OSError, ValueError, TypeError):
        return None
    return stamp if set(PACKAGES) <= set(stamp.packages) else None


def local_version() -> str | None:
    """This machine's own Ceph version (``ceph --version``), None if it is not installed."""
    found = compat.local_client()
    return found.version if found else None


def mirror() -> str:
    """The Debian mirror this machine's apt sources name (so a root comes from the same place)."""
    sources = [Path("/etc/apt/sources.list"), *sorted(Path("/etc/apt/sources.list.d").glob("*"))]
    for path in sources:
        with contextlib.suppress(OSError):
            for line in path.read_text().splitlines():
                words = line.split()
                urls = [w for w in words if w.startswith(("http://", "https://"))]
                if urls and not line.lstrip().startswith("#") and "security" not in urls[0]:
                    return urls[0].rstrip("/")
    return DEFAULT_MIRROR


def ensure(release: Release, progress: Callable[[str], None]) -> Path | None:
    """The root of ``release``, built first if it is not cached; None for Pacific."""
    if not release.needs_root:
        return None
    if built(release) is not None:
        return root(release)
    cache_dir().mkdir(parents=True, exist_ok=True)
    with open(cache_dir() / f".{release.name}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another build of the same root: wait for it
        if built(release) is None:
            _build(release, progress)
    return root(release)


def _build(release: Release, progress: Callable[[str], None]) -> None:
    if shutil.which("mmdebstrap") is None:
        raise LabError(
            f"building the {release.name} root needs mmdebstrap",
            hint="apt-get install mmdebstrap (make install does)",
        )
    dest, tmp = root(release), root(release).with_name(f"{release.name}.build")
    if dest.exists() and in_use():
        raise LabError(
            f"the cached {release.name} root must be built again, and a lab runs from it",
            hint="take the release labs down (cephbench lab down), then bring one up again",
        )
    for old in (tmp, dest):  # a half-built root from an interrupted build, or an older one
        _remove(old)
    progress(
        f"building the Ceph {release.name} root from Debian {release.suite} "
        "(once: about a minute and 700 MB)"
    )
    # unshare mode: the build's own mounts (/proc, /dev in the new root) live in a namespace
    # that ends with it, so an interrupted build leaves no mount under the half-built tree
    argv = ["mmdebstrap", "--mode=unshare", "--variant=minbase"]
    argv.append("--include=" + ",".join(PACKAGES))
    if release.expired_release_file:
        argv.append('--aptopt=Acquire::Check-Valid-Until "false"')
    argv += [release.suite or "", str(tmp), mirror()]
    start = time.monotonic()
    said = [0.0]

    def tick(elapsed: float) -> None:
        if elapsed - said[0] >= 15:
            said[0] = elapsed
            progress(f"still building the {release.name} root ({elapsed:.0f} s)")

    try:
        result = run(argv, timeout=BUILD_TIMEOUT, on_tick=tick)
    except BaseException:
        _remove(tmp)
        raise
    lines = [ln for ln in result.stderr.splitlines() if ln.startswith("I: ")]
    if result.returncode != 0:
        _remove(tmp)
        raise LabError(
            f"building the {release.name} root failed: {result.last_error_line()}",
            hint=f"is {mirror()} reachable? (mmdebstrap {release.suite})",
            log_lines=tuple(lines[-10:]),
        )
    found = chroot(str(tmp)).version()
    if found is None:
        raise LabError(f"the new {release.name} root's ceph did not say its version")
    version = found.version
    fio = _fio_version(tmp)
    size = _size(tmp)
    stamp = Built(version, fio, size, time.time(), round(time.monotonic() - start, 1), PACKAGES)
    (tmp / _STAMP).write_text(json.dumps(stamp.__dict__, indent=2) + "\n")
    os.replace(tmp, dest)
    progress(f"built Ceph {version} and fio {fio} in {stamp.seconds:g} s ({size / 1e6:.0f} MB)")


def in_use() -> bool:
    """A lab's view of a release root is mounted (its root must not change under it)."""
    return VIEWS.is_dir() and any(VIEWS.iterdir())


def _remove(tree: Path) -> None:
    """Remove a (half-)built root, never through a mount point left inside it."""
    if not tree.exists():
        return
    inside = mounts_under(tree)
    if inside:
        raise LabError(
            f"{tree} has mounts inside it ({inside[0]}): not removing it",
            hint=f"unmount them (umount -R {inside[0]}), then run the command again",
        )
    shutil.rmtree(tree)


def _fio_version(tree: Path) -> str:
    result = chroot(str(tree)).run("fio", "--version", timeout=60)
    m = _FIO_VERSION.search(result.stdout + result.stderr)
    if m is None:
        raise LabError(f"the new root's fio did not say its version: {result.stdout!r}")
    return m.group(1)


def _size(tree: Path) -> int:
    total = 0
    for dirpath, _dirs, files in os.walk(tree):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(dirpath, name)).st_size
    return total
