"""``cephbench lab``: a throwaway Ceph cluster on this machine (thin adapters over cephbench.lab)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from cephbench.cli.common import console, console_err, debug_option, format_option, print_json
from cephbench.errors import UsageError

if TYPE_CHECKING:
    from cephbench import lab as labapi

# cephbench.lab.paths.DIR_ENV (a test keeps them equal): importing any of cephbench.lab loads
# the whole lab API, pydantic included, which `cephbench lab --help` does without.
DIR_ENV = "CEPHBENCH_LAB_DIR"


def _progress(message: str) -> None:
    console_err.print(f"[dim]lab:[/] {message}")


def _lab_command(f: Callable) -> Callable:
    """--dir and --debug on every subcommand; daemon log lines printed before an error."""

    @click.option(
        "--dir",
        "lab_dir",
        type=click.Path(file_okay=False, path_type=Path),
        envvar=DIR_ENV,
        help=f"Lab directory (or ${DIR_ENV}). Default: $XDG_STATE_HOME/cephbench/lab.",
    )
    @debug_option
    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from cephbench import lab as labapi  # the lab API (pydantic...): not for --help

        try:
            return f(*args, **kwargs)
        except labapi.LabError as e:
            if e.log_lines:
                console_err.print("[bold]last lines of the daemon's log:[/]")
                for line in e.log_lines:
                    console_err.print(f"  {line}", markup=False, soft_wrap=True)
            raise

    return wrapper


def _running(lab_dir: Path | None) -> labapi.LabInfo:
    from cephbench import lab as labapi

    info = labapi.find_running(lab_dir)
    if info is None:
        where = lab_dir or labapi.default_dir()
        raise labapi.LabError(f"no lab is running in {where}", hint="start one: cephbench lab up")
    return info


@click.group()
def lab() -> None:
    """A real, throwaway Ceph cluster on this machine: plain processes, no containers.

    `cephbench lab up`, use it (`eval "$(cephbench lab env)"; ceph -s`), `cephbench lab down`.
    """


@lab.command()
@click.option("--osds", default=3, show_default=True, help="Number of OSDs.")
@click.option(
    "--hosts",
    default=1,
    show_default=True,
    help="Hosts; 2 or more are network namespaces on a bridge (needs root).",
)
@click.option(
    "--store",
    type=click.Choice(["bluestore", "memstore"]),
    default="bluestore",
    show_default=True,
    help="OSD object store: BlueStore on sparse files, or RAM.",
)
@click.option(
    "--osd-size",
    default="8G",
    show_default=True,
    help="Size of each OSD (sparse file, or RAM with memstore).",
)
@click.option("--rate", help="tbf rate limit on every host link, both ways (e.g. 1gbit).")
@click.option(
    "--ssh",
    is_flag=True,
    help="An sshd in each host namespace and an inventory: --hosts lab (needs --hosts 2+).",
)
@click.option(
    "--cephfs",
    is_flag=True,
    help="An MDS and a CephFS filesystem `lab` (metadata and data pools): --target cephfs:lab.",
)
@click.option(
    "--k8s",
    is_flag=True,
    help="Also a single-node Kubernetes with a StorageClass on the lab's Ceph (root; "
    "builds Kubernetes from the Go module proxy on first use).",
)
@click.option(
    "--release",
    type=click.Choice(["pacific", "reef", "tentacle"]),
    default="pacific",
    show_default=True,
    help="The Ceph release: Pacific 16 is this machine's; Reef 18 and Tentacle 20 run from a "
    "root built from Debian on first use (a minute, ~700 MB; see `lab releases`).",
)
@click.option(
    "--auth",
    type=click.Choice(["cephx", "none"]),
    default="cephx",
    show_default=True,
    help="Authentication.",
)
@click.option(
    "--conf-set",
    "conf_set",
    multiple=True,
    metavar="KEY=VALUE",
    help="Extra ceph.conf option (repeatable), e.g. osd_op_num_shards=2.",
)
@click.option(
    "--timeout",
    default=300.0,
    show_default=True,
    help="Seconds to wait for HEALTH_OK before giving up (and cleaning up).",
)
@_lab_command
def up(lab_dir: Path | None, conf_set: tuple[str, ...], timeout: float, **options: Any) -> None:
    """Start a lab and wait for HEALTH_OK (does nothing if one is running)."""
    from cephbench import lab as labapi

    spec = _spec(lab_dir, conf_set, options)
    result = labapi.up(spec, progress=_progress, timeout=timeout)
    if result.already_running:
        console.print(f"A lab is already running in {result.info.dir}; left it untouched.")
        return
    console.print(
        f"[bold green]HEALTH_OK[/] in {result.seconds:.1f} s: Ceph {spec.release}, "
        f"1 mon, 1 mgr, {spec.osds} OSDs "
        + ("and an MDS (CephFS lab) " if spec.cephfs else "")
        + f"({spec.store}) on {spec.hosts} host{'s' if spec.hosts > 1 else ''} in {spec.dir}"
    )
    console.print(f'Use it by hand: eval "$(cephbench lab env --dir {spec.dir})"; ceph -s')
    if spec.ssh:
        console.print(f"Hosts over ssh: ssh -F {spec.dir}/ssh/config host0; --hosts lab")
    k8s = result.info.k8s
    if k8s is not None:
        console.print(
            f"Kubernetes {k8s.version}: node {k8s.node} Ready, StorageClass {k8s.storage_class} "
            f"(RBD images in pool {k8s.pool}); kubectl get pods -A after the eval above"
        )


@lab.command()
@format_option("table", "json")
@click.option("--build", "to_build", multiple=True, help="Build this release's root if missing.")
@debug_option
def releases(fmt: str, to_build: tuple[str, ...]) -> None:
    """The Ceph releases a lab can run: version, where each comes from, built or not, size."""
    from cephbench.lab import releases as rel

    for name in to_build:
        rel.ensure(rel.get(name), _progress)
    rows: list[dict[str, Any]] = []
    for r in rel.RELEASES.values():
        built = rel.built(r) if r.needs_root else None
        version = rel.local_version() if not r.needs_root else (built.version if built else None)
        rows.append(
            {
                "release": r.name,
                "major": r.major,
                "version": version,
                "from": r.source(),
                "built": (version is not None) if not r.needs_root else built is not None,
                "root": str(rel.root(r)) if r.needs_root else None,
                "bytes": built.bytes if built else None,
                "fio": built.fio if built else None,
                "default": r.name == rel.DEFAULT,
            }
        )
    if fmt == "json":
        print_json(rows)
        return
    from rich.table import Table

    table = Table("release", "version", "from", "built", "size", "fio", box=None)
    for row in rows:
        size = f"{row['bytes'] / 1e6:.0f} MB" if row["bytes"] else ""
        said = "yes" if row["built"] else f"no: lab up --release {row['release']} builds it"
        if row["root"] is None:
            said = "installed" if row["built"] else "no: make install"
        name = row["release"] + (" (default)" if row["default"] else "")
        table.add_row(name, row["version"] or "", row["from"], said, size, row["fio"] or "")
    console.print(table)


@lab.command("build-k8s")
@debug_option
def build_k8s() -> None:
    """Build the lab's Kubernetes binaries from the Go module proxy if they are not cached.

    `lab up --k8s` does this on first use; `make test` runs it before its Kubernetes tier.
    The binaries are cached under $XDG_CACHE_HOME/cephbench/k8s/<version>/bin.
    """
    from cephbench.lab import k8s_build

    todo = k8s_build.missing()
    out = k8s_build.ensure_binaries(progress=_progress)
    if todo:
        console.print(f"Kubernetes {k8s_build.VERSION} built: {out}")
    else:
        console.print(f"Kubernetes {k8s_build.VERSION} is cached: {out}")


def _spec(lab_dir: Path | None, conf_set: tuple[str, ...], options: dict) -> labapi.LabSpec:
    from pydantic import ValidationError

    from cephbench import lab as labapi

    pairs = {}
    for item in conf_set:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--conf-set wants KEY=VALUE, got {item!r}")
        pairs[key] = value
    if lab_dir is not None:
        options["dir"] = lab_dir
    try:
        return labapi.LabSpec(conf_set=pairs, **options)
    except ValidationError as e:
        messages = "; ".join(err["msg"].removeprefix("Value error, ") for err in e.errors())
        raise UsageError(messages) from None


@lab.command()
@click.option("--purge", is_flag=True, help="Do not keep the daemon logs.")
@_lab_command
def down(lab_dir: Path | None, purge: bool) -> None:
    """Stop the lab and remove everything it created."""
    from cephbench import lab as labapi

    result = labapi.down(lab_dir, purge=purge)
    if result is None:
        console.print(f"No lab in {lab_dir or labapi.default_dir()}; nothing to do.")
        return
    console.print(f"Lab down in {result.seconds:.1f} s; nothing left behind.")
    if result.archive:
        console.print(f"Logs kept in {result.archive}")


@lab.command()
@format_option("table", "json")
@_lab_command
def status(lab_dir: Path | None, fmt: str) -> None:
    """Daemons, pids, health, pools, OSD tree and memory of the lab."""
    from cephbench import lab as labapi

    data = labapi.status(lab_dir)
    if fmt == "json":
        print_json(data)
    elif "osds" not in data:
        console.print(f"No lab in {data['dir']}.")
    else:
        from cephbench.cli.lab_status import print_status

        print_status(data)


@lab.command()
@_lab_command
def env(lab_dir: Path | None) -> None:
    """Print the exports that point the ceph CLI (and rados, rbd, fio) at the lab.

    With `lab up --k8s` also KUBECONFIG, and the lab's kubectl first on PATH. With
    `lab up --release`, the release's own ceph, rados, rbd, fio and ceph-fuse first on PATH.
    """
    import shlex

    info = _running(lab_dir)
    for key, value in info.env.items():
        click.echo(f"export {key}={shlex.quote(value)}")
    if not info.tools.local:
        click.echo(f'export PATH={shlex.quote(str(info.dir / "bin"))}:"$PATH"')
    if info.k8s is not None:
        click.echo(f"export KUBECONFIG={shlex.quote(str(info.k8s.kubeconfig))}")
        click.echo(f'export PATH={shlex.quote(str(info.k8s.bin_dir))}:"$PATH"')


@lab.command("restart-osd")
@click.argument("osd", type=int)
@_lab_command
def restart_osd(lab_dir: Path | None, osd: int) -> None:
    """(Re)start OSD number OSD and wait until the cluster sees it up."""
    from cephbench import lab as labapi

    seconds = labapi.restart_osd(_running(lab_dir), osd)
    console.print(f"osd.{osd} up again after {seconds:.1f} s")


@lab.command("stop-osd")
@click.argument("osd", type=int)
@click.option("--kill", is_flag=True, help="SIGKILL instead of a clean SIGTERM stop.")
@_lab_command
def stop_osd(lab_dir: Path | None, osd: int, kill: bool) -> None:
    """Stop OSD number OSD (to test failures); `restart-osd` brings it back."""
    from cephbench import lab as labapi

    if labapi.stop_osd(_running(lab_dir), osd, kill=kill):
        console.print(f"osd.{osd} stopped")
    else:
        console.print(f"osd.{osd} was not running")


@lab.group()
def fault() -> None:
    """Inject faults into the lab (a slow disk, a CPU-starved OSD, a slow link), list, clear.

    The proof for `cephbench diagnose`. Faults are recorded in the lab's state, shown by
    `lab status`, re-applied to an OSD restarted by `lab restart-osd`, and undone by
    `lab fault clear` and `lab down`.
    """


def _inject(lab_dir: Path | None, kind: str, target: str, **params: Any) -> None:
    from cephbench.lab import faults

    made = faults.inject(_running(lab_dir), kind, target, **params)
    console.print(f"fault injected: {made.describe()}")


@fault.command("slow-disk")
@click.argument("osd")
@click.option("--iops", type=int, help="Read and write IOPS cap on the OSD's disk (each).")
@click.option("--bps", help="Read and write bytes/s cap on the OSD's disk (each), e.g. 20M.")
@_lab_command
def slow_disk(lab_dir: Path | None, osd: str, iops: int | None, bps: str | None) -> None:
    """Throttle an OSD's disk I/O (blkio), e.g. osd.1 --iops 150.

    A cgroup v1 blkio throttle on the disk under the OSD's BlueStore file, on a cgroup
    holding only that OSD: reads and writes are each capped (BlueStore uses direct I/O).
    """
    _inject(lab_dir, "slow-disk", osd, iops=iops, bps=_bytes(bps))


def _bytes(text: str | None) -> int | None:
    from cephbench.lab.spec import parse_size

    if text is None:
        return None
    try:
        return parse_size(text)
    except ValueError as e:
        raise UsageError(f"--bps: {e}") from None


@fault.command("cpu")
@click.argument("osd")
@click.option("--percent", type=float, required=True, help="CPU the OSD may use, in % of one core.")
@_lab_command
def cpu(lab_dir: Path | None, osd: str, percent: float) -> None:
    """Cap an OSD's CPU time (cfs quota), e.g. osd.2 --percent 15.

    cgroup v1 cpu.cfs_quota_us on a cgroup holding only that OSD: PERCENT of one core.
    """
    _inject(lab_dir, "cpu", osd, percent=percent)


@fault.command("slow-link")
@click.argument("host")
@click.option("--rate", required=True, help="tc rate of the host's link, both ways (100mbit).")
@_lab_command
def slow_link(lab_dir: Path | None, host: str, rate: str) -> None:
    """Rate-limit one host's link both ways (tbf), e.g. host2 --rate 100mbit.

    Replaces the lab's own rate on that host's link (a multi-host lab); clearing restores it.
    """
    _inject(lab_dir, "slow-link", host, rate=rate)


@fault.command("mclock")
@click.argument("osd")
@_lab_command
def mclock(lab_dir: Path | None, osd: str) -> None:
    """Misconfigure one OSD's mClock as admins do: the custom profile, a client limit (and
    reservation) of 0.2 of a capacity set far too low (500 IOPS), e.g. osd.1: it serves
    clients 100 small ops a second at most.

    Reef and Tentacle labs (Pacific runs wpq). Entries in the configuration database, put
    back by `lab fault clear`; `diagnose` names the OSD and its limit.
    """
    _inject(lab_dir, "mclock", osd)


@fault.command("debug-logging")
@_lab_command
def debug_logging(lab_dir: Path | None) -> None:
    """Leave debug logging on in the OSDs: debug_osd and debug_bluestore 20/20.

    Entries in the configuration database (what each section held is recorded first and put
    back by `lab fault clear`); `diagnose` names it, `tune` removes it (osd-debug-off).
    """
    _inject(lab_dir, "debug-logging", "cluster")


@fault.command("rbd-cache-off")
@_lab_command
def rbd_cache_off(lab_dir: Path | None) -> None:
    """Turn librbd's cache off for the clients: rbd_cache false in the client section.

    Recorded first and put back by `lab fault clear`; `diagnose` names it, `tune` turns the
    cache back on (rbd-cache-on).
    """
    _inject(lab_dir, "rbd-cache-off", "cluster")


@fault.command("too-few-pgs")
@click.argument("pool")
@_lab_command
def too_few_pgs(lab_dir: Path | None, pool: str) -> None:
    """Leave a pool with too few PGs for the OSDs: its autoscaler off and pg_num 1.

    Waits until the PGs have merged (seconds on a small pool, a minute or two on one of 32).
    What the pool was set to is recorded first and put back by `lab fault clear` (its PGs
    then split back in the background); `diagnose` names it, `tune --allow data-movement`
    raises pg_num (pg-num-up).
    """
    _inject(lab_dir, "too-few-pgs", pool)


@fault.command("list")
@format_option("table", "json")
@_lab_command
def fault_list(lab_dir: Path | None, fmt: str) -> None:
    """The lab's faults, each checked on the machine (active or not)."""
    from cephbench import lab as labapi
    from cephbench.lab import faults

    found = faults.entries(lab_dir or labapi.default_dir())
    if fmt == "json":
        print_json(found)
        return
    if not found:
        console.print("No fault injected.")
    for f in found:
        console.print(
            f"{f['kind']:9} {f['summary']}" + ("" if f["active"] else "  [red](not active)[/]")
        )


@fault.command("clear")
@click.argument("target", required=False)
@_lab_command
def fault_clear(lab_dir: Path | None, target: str | None) -> None:
    """Undo every fault, or those on TARGET (osd.1, host2, cluster, pool:NAME)."""
    from cephbench import lab as labapi
    from cephbench.lab import faults

    cleared = faults.clear(lab_dir or labapi.default_dir(), target)
    if not cleared:
        console.print("No fault to clear.")
    for f in cleared:
        console.print(f"cleared: {f.describe()}")
