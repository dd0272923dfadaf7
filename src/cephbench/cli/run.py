"""``cephbench run SUITE|JOBFILE --target KIND:LOCATION``: run, store, show."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from cephbench.ceph.connection import DEFAULT_TIMEOUT
from cephbench.ceph.health import DEFAULT_INTERVAL
from cephbench.cli.common import console_err, db_option, format_option
from cephbench.cli.show import emit_run
from cephbench.errors import ExitStatus, UsageError

if TYPE_CHECKING:
    from cephbench.execution.runner import RunOutcome
    from cephbench.store import Store
    from cephbench.targets import Target


class RichProgress:
    """One bar for the whole run: current repeat and workload, elapsed, ETA. Silent off a TTY."""

    def __init__(self, repeats: int):
        from rich.progress import (
            BarColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

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
    from cephbench.lab import find_running

    if plan.default_target is not None:
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
@click.option("--iodepth", metavar="N[,N...]", help="I/Os in flight per job; a list sweeps them.")
@click.option("--numjobs", metavar="N[,N...]", help="Jobs per workload; a list sweeps them.")
@click.option("--bs", metavar="SIZE[,SIZE...]", help="Block size (e.g. 4k, 1M); a list sweeps them.")
@click.option("--rw", metavar="RW[,RW...]", help="fio's rw (randread, randwrite, randrw, ...); a list sweeps them.")
@click.option("--rwmixread", metavar="PCT[,PCT...]", help="Read share of mixed workloads, %; a list sweeps them.")
@click.option("--ramp-time", help="Run each workload this long before measuring (fio's ramp_time; "
              "excluded from every figure).")
@click.option("--steady-state", metavar="METRIC:LIMIT",
              help="End each workload once fio judges it steady, e.g. iops:0.3% or bw_slope:0.1% "
                   "(fio's steadystate); workloads that never get there are flagged.")
@click.option("--steady-window", metavar="SECONDS",
              help="Seconds of data the steady-state criterion is judged over (default: a quarter "
                   "of the runtime, 2 to 60 s).")
@click.option("--steady-ramp", metavar="SECONDS", help="Seconds before steady-state judging starts.")
@click.option("--max-runtime", help="With --steady-state: the most each workload runs (default: its runtime).")
@click.option("--target-ci", metavar="PCT%",
              help="Repeat each workload until the 95 % confidence interval of its IOPS is within "
                   "PCT % of the mean (3 repeats at least); workloads that stop short are flagged.")
@click.option("--max-repeats", type=click.IntRange(3, 1000), default=10, show_default=True,
              help="With --target-ci: the most repeats of a workload.")
@click.option("--max-time", help="With --target-ci: start no new repeat after this long (e.g. 30m).")
@click.option("--resume", "resume_ref", metavar="RUN",
              help="Continue a stored run that was interrupted: run only its workloads without "
                   "figures, with the options it was started with.")
@click.option("--no-logs", is_flag=True, help="Do not capture fio's per-interval logs as time series.")
@click.option("--per-io-log", is_flag=True,
              help="Log every I/O's latency (exact p99 and max per second; ~21 bytes of temporary "
                   "disk an I/O) instead of fio's interval averages.")
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
def run(suite: str, fmt: str, store: Store, resume_ref: str | None, **request) -> None:
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
    resume = None
    if resume_ref is not None:
        resume, request = _resumable(store, resume_ref, suite)
    outcome = start(store, suite, request, resume)
    emit_run(store.get_run(outcome.run_id), fmt, store)
    if outcome.failed_workloads:
        console_err.print(f"[red]{outcome.failed_workloads} workload(s) failed[/]; see the notes above.")
        raise click.exceptions.Exit(int(ExitStatus.ERROR))
    console_err.print(f"Stored as run {outcome.run_id} in {store.path}")


def start(store: Store, suite: str, o: dict, resume: int | None = None) -> RunOutcome:
    """Plan, target and options from the command line's values (``o``), then run."""
    # The planner, runner, targets and Ceph session (numpy, pydantic, YAML...): not for --help
    from cephbench.ceph.connection import resolve
    from cephbench.ceph.session import HealthOptions
    from cephbench.execution.options import RunOptions
    from cephbench.execution.runner import execute
    from cephbench.planning.plan import Overrides, SteadyState, make_plan
    from cephbench.planning.sweep import Axes
    from cephbench.system.units import parse_seconds
    from cephbench.targets.cluster import CephOptions, CephTarget

    bs = o["bs"] or o["object_size"]
    axes = Axes.parse(rw=o["rw"], rwmixread=o["rwmixread"], bs=bs, iodepth=o["iodepth"], numjobs=o["numjobs"])
    one = axes.single
    overrides = Overrides(runtime=o["runtime"], size=o["size"], iodepth=one.get("iodepth"),
                          numjobs=one.get("numjobs"), bs=one.get("bs"), rw=one.get("rw"),
                          rwmixread=one.get("rwmixread"), ramp_time=o["ramp_time"])
    steady = None
    if o["steady_state"]:
        steady = SteadyState.parse(o["steady_state"], o["steady_window"], o["steady_ramp"], o["max_runtime"])
    elif o["max_runtime"] or o["steady_window"] or o["steady_ramp"]:
        raise UsageError("--max-runtime, --steady-window and --steady-ramp go with --steady-state",
                         hint="for a fixed duration use --runtime")
    target_ci, repeats = _adaptive(o)
    tool_options = {"concurrent": o["concurrent_ios"], "run_name": o["run_name"]}
    plan = make_plan(suite, overrides, {k: v for k, v in tool_options.items() if v is not None},
                     axes=axes, steady=steady)
    if resume is not None and plan.tool != "fio":
        raise UsageError("--resume is for fio suites and job files", hint="run the tool suite again")
    target = _target(o["target_spec"] or _default_target(plan), o["destroy_data"])
    if isinstance(target, CephTarget):
        conn = resolve(o["conf"], o["client_id"], o["keyring"], o["cluster"], o["connect_timeout"])
        target.configure(CephOptions(conn, o["pool_size"], o["pg_num"], prefill=not o["no_prefill"] and plan.reads))
    elif any(o[k] for k in ("conf", "client_id", "keyring", "cluster")):
        raise UsageError(f"--conf, --id, --keyring and --cluster are for Ceph targets, not {target.kind}:")
    health = HealthOptions(allow_unhealthy=o["allow_unhealthy"], quiesce=o["quiesce"], interval=o["health_interval"])
    max_time = parse_seconds(o["max_time"]) if o["max_time"] else None
    options = RunOptions(health, o["drop_caches"], target_ci=target_ci, max_time=max_time,
                         logs=not o["no_logs"], per_io_logs=o.get("per_io_log", False), request=o)
    return execute(store, plan, target, label=o["label"], repeats=repeats, progress=RichProgress(repeats),
                   options=options, resume=resume)


def _adaptive(o: dict) -> tuple[float | None, int]:
    """(target CI half-width as a fraction, repeats): --target-ci makes --max-repeats the cap."""
    if o["target_ci"] is None:
        if o["max_time"]:
            raise UsageError("--max-time goes with --target-ci", hint="e.g. --target-ci 2% --max-time 30m")
        return None, o["repeat"]
    text = o["target_ci"].strip().removesuffix("%")
    try:
        pct = float(text)
    except ValueError:
        pct = -1.0
    if not 0 < pct <= 1000:
        raise UsageError(f"--target-ci {o['target_ci']}: a percentage above 0, e.g. 2%")
    return pct / 100, o["max_repeats"]


def _resumable(store: Store, ref: str, suite: str) -> tuple[int, dict]:
    """The run to resume and the options it was started with."""
    run = store.get_run(ref)
    request = run.params.get("request")
    if request is None:
        raise UsageError(f"run {run.id} cannot be resumed: it was not started by `cephbench run` "
                         "of this version")
    if run.status == "running":
        raise UsageError(f"run {run.id} is still running", hint="wait for it, or stop it first")
    if suite != run.suite:
        raise UsageError(f"run {run.id} ran {run.suite}, not {suite}",
                         hint=f"cephbench run {run.suite} --resume {run.id}")
    return run.id, request


def _target(spec: str, destroy_data: str | None) -> Target:
    from cephbench.targets import TargetOptions, parse_target

    return parse_target(spec, TargetOptions(destroy_data=destroy_data))
