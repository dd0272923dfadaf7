"""``cephbench run SUITE|JOBFILE --target KIND:LOCATION``: run, store, show."""

from __future__ import annotations

import click
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from ..errors import ExitStatus, UsageError
from ..lab import find_running
from ..plan import Overrides, make_plan
from ..runner import execute
from ..store import Store
from ..targets import TargetOptions, parse_target
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


def _default_target() -> str:
    if find_running() is None:
        raise UsageError("--target is required when no lab is running",
                         hint="e.g. --target file:/mnt/bench, or start a lab: cephbench lab up")
    return "rbd:lab"


@click.command()
@click.argument("suite")
@click.option("--target", "-t", "target_spec", metavar="KIND:LOCATION",
              help="Where the I/O goes: file:DIR_OR_NEW_FILE, device:/dev/X, rbd:POOL/IMAGE, or "
                   "rbd:lab (a fresh pool and image in the lab; the default while a lab is running).")
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
@format_option("table", "md", "json")
@db_option
def run(suite: str, target_spec: str | None, label: str | None, repeat: int, runtime: str | None,
        size: str | None, iodepth: int | None, numjobs: int | None, bs: str | None,
        destroy_data: str | None, fmt: str, store: Store) -> None:
    """Run SUITE (a built-in name, a suite .yaml, or a fio job file) and store the results.

    \b
    Examples:
      cephbench run standard --target file:/mnt/bench --label "attempt 1"
      cephbench run ./my-jobs.fio --target file:/tmp/x
      cephbench run sync --target device:/dev/sdb --destroy-data /dev/sdb
      cephbench lab up && cephbench run quick        # on a fresh RBD image in the lab
    """
    plan = make_plan(suite, Overrides(runtime=runtime, size=size, iodepth=iodepth, numjobs=numjobs, bs=bs))
    target = parse_target(target_spec or _default_target(), TargetOptions(destroy_data=destroy_data))
    outcome = execute(store, plan, target, label=label, repeats=repeat, progress=RichProgress(repeat))
    emit_run(store.get_run(outcome.run_id), fmt)
    if outcome.failed_workloads:
        console_err.print(f"[red]{outcome.failed_workloads} workload(s) failed[/]; see the notes above.")
        raise click.exceptions.Exit(int(ExitStatus.ERROR))
    console_err.print(f"Stored as run {outcome.run_id} in {store.path}")


