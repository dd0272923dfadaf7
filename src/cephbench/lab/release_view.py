"""A lab's view of its release root: where that lab's daemons and client programs ``chroot``.

The cached root (``lab/releases.py``) is bind-mounted at ``/run/cephbench/views/LAB``, made
private at once (so nothing mounted inside it reaches the cache or the machine), with
``/dev``, ``/proc`` and ``/sys`` inside it, each made a slave (unmounting the view never
unmounts the machine's own), ``/tmp`` without the mounts under it (:data:`ALONE`), and the
lab directory at its own path: inside the view a program sees the paths cephbench gives it.
The lab directory is ``/etc/ceph`` too, as on a Ceph node: a client program given no
``--conf`` finds the lab's ``ceph.conf`` and admin keyring (Tentacle's rbd-fuse crashes on
any ``-c``, see ``lab/k8s_volumes.py``). The view is recorded in the lab's state before it
is made, and ``lab down`` unmounts it; it is never removed recursively, only unmounted and then
``rmdir``-ed, so nothing under a mount point is ever deleted.
"""

from __future__ import annotations

import contextlib
import hashlib
from pathlib import Path

from cephbench.ceph.tools import ROOT_PATH
from cephbench.lab.errors import LabError
from cephbench.system.process import run

VIEWS = Path("/run/cephbench/views")
#: The machine's trees every program in the view needs at their own paths.
SHARED = ("dev", "proc", "sys", "tmp")
#: Of those, the trees bound without the mounts under them, and private: a mount another
#: program makes under the machine's /tmp (another lab's ceph-fuse) does not appear in the
#: view, where it would stay after its own unmount and keep its directory busy (a CI run's
#: Pacific CephFS test could not remove its mount point, and the Tentacle view's tests saw
#: that mount as theirs).
ALONE = ("tmp",)
ETC_CEPH = "/etc/ceph"
"""Where Ceph's programs look for ``ceph.conf`` and keyrings with no option: the view binds
the lab's directory there."""


def path_for(lab_id: str, lab_dir: Path) -> Path:
    """The view's mount point: one per lab (its id and a digest of its directory)."""
    digest = hashlib.sha256(str(lab_dir).encode()).hexdigest()[:8]
    return VIEWS / f"{lab_id}-{digest}"


def _mount(*args: str) -> None:
    result = run(["mount", *args], timeout=30)
    if result.returncode != 0:
        raise LabError(f"mount {' '.join(args)} failed: {result.last_error_line()}")


def made_in_root(root: Path, lab_dir: Path) -> list[Path]:
    """The directories :func:`create` will make in ``root`` for ``lab_dir``'s mount point
    (those of its path the root lacks, outermost first; none under a shared tree)."""
    if any(lab_dir == Path(f"/{n}") or Path(f"/{n}") in lab_dir.parents for n in SHARED):
        return []
    inside = root / lab_dir.relative_to("/")
    return [p for p in [*reversed(inside.parents), inside] if root in p.parents and not p.exists()]


def create(view: Path, root: Path, lab_dir: Path) -> None:
    """Make ``view``: ``root`` with the machine's shared trees and ``lab_dir`` inside (the
    directories it needs in the root are :func:`made_in_root`'s, recorded first)."""
    view.mkdir(parents=True, exist_ok=False)
    _mount("--bind", str(root), str(view))
    _mount("--make-private", str(view))
    for name in SHARED:
        if name in ALONE:
            _mount("--bind", f"/{name}", str(view / name))
            _mount("--make-private", str(view / name))
        else:
            _mount("--rbind", f"/{name}", str(view / name))
            _mount("--make-rslave", str(view / name))
    inside = view / lab_dir.relative_to("/")
    if not any(lab_dir == Path(f"/{n}") or Path(f"/{n}") in lab_dir.parents for n in SHARED):
        inside.mkdir(parents=True, exist_ok=True)
        _mount("--bind", str(lab_dir), str(inside))
        _mount("--make-private", str(inside))
    etc = view / ETC_CEPH.lstrip("/")
    _mount("--bind", str(lab_dir), str(etc))
    _mount("--make-private", str(etc))


#: The client programs ``lab env`` gives a shell, each run from the view.
SHELL_PROGRAMS = ("ceph", "rados", "rbd", "fio", "ceph-fuse", "rbd-fuse", "ceph-authtool")


def write_shims(view: Path, bin_dir: Path) -> None:
    """A script per client program in ``bin_dir`` running it in ``view``, in the caller's
    directory: with ``bin_dir`` first on PATH a shell's ``ceph -s`` is the release's."""
    bin_dir.mkdir(exist_ok=True)
    for program in SHELL_PROGRAMS:
        script = bin_dir / program
        script.write_text(
            "#!/bin/sh\n# cephbench lab: this lab's release runs from its root's view, in the\n"
            "# caller's directory when the view has it (/tmp, the lab's), else in its /\n"
            f'dir="$PWD"; [ -d "{view}$dir" ] || dir=/\n'
            f'exec chroot {view} env -C "$dir" PATH={ROOT_PATH} {program} "$@"\n'
        )
        script.chmod(0o755)


def mounts_under(view: Path) -> list[Path]:
    """Mount points at or below ``view`` (this process's mount namespace)."""
    with open("/proc/self/mountinfo") as f:
        points = [Path(line.split()[4].replace("\\040", " ")) for line in f]
    return [p for p in points if p == view or view in p.parents]


def remove_made(made: list[str]) -> None:
    """The directories made in a root for a lab's mount point, innermost first, each only if
    empty (``rmdir``), once the view is unmounted."""
    for d in reversed(made):
        with contextlib.suppress(FileNotFoundError, OSError):
            Path(d).rmdir()


def destroy(view: Path | str | None) -> None:
    """Unmount ``view`` and everything under it, then remove its (empty) mount point."""
    if not view:
        return
    view = Path(view)
    if mounts_under(view):
        result = run(["umount", "-R", str(view)], timeout=60)
        if result.returncode != 0 and mounts_under(view):
            # a process still inside (a daemon that would not die): detach it lazily
            run(["umount", "-R", "-l", str(view)], timeout=60)
    if mounts_under(view):
        raise LabError(
            f"could not unmount the lab's release root view {view}",
            hint=f"see what uses it (fuser -vm {view}), then: umount -R {view}",
        )
    with contextlib.suppress(FileNotFoundError):
        view.rmdir()


def leftovers(view: Path | str | None) -> list[str]:
    if not view:
        return []
    left = [f"mount {p}" for p in mounts_under(Path(view))]
    if Path(view).exists():
        left.append(f"directory {view}")
    return left
