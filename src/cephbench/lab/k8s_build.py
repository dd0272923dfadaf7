"""The lab's Kubernetes binaries, built from the Go module proxy and cached by version.

No Kubernetes package or download site is used: ``k8s.io/kubernetes`` is a Go module, but
``go install k8s.io/kubernetes/cmd/kubelet@v1.37.2`` fails on its ``replace`` directives
(every staging module points into its own tree). A generated wrapper module requires
``k8s.io/kubernetes`` and replaces each staging module with its published ``v0.x`` twin;
``go build`` then builds kube-apiserver, kube-controller-manager, kube-scheduler, kubelet and
kubectl from it. The first build takes 13-14 minutes on 2 cores (up to 2.6 GB of memory), a
build from Go's cache about 40 s; the binaries land in ``$XDG_CACHE_HOME/cephbench/k8s/<version>/bin``
and are built only when missing, so a machine pays once.

Go must be at least the version the Kubernetes module names. A ``go`` on PATH or in
/usr/local/go is used when new enough; an older one (>= 1.21) fetches the toolchain module
from the Go module proxy itself (``GOTOOLCHAIN``); with none, the ``golang.org/toolchain``
module zip is fetched from the proxy and unpacked into the cache.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import urllib.request
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cephbench.errors import ToolFailed, ToolMissing
from cephbench.system.process import run

VERSION = "v1.37.2"
COMMANDS = ("kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubelet", "kubectl")
#: The toolchain fetched when this machine's Go is too old (any go1.26.x builds v1.37.2).
TOOLCHAIN = "go1.26.8"
GO_CANDIDATES = ("go", "/usr/local/go/bin/go")
DEFAULT_PROXY = "https://proxy.golang.org"
BUILD_TIMEOUT = 3 * 3600.0
_GO_VERSION = re.compile(r"\bgo(\d+)\.(\d+)(?:\.(\d+))?")

Progress = Callable[[str], None]


def _quiet(message: str) -> None:
    pass


def cache_root() -> Path:
    """``$XDG_CACHE_HOME/cephbench/k8s`` (~/.cache/cephbench/k8s)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser().absolute() / "cephbench" / "k8s"


def bin_dir(version: str = VERSION) -> Path:
    """Where the binaries of ``version`` are cached."""
    return cache_root() / version / "bin"


def missing(version: str = VERSION) -> list[str]:
    """The binaries of ``version`` not in the cache yet."""
    return [c for c in COMMANDS if not (bin_dir(version) / c).is_file()]


def staging_version(version: str) -> str:
    """The staging modules' version of a Kubernetes release: v1.37.2 -> v0.37.2."""
    m = re.fullmatch(r"v1\.(\d+)\.(\d+)", version)
    if not m:
        raise ValueError(f"not a Kubernetes release version: {version!r} (example: v1.37.2)")
    return f"v0.{m.group(1)}.{m.group(2)}"


def ldflags(version: str) -> str:
    """The ``-X`` version stamps (without them every binary says v0.0.0-master)."""
    minor = staging_version(version).split(".")[1]
    stamps = {
        "k8s.io/component-base/version.gitVersion": version,
        "k8s.io/component-base/version.gitMajor": "1",
        "k8s.io/component-base/version.gitMinor": minor,
        "k8s.io/component-base/version.gitTreeState": "clean",
        "k8s.io/component-base/version.gitCommit": "module-proxy-build",
        "k8s.io/component-base/version.buildDate": "2026-01-01T00:00:00Z",
        "k8s.io/client-go/pkg/version.gitVersion": version,
        "k8s.io/client-go/pkg/version.gitMajor": "1",
        "k8s.io/client-go/pkg/version.gitMinor": minor,
    }
    return "-s -w " + " ".join(f"-X {k}={v}" for k, v in stamps.items())


def wrapper_go_mod(kube_go_mod: str, version: str) -> str:
    """The wrapper module's go.mod, from the Kubernetes module's own go.mod (pure).

    Same ``go`` and ``godebug`` lines; each module the Kubernetes go.mod replaces with a
    path inside its tree is replaced with the published staging version instead.
    """
    go_line = re.search(r"^go\s+(\S+)", kube_go_mod, re.M)
    godebug = re.search(r"^godebug\s+.+$", kube_go_mod, re.M)
    block = re.search(r"^replace\s*\((.*?)^\)", kube_go_mod, re.M | re.S)
    staged = []
    for line in (block.group(1) if block else "").splitlines():
        parts = line.split("=>")
        if len(parts) == 2 and parts[1].strip().startswith("./"):
            staged.append(parts[0].split()[0])
    if not go_line or not staged:
        raise ToolFailed("the Kubernetes module's go.mod has no go line or no staging replaces")
    sv = staging_version(version)
    lines = ["module cephbench/k8s-build", "", f"go {go_line.group(1)}", ""]
    if godebug:
        lines += [godebug.group(0), ""]
    lines += [f"require k8s.io/kubernetes {version}", "", "replace ("]
    lines += [f"\t{m} => {m} {sv}" for m in staged]
    lines += [")", ""]
    return "\n".join(lines)


def parse_go_version(text: str) -> tuple[int, int, int] | None:
    """(1, 26, 8) from "go version go1.26.8 linux/amd64" or "1.26.0"; None if absent."""
    m = _GO_VERSION.search(text if text.startswith("go") else f"go{text}")
    if not m:
        return None
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def required_go(kube_go_mod: str) -> tuple[int, int, int]:
    """The Go version the Kubernetes module's go.mod names."""
    m = re.search(r"^go\s+(\S+)", kube_go_mod, re.M)
    found = parse_go_version(m.group(1)) if m else None
    if found is None:
        raise ToolFailed("the Kubernetes module's go.mod names no Go version")
    return found


@dataclass(frozen=True)
class Go:
    """A Go toolchain to build with: its path and the environment it needs."""

    path: str
    env: dict[str, str]
    version: str


def _go_version(path: str) -> tuple[int, int, int] | None:
    try:
        result = run([path, "version"], timeout=60, env={"GOTOOLCHAIN": "local"})
    except ToolMissing:
        return None
    return parse_go_version(result.stdout) if result.returncode == 0 else None


def _proxy() -> str:
    """The first proxy of GOPROXY (default proxy.golang.org); never a download site."""
    for entry in re.split(r"[,|]", os.environ.get("GOPROXY", DEFAULT_PROXY)):
        if entry.startswith(("https://", "http://")):
            return entry.rstrip("/")
    return DEFAULT_PROXY


def _fetch(url: str, dest: Path) -> None:
    tmp = dest.with_suffix(dest.suffix + ".part")
    try:
        with urllib.request.urlopen(url, timeout=120) as response, open(tmp, "wb") as f:
            shutil.copyfileobj(response, f)
    except OSError as e:
        raise ToolFailed(f"cannot fetch {url}: {e}") from None
    os.replace(tmp, dest)


def kube_go_mod(version: str) -> str:
    """The Kubernetes module's go.mod: from Go's module cache, else from the proxy."""
    gopath = os.environ.get("GOPATH") or str(Path.home() / "go")
    modcache = Path(os.environ.get("GOMODCACHE") or Path(gopath.split(":")[0]) / "pkg" / "mod")
    cached = modcache / "cache" / "download" / "k8s.io" / "kubernetes" / "@v" / f"{version}.mod"
    if cached.is_file():
        return cached.read_text()
    dest = cache_root() / version / "kubernetes.mod"
    if not dest.is_file():
        dest.parent.mkdir(parents=True, exist_ok=True)
        _fetch(f"{_proxy()}/k8s.io/kubernetes/@v/{version}.mod", dest)
    return dest.read_text()


def find_go(required: tuple[int, int, int], progress: Progress = _quiet) -> Go:
    """A Go at least ``required``: this machine's, one it fetches itself, or the proxy's."""
    found = []
    toolchain_go = cache_root() / "toolchain" / TOOLCHAIN / "bin" / "go"
    for candidate in (*GO_CANDIDATES, str(toolchain_go)):
        path = shutil.which(candidate)
        version = _go_version(path) if path else None
        if path and version:
            if version >= required:
                return Go(path, {"GOTOOLCHAIN": "local"}, "go" + ".".join(map(str, version)))
            found.append((path, version))
    for path, version in found:
        if version >= (1, 21, 0):  # go fetches golang.org/toolchain from the module proxy
            progress(f"Go {'.'.join(map(str, version))} is too old: using {TOOLCHAIN} through it")
            return Go(path, {"GOTOOLCHAIN": TOOLCHAIN}, TOOLCHAIN)
    return Go(str(_toolchain_from_proxy(toolchain_go.parent.parent, progress)), {}, TOOLCHAIN)


def _toolchain_from_proxy(root: Path, progress: Progress) -> Path:
    """Unpack the ``golang.org/toolchain`` module of TOOLCHAIN from the Go module proxy."""
    arch = {"x86_64": "amd64", "aarch64": "arm64"}.get(os.uname().machine, os.uname().machine)
    module = f"v0.0.1-{TOOLCHAIN}.linux-{arch}"
    progress(f"no Go >= the one Kubernetes needs: fetching golang.org/toolchain@{module}")
    root.parent.mkdir(parents=True, exist_ok=True)
    archive = root.parent / f"{TOOLCHAIN}.zip"
    _fetch(f"{_proxy()}/golang.org/toolchain/@v/{module}.zip", archive)
    prefix = f"golang.org/toolchain@{module}/"
    partial = root.with_name(root.name + ".part")
    shutil.rmtree(partial, ignore_errors=True)
    with zipfile.ZipFile(archive) as z:
        for item in z.infolist():
            if not item.filename.startswith(prefix) or item.is_dir():
                continue
            dest = partial / item.filename[len(prefix) :]
            dest.parent.mkdir(parents=True, exist_ok=True)
            with z.open(item) as src, open(dest, "wb") as out:
                shutil.copyfileobj(src, out)
            mode = (item.external_attr >> 16) & 0o777
            dest.chmod(mode or 0o644)
    archive.unlink()
    shutil.rmtree(root, ignore_errors=True)
    os.replace(partial, root)
    return root / "bin" / "go"


def ensure_binaries(version: str = VERSION, progress: Progress = _quiet) -> Path:
    """The directory holding the five binaries of ``version``, building those missing."""
    out = bin_dir(version)
    if not missing(version):
        return out
    top = cache_root() / version
    top.mkdir(parents=True, exist_ok=True)
    with open(top / "build.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one build at a time; a second waits, then has them
        todo = missing(version)
        if todo:
            _build(version, top, todo, progress)
    return out


def _build(version: str, top: Path, todo: list[str], progress: Progress) -> None:
    kube_mod = kube_go_mod(version)
    go = find_go(required_go(kube_mod), progress)
    module = top / "module"
    env = {
        **go.env,
        "CGO_ENABLED": "0",
        "GOFLAGS": "-p=1 -buildvcs=false",  # one package at a time: a shared, small machine
    }
    if not (module / "go.sum").is_file():
        progress(f"fetching Kubernetes {version} from the Go module proxy (go get)")
        module.mkdir(parents=True, exist_ok=True)
        (module / "go.mod").write_text(wrapper_go_mod(kube_mod, version))
        (module / "main.go").write_text("package main\n\nfunc main() {}\n")
        targets = [f"k8s.io/kubernetes/cmd/{c}@{version}" for c in COMMANDS]
        _go(go, ["get", *targets], module, env, "go get")
    out = bin_dir(version)
    partial = top / "bin.part"
    partial.mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    for n, command in enumerate(todo, 1):
        progress(
            f"building Kubernetes {version} from the Go module proxy: {command} "
            f"({n}/{len(todo)})... (about 40 s from Go's cache, 13 min the first time)"
        )
        argv = ["build", "-trimpath", "-ldflags", ldflags(version)]
        argv += ["-o", str(partial / command), f"k8s.io/kubernetes/cmd/{command}"]
        _go(go, argv, module, env, f"building {command}")
        os.replace(partial / command, out / command)
    shutil.rmtree(partial, ignore_errors=True)
    (top / "build.json").write_text(json.dumps({"version": version, "go": go.version}) + "\n")


def _go(go: Go, args: list[str], cwd: Path, env: dict[str, str], what: str) -> None:
    argv = ["nice", "-n", "19", go.path, *args] if shutil.which("nice") else [go.path, *args]
    result = run(argv, cwd=str(cwd), env=env, timeout=BUILD_TIMEOUT)
    if result.returncode != 0:
        raise ToolFailed(
            f"{what} for the lab's Kubernetes failed: {result.last_error_line()}",
            hint=f"the wrapper module is in {cwd}",
        )
