"""``cephbench run SUITE|JOBFILE --target KIND:LOCATION``: run, store, show."""

from __future__ import annotations

import click
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from ..ceph.conn import DEFAULT_TIMEOUT, resolve
from ..ceph.health import DEFAULT_INTERVAL
from ..ceph.session import HealthOptions
from ..ceph.target import CephOptions, CephTarget
from ..errors import ExitStatus, UsageError
from ..lab import find_running
from ..plan import Overrides, ToolPlan, make_plan
from ..runner import RunOptions, execute
from ..store import Store
from ..targets import Target, TargetOptions, parse_target
from .common import console_err, db_option, format_option
from .show import emit_run


class RichProgress:
    """One bar for the whole run: current repeat and workload, elapsed, ETA. Silent off a TTY."""

    def __init__(self, repeats: int):
        self.repeats = repeats
        self.progress = Progress(
            TextColumn("{task.description}"), BarColumn(), TimeElapsedColumn(),
            TextColumn("ETA"), TimeRemainingColumn(), console=console_err, transient=True,
            disable=not console_err.is_terminal,
        )
        self.task = None

    def start(self, total_seconds: float | None) -> None:
        self.progress.start()
        self.task = self.progress.add_task("starting fio", total=total_seconds)

    def update(self, repeat: int, workload: str, elapsed: float) -> None:
        rep = f"repeat {repeat + 1}/{self.repeats} " if self.repeats > 1 else ""
        self.progress.update(self.task, description=f"{rep}{workload}", completed=elapsed)

    def stop(self) -> None:
        self.progress.stop()


def _default_target(plan) -> str:
    if isinstance(plan, ToolPlan):
        return plan.default_target
    if find_running() is None:
        raise UsageError("--target is required when no lab is running",
                         hint="e.g. --target file:/mnt/bench, or start a lab: cephbench lab up")
    return "rbd:lab"


@click.command()
@click.argument("suite")
@click.option("--target", "-t", "target_spec", metavar="KIND:LOCATION",
              help="Where the I/O goes: file:DIR_OR_NEW_FILE, device:/dev/X, rbd:POOL/IMAGE, rbd:lab "
                   "(a fresh pool and image in the lab; the default while a lab is running), "
                   "rados:POOL or rados:lab (the rados suite), ceph:cluster (the osd and network suites).")
@click.option("--label", "-l", help="A name for this run in tables and comparisons.")
@click.option("--repeat", "-r", type=click.IntRange(1, 1000), default=1, show_default=True,
              help="Run the whole suite N times; each repeat is stored separately.")
@click.option("--runtime", help="Seconds each workload runs (e.g. 30, 2m), replacing the suite's.")
@click.option("--size", help="Data size per workload (e.g. 4G), replacing the suite's.")
@click.option("--iodepth", type=click.IntRange(1, 65536), help="I/Os in flight per job, for every workload.")
@click.option("--numjobs", type=click.IntRange(1, 4096), help="Jobs per workload, for every workload.")
@click.option("--bs", help="Block size (e.g. 4k, 1M), for every workload.")
@click.option("--destroy-data", metavar="DEVICE",
              help="Allow writing to this device even though it holds data. Names the exact device.")
@click.option("--conf", "-c", metavar="PATH", help="ceph.conf of the cluster (default: the lab's, "
              "else /etc/ceph/ceph.conf).")
@click.option("--id", "--user", "-n", "client_id", metavar="NAME",
              help="cephx client name, e.g. bench or client.bench (default: admin).")
@click.option("--keyring", "-k", metavar="PATH", help="Keyring of that client.")
@click.option("--cluster", metavar="NAME", help="Cluster name (reads /etc/ceph/NAME.conf).")
@click.option("--connect-timeout", type=click.FloatRange(1, 3600), default=DEFAULT_TIMEOUT,
              show_default=True, help="Seconds to reach the cluster before giving up.")
@click.option("--pool-size", type=click.IntRange(1, 10),
              help="Replicas of a pool cephbench creates (default: 3, fewer with fewer OSDs).")
@click.option("--pg-num", type=click.IntRange(1, 65536), default=32, show_default=True,
              help="PGs of a pool cephbench creates.")
@click.option("--no-prefill", is_flag=True,
              help="Do not write a new RBD image once before read workloads.")
@click.option("--allow-unhealthy", is_flag=True,
              help="Run even on a cluster in HEALTH_ERR or with PGs not active+clean.")
@click.option("--quiesce", is_flag=True,
              help="Set noscrub and nodeep-scrub for the run (always unset afterwards).")
@click.option("--health-interval", type=click.FloatRange(0.5, 600), default=DEFAULT_INTERVAL,
              show_default=True, help="Seconds between `ceph status` samples during the run.")
@click.option("--drop-caches", is_flag=True,
              help="Drop the page cache (sync; 3 > /proc/sys/vm/drop_caches) before each workload.")
@click.option("--concurrent-ios", type=click.IntRange(1, 4096),
              help="rados bench -t: operations in flight (default 16).")
@click.option("--object-size", help="rados bench -b: object size (default 4M); --bs says the same.")
@click.option("--run-name", help="rados bench --run-name: the name of its benchmark objects.")
@format_option("table", "md", "json")
@db_option
def run(suite: str, target_spec: str | None, label: str | None, repeat: int, runtime: str | None,
        size: str | None, iodepth: int | None, numjobs: int | None, bs: str | None,
        destroy_data: str | None, conf: str | None, client_id: str | None, keyring: str | None,
        cluster: str | None, connect_timeout: float, pool_size: int | None, pg_num: int,
        no_prefill: bool, allow_unhealthy: bool, quiesce: bool, health_interval: float,
        drop_caches: bool, concurrent_ios: int | None, object_size: str | None, run_name: str | None,
        fmt: str, store: Store) -> None:
    """Run SUITE (a built-in name, a suite .yaml, or a fio job file) and store the results.

    \b
    Examples:
      cephbench run standard --target file:/mnt/bench --label "attempt 1"
      cephbench run ./my-jobs.fio --target file:/tmp/x
      cephbench run sync --target device:/dev/sdb --destroy-data /dev/sdb
      cephbench lab up && cephbench run quick        # on a fresh RBD image in the lab
      cephbench run standard --target rbd:rbd/bench-img --size 10G --conf /etc/ceph/ceph.conf --id bench
      cephbench run rados --target rados:bench-pool   # rados bench write, seq, rand
      cephbench run osd                               # ceph tell osd.N bench, every up OSD
      cephbench run network                           # iperf3 between the lab's hosts
    """
    tool_options = {"concurrent": concurrent_ios, "run_name": run_name}
    if object_size:
        bs = bs or object_size
    plan = make_plan(suite, Overrides(runtime=runtime, size=size, iodepth=iodepth, numjobs=numjobs, bs=bs),
                     {k: v for k, v in tool_options.items() if v is not None})
    target = _target(target_spec or _default_target(plan), destroy_data)
    if isinstance(target, CephTarget):
        conn = resolve(conf, client_id, keyring, cluster, connect_timeout)
        target.configure(CephOptions(conn, pool_size, pg_num, prefill=not no_prefill and plan.reads))
    elif any((conf, client_id, keyring, cluster)):
        raise UsageError(f"--conf, --id, --keyring and --cluster are for Ceph targets, not {target.kind}:")
    health = HealthOptions(allow_unhealthy=allow_unhealthy, quiesce=quiesce, interval=health_interval)
    outcome = execute(store, plan, target, label=label, repeats=repeat, progress=RichProgress(repeat),
                      options=RunOptions(health, drop_caches))
    emit_run(store.get_run(outcome.run_id), fmt, store)
    if outcome.failed_workloads:
        console_err.print(f"[red]{outcome.failed_workloads} workload(s) failed[/]; see the notes above.")
        raise click.exceptions.Exit(int(ExitStatus.ERROR))
    console_err.print(f"Stored as run {outcome.run_id} in {store.path}")




def _target(spec: str, destroy_data: str | None) -> Target:
    return parse_target(spec, TargetOptions(destroy_data=destroy_data))
