"""Container images without a registry: a docker-archive tar written from files of this machine.

Air-gapped clusters and the lab's Kubernetes need an image with fio in it, and no registry
may be reached to get one. :func:`build_fio_image` puts this machine's fio (with every library
``ldd`` lists, librbd and librados included, so the rbd and rados engines work), ``/bin/sh``,
``sleep``, ``tail`` and ``cat`` and an empty ``/etc/ceph`` in one layer; or the same programs
of a root filesystem (a release lab's root, whose fio and librbd are of the cluster's release:
their libraries as the root's own loader lists them, every symlink followed inside the root);
:func:`build_pause_image` does the same for the pod sandbox's pause process, a tiny static Go
program built from ``pause/main.go``. Both tars load with ``ctr -n k8s.io images import``
(or ``docker load``). Pods use them with ``imagePullPolicy: Never``.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
import stat
import tarfile
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from cephbench.errors import ToolFailed, ToolMissing
from cephbench.system.process import run

FIO = "/usr/bin/fio"
FIO_IMAGE = "localhost/cephbench-fio"
PAUSE_IMAGE = "localhost/pause"
PAUSE_TAG = "cephbench"
PAUSE_SOURCE = Path(__file__).with_name("pause")
#: Programs the fio image carries beside fio: a shell and what idle pods run.
TOOLS = ("/bin/sh", "/usr/bin/sleep", "/usr/bin/tail", "/usr/bin/cat", "/usr/bin/date")
"""What pods need beside fio: a shell, and the programs the in-pod scripts call (date for the
shared start instant of several pods, tools/fio/pods.py)."""
LOADER = "/lib64/ld-linux-x86-64.so.2"
"""The dynamic loader of an amd64 root: ``LOADER --list PROGRAM`` is ``ldd`` (a minbase root has
no ``ldd``; it is in libc-dev-bin)."""
MAX_LINKS = 40
PATH_ENV = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
_LDD_PATH = re.compile(r"(?:=>\s*)?(/\S+)\s+\(0x[0-9a-f]+\)")
_FIO_VERSION = re.compile(r"fio-(\d[\w.+~-]*)")


@dataclass(frozen=True)
class ImageRef:
    """An image written to ``path``: ``name:tag`` is what a pod's ``image:`` names."""

    name: str
    tag: str
    fio_version: str | None
    path: Path

    @property
    def ref(self) -> str:
        return f"{self.name}:{self.tag}"


def held_fio_image(
    nodes: Iterable[Mapping], selector: Mapping[str, str] | None = None
) -> str | None:
    """cephbench's fio image (``localhost/cephbench-fio:TAG``) that every node the pods may
    land on already holds, as the nodes' ``status.images`` list it (the lab's node holds the
    one ``lab up --k8s`` imported); the newest fio when several; None when no such image is on
    all of them (pure, on ``kubectl get nodes -o json``'s items).

    ``selector``: the pods' nodeSelector; only the nodes whose labels match count."""
    held: set[str] | None = None
    for node in nodes:
        labels = (node.get("metadata") or {}).get("labels") or {}
        if selector and any(labels.get(k) != v for k, v in selector.items()):
            continue
        names = {
            n
            for image in (node.get("status") or {}).get("images") or []
            for n in image.get("names") or []
            if n.startswith(f"{FIO_IMAGE}:")
        }
        held = names if held is None else held & names
    if not held:
        return None
    return max(held, key=lambda ref: _version_key(ref.rsplit(":", 1)[1]))


def _version_key(tag: str) -> tuple[tuple[int, int | str], ...]:
    """ "3.33" < "3.36" < "3.100": numbers compare as numbers."""
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in re.split(r"[.+~-]", tag))


def parse_ldd(text: str) -> list[str]:
    """Absolute paths of the shared objects (the loader included) in ``ldd`` output."""
    found = []
    for line in text.splitlines():
        m = _LDD_PATH.search(line)
        if m and m.group(1) not in found:
            found.append(m.group(1))
    return found


def parse_fio_version(text: str) -> str:
    """ "3.33" from ``fio --version`` ("fio-3.33")."""
    m = _FIO_VERSION.search(text)
    if not m:
        raise ToolFailed(f"fio --version printed no version: {text.strip()[:80]!r}")
    return m.group(1)


def libraries(binary: str, root: Path | None = None) -> list[str]:
    """The shared libraries ``binary`` loads, as ``ldd`` lists them (none if it is static);
    with ``root``, ``binary`` and its libraries are the root's, listed by its own loader."""
    argv = ["ldd", binary] if root is None else ["chroot", str(root), LOADER, "--list", binary]
    result = run(argv, timeout=30)
    if result.returncode != 0:
        return []  # "not a dynamic executable"
    return parse_ldd(result.stdout)


def closure(programs: Iterable[str], root: Path | None = None) -> list[str]:
    """``programs`` and every library they load, each path once."""
    paths: list[str] = []
    for program in programs:
        for p in (program, *libraries(program, root)):
            if p not in paths:
                paths.append(p)
    return paths


def resolve_in(root: Path | None, path: str) -> str:
    """``path`` with every symlink followed as a program inside ``root`` sees it (an absolute
    link is the root's, never this machine's: a root's ``/lib64/ld-linux-x86-64.so.2`` points
    at ``/usr/lib/...`` of the root); with no root, this machine's own ``realpath``."""
    if root is None:
        return os.path.realpath(path)
    current = PurePosixPath("/")
    todo = list(PurePosixPath(path).parts[1:])
    hops = 0
    while todo:
        part = todo.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            current = current.parent
            continue
        step = current / part
        host = root / str(step).lstrip("/")
        if not host.is_symlink():
            current = step
            continue
        hops += 1
        if hops > MAX_LINKS:
            raise ToolFailed(f"{path} in {root}: too many levels of symbolic links")
        target = PurePosixPath(os.readlink(host))
        if target.is_absolute():
            current = PurePosixPath("/")
            todo = [*target.parts[1:], *todo]
        else:
            todo = [*target.parts, *todo]
    return str(current)


def host_file(root: Path | None, path: str) -> str:
    """The file of this machine that ``path`` inside ``root`` is (symlinks followed there)."""
    inside = resolve_in(root, path)
    return inside if root is None else str(root / inside.lstrip("/"))


def image_config(diff_id: str, entrypoint: list[str], cmd: list[str] | None = None) -> dict:
    """The image's config JSON (OCI image config, as ``docker save`` writes it)."""
    config: dict = {"Env": [PATH_ENV], "Entrypoint": entrypoint, "WorkingDir": "/"}
    if cmd:
        config["Cmd"] = cmd
    return {
        "architecture": "amd64",
        "os": "linux",
        "config": config,
        "rootfs": {"type": "layers", "diff_ids": [diff_id]},
        "history": [{"created_by": "cephbench (cephbench.kube.image)"}],
    }


def manifest(config_name: str, ref: str, layer_name: str) -> list[dict]:
    """``manifest.json`` of a docker-archive holding one image of one layer."""
    return [{"Config": config_name, "RepoTags": [ref], "Layers": [layer_name]}]


def _dir_entry(name: str, mode: int = 0o755) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = tarfile.DIRTYPE
    info.mode = mode
    return info


def write_layer(
    out: io.BufferedWriter,
    files: Mapping[str, str],
    dirs: Mapping[str, int],
    symlinks: Mapping[str, str],
) -> None:
    """A layer tar: ``files`` (image path -> host file, copied with symlinks followed),
    ``dirs`` (image path -> mode, empty directories) and ``symlinks`` (image path -> target).
    Every parent directory gets its own entry; entries are sorted (the same files give the
    same bytes)."""
    wanted: dict[str, int] = {}
    for path in [*files, *dirs, *symlinks]:
        parent = Path(path.strip("/")).parent
        while str(parent) != ".":
            wanted.setdefault(str(parent), 0o755)
            parent = parent.parent
    for path, mode in dirs.items():
        wanted[path.strip("/")] = mode
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name in sorted(wanted):
            tar.addfile(_dir_entry(name, wanted[name]))
        for name in sorted(symlinks):
            info = tarfile.TarInfo(name.strip("/"))
            info.type = tarfile.SYMTYPE
            info.linkname = symlinks[name]
            info.mode = 0o777
            tar.addfile(info)
        for name in sorted(files):
            src = files[name]
            st = os.stat(src)
            info = tarfile.TarInfo(name.strip("/"))
            info.size = st.st_size
            info.mode = stat.S_IMODE(st.st_mode)
            info.mtime = int(st.st_mtime)
            with open(src, "rb") as f:
                tar.addfile(info, f)


def write_archive(
    out: Path,
    ref: str,
    entrypoint: list[str],
    files: Mapping[str, str],
    dirs: Mapping[str, int] | None = None,
    symlinks: Mapping[str, str] | None = None,
    cmd: list[str] | None = None,
) -> None:
    """Write a docker-archive tar of one image ``ref`` ("name:tag") with a single layer."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent, prefix=".image-") as tmp:
        layer = Path(tmp) / "layer.tar"
        with open(layer, "wb") as f:
            write_layer(f, files, dirs or {}, symlinks or {})
        digest = hashlib.sha256()
        with open(layer, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        layer_id = digest.hexdigest()
        config = json.dumps(image_config(f"sha256:{layer_id}", entrypoint, cmd)).encode()
        config_name = hashlib.sha256(config).hexdigest() + ".json"
        name, tag = ref.rsplit(":", 1)
        partial = Path(tmp) / "image.tar"
        with tarfile.open(partial, "w") as tar:
            tar.add(layer, arcname=f"{layer_id}/layer.tar")
            _add_bytes(tar, config_name, config)
            _add_bytes(
                tar,
                "manifest.json",
                json.dumps(manifest(config_name, ref, f"{layer_id}/layer.tar")).encode(),
            )
            _add_bytes(tar, "repositories", json.dumps({name: {tag: layer_id}}).encode())
        os.replace(partial, out)


def _add_bytes(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = 0o644
    tar.addfile(info, io.BytesIO(data))


def build_fio_image(
    out: Path, fio: str = FIO, root: Path | None = None, flavour: str | None = None
) -> ImageRef:
    """Write the fio image (``localhost/cephbench-fio:<fio version>``) to ``out``.

    ``root``: the programs are that root filesystem's (``fio`` a path inside it), the tag
    ``<fio version>-<flavour>`` (``3.41-ceph20.2.4``: its librbd is that release's)."""
    if not Path(host_file(root, fio)).exists():
        where = "" if root is None else f" in {root}"
        raise ToolMissing(
            f"{fio} does not exist{where}", hint="install it with: apt-get install fio"
        )
    argv = [fio, "--version"] if root is None else ["chroot", str(root), fio, "--version"]
    version = parse_fio_version(run(argv, timeout=30, check=True).stdout)
    programs = [fio, *(t for t in TOOLS if Path(host_file(root, t)).exists())]
    files = {p: host_file(root, p) for p in closure(programs, root) if p != "/bin/sh"}
    shell = resolve_in(root, "/bin/sh")  # dash on Debian
    files[shell] = host_file(root, shell)
    files.update({lib: host_file(root, lib) for lib in libraries(shell, root)})
    symlinks = {} if shell == "/bin/sh" else {"/bin/sh": shell}
    etc = {"/etc/passwd": _text(out, "passwd"), "/etc/group": _text(out, "group")}
    dirs = {"/tmp": 0o1777, "/etc/ceph": 0o755, "/data": 0o755}
    dirs |= {"/proc": 0o555, "/sys": 0o555, "/dev": 0o755}
    tag = f"{version}-{flavour}" if flavour else version
    ref = ImageRef(FIO_IMAGE, tag, version, out)
    try:
        write_archive(out, ref.ref, ["/usr/bin/fio"], {**files, **etc}, dirs, symlinks)
    finally:
        for f in etc.values():
            Path(f).unlink(missing_ok=True)
    return ref


def _text(out: Path, which: str) -> str:
    """/etc/passwd or /etc/group of the image, as a file beside ``out`` (removed after)."""
    lines = {
        "passwd": "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n",
        "group": "root:x:0:\nnogroup:x:65534:\n",
    }[which]
    out.parent.mkdir(parents=True, exist_ok=True)
    path = out.with_name(f".{out.name}.{which}")
    path.write_text(lines)
    return str(path)


def build_pause_image(out: Path, go: str, env: Mapping[str, str] | None = None) -> ImageRef:
    """Write the pause image (``localhost/pause:cephbench``) to ``out``, compiling
    ``pause/main.go`` (static, CGO off) with the Go toolchain ``go``."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent, prefix=".pause-") as tmp:
        src = Path(tmp) / "src"
        shutil.copytree(PAUSE_SOURCE, src)
        binary = Path(tmp) / "pause"
        result = run(
            [go, "build", "-trimpath", "-ldflags", "-s -w", "-o", str(binary), "."],
            cwd=str(src),
            env={"CGO_ENABLED": "0", "GOFLAGS": "-buildvcs=false", **(env or {})},
            timeout=600,
        )
        if result.returncode != 0:
            raise ToolFailed(f"building the pause image failed: {result.last_error_line()}")
        ref = ImageRef(PAUSE_IMAGE, PAUSE_TAG, None, out)
        write_archive(out, ref.ref, ["/pause"], {"/pause": str(binary)})
    return ref
