"""``cephbench capacity``: the highest offered load a target takes with a latency percentile
under a target, with its CI over repeats, every step, and the knee."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import click

from cephbench.cli.common import (
    console,
    console_err,
    db_option,
    format_option,
    one_ceph_connection,
    print_json,
)
from cephbench.cli.run_options import ceph_connection
from cephbench.errors import CephbenchError, UsageError

if TYPE_CHECKING:
    from cephbench.planning.request import CephConnectionOptions
    from cephbench.store import Store

MIN_STEP_TIME = 2.0


@click.command()
@click.option("--target", help="Where the steps run (KIND:LOCATION, as for `run`).")
@click.option("--p99", "p99", metavar="LATENCY", help="The p99 target, e.g. 5ms.")
@click.option(
    "--percentile",
    type=float,
    help="Another percentile than 99 (e.g. 99.9), with --target-ms.",
)
@click.option("--target-ms", type=float, help="The --percentile's target, milliseconds.")
@click.option(
    "--workload",
    type=click.Choice(["randwrite", "randread"]),
    default="randwrite",
    show_default=True,
    help="fio's rw of every step.",
)
@click.option("--bs", default="4k", show_default=True, help="Block size of every step.")
@click.option(
    "--iodepth",
    type=int,
    default=128,
    show_default=True,
    help="Queue depth of every step: deep enough not to cap the offered rate.",
)
@click.option(
    "--step-time",
    default="10s",
    show_default=True,
    metavar="DURATION",
    help="Each step's measured window.",
)
@click.option(
    "--ramp",
    default="3s",
    show_default=True,
    metavar="DURATION",
    help="Each step's ramp before the window (not measured).",
)
@click.option("--size", help="The file or image size of each step (e.g. 1G).")
@click.option(
    "--start",
    type=float,
    default=1000,
    show_default=True,
    metavar="IOPS",
    help="The first step's offered rate.",
)
@click.option(
    "--tolerance",
    default="5%",
    show_default=True,
    metavar="PCT",
    help="A step keeps up when its achieved IOPS are within PCT of the offered rate.",
)
@click.option(
    "--ci",
    default="10%",
    show_default=True,
    metavar="PCT",
    help="Repeat until the capacity's 95 % CI is within ±PCT (at least 3 repeats).",
)
@click.option(
    "--max-repeats",
    type=int,
    default=6,
    show_default=True,
    help="Stop after this many repeats: 'inconclusive' if the CI is still wider.",
)
@click.option(
    "--while",
    "during",
    type=click.Choice(["recovery", "backfill", "scrub"]),
    help="Measure while the cluster recovers from one OSD failed (marked down and out), "
    "backfills from one OSD drained (marked out), or while its OSDs deep-scrub (the lab; "
    "elsewhere with --allow degrade).",
)
@click.option(
    "--allow",
    "allow",
    type=click.Choice(["degrade"]),
    help="'degrade': let --while mark an OSD down or out on a cluster that is not the lab.",
)
@click.option(
    "--clients",
    "clients_spec",
    metavar="SPEC",
    help="Offer each step's rate from these hosts at once (fio's client/server mode over "
    "ssh, as `run --clients`), split evenly between them.",
)
@click.option(
    "--pods",
    type=click.IntRange(min=1),
    help="Offer each step's rate from N pods at once (a pvc: target, as `run --pods`), split "
    "evenly between them.",
)
@click.option("--image", help="With --pods: the pods' image (as `run --image`).")
@click.option(
    "--cross-check",
    is_flag=True,
    help="After the search, run fio's own latency_target mode once (the deepest queue whose "
    "percentile stays under the target: a closed loop) and show its depth and IOPS beside.",
)
@click.option(
    "--show",
    "show_ref",
    metavar="ID|last",
    help="Print a stored capacity search instead of running one.",
)
@click.option(
    "--compare",
    "compare_refs",
    nargs=2,
    metavar="A B",
    help="Compare two stored capacity searches (B against A) instead of running one.",
)
@ceph_connection
@format_option("table", "md", "json")
@db_option
@one_ceph_connection
def capacity(
    target: str | None,
    p99: str | None,
    percentile: float | None,
    target_ms: float | None,
    workload: str,
    bs: str,
    iodepth: int,
    step_time: str,
    ramp: str,
    size: str | None,
    start: float,
    tolerance: str,
    ci: str,
    max_repeats: int,
    during: str | None,
    allow: str | None,
    clients_spec: str | None,
    pods: int | None,
    image: str | None,
    cross_check: bool,
    show_ref: str | None,
    compare_refs: tuple[str, str] | None,
    ceph: CephConnectionOptions,
    fmt: str,
    store: Store,
) -> None:
    """The load a target takes with its tail latency under a target, with a CI.

    Fixed-rate steps (fio's rate_iops, Poisson arrivals, a deep queue) bracket then bisect
    the highest offered rate whose achieved IOPS keep up and whose p99 (or --percentile)
    stays under the target; repeats run until the capacity's 95 % CI is within ±10 % (--ci),
    or say 'inconclusive'. Every step is a stored run; the search is stored too.

    \b
    Examples:
      cephbench capacity --target rbd:bench/img --p99 5ms
      cephbench capacity --target file:/mnt/x --workload randread --percentile 99.9 --target-ms 2
      cephbench capacity --target rbd:bench/img --p99 10ms --while recovery
      cephbench capacity --target rbd:bench/img --p99 10ms --while scrub
      cephbench capacity --target rbd:bench --p99 5ms --clients lab
      cephbench capacity --target pvc:cephbench-lab --p99 10ms --pods 3
      cephbench capacity --show last --format json
    """
    from cephbench.capacity import driver
    from cephbench.capacity.model import Spec
    from cephbench.capacity.search import Rule, SearchPlan
    from cephbench.capacity.steps import Load, StepSpec
    from cephbench.system.units import parse_seconds, parse_size

    if show_ref is not None:
        _print(driver.load(store, _ref(store, show_ref, "--show")).to_json(), fmt)
        return
    if compare_refs:
        _compare(store, *compare_refs, fmt=fmt)
        return
    rule_percentile, target_us = _rule(p99, percentile, target_ms)
    if allow is not None and during is None:
        raise UsageError("--allow degrade goes with --while", hint="e.g. --while recovery")
    if cross_check and during is not None:
        raise UsageError(
            "--cross-check runs on a healthy cluster, not --while it recovers",
            hint="run the search with --cross-check, and the one --while without",
        )
    if clients_spec is not None and pods is not None:
        raise UsageError("give --clients or --pods, not both")
    if image is not None and pods is None:
        raise UsageError("--image is the pods' image: it goes with --pods")
    if cross_check and (clients_spec is not None or pods is not None):
        raise UsageError(
            "--cross-check runs fio's latency_target mode from this machine alone",
            hint="run the search with --clients or --pods, and the cross-check without",
        )
    try:
        seconds, ramp_s = parse_seconds(step_time), parse_seconds(ramp)
    except (ValueError, UsageError) as e:
        raise UsageError(f"--step-time/--ramp: {e}", hint="e.g. --step-time 10s") from e
    if seconds < MIN_STEP_TIME:
        raise UsageError(
            f"--step-time {step_time}: at least {MIN_STEP_TIME:g} s (fio records no latency "
            "in a 1 s window after a ramp)",
            hint="e.g. --step-time 10s",
        )
    if size is not None:
        parse_size(size)
    if iodepth < 1:
        raise UsageError(f"--iodepth {iodepth}: at least 1")
    if max_repeats < 3:
        raise UsageError(f"--max-repeats {max_repeats}: at least 3 (a CI needs repeats)")
    try:
        rule = Rule(
            target_us, rule_percentile, _percent("--tolerance", tolerance, allow_zero=True) / 100
        )
        SearchPlan(start=start)
    except ValueError as e:
        raise UsageError(str(e)) from e
    ci_fraction = _percent("--ci", ci) / 100
    if target is None:
        raise UsageError(
            "--target is required", hint="e.g. --target rbd:POOL/IMAGE or --target file:DIR"
        )
    load = Load(clients_spec, pods, image, ceph if ceph.given else None)
    load.check(target)
    generators = load.generators(target)
    step = StepSpec(workload, bs, iodepth, seconds, ramp_s, size, rule_percentile)
    if generators > 1:
        step = replace(step, generators=generators, spread=load.spread)
    spec = Spec(
        rule,
        step,
        start,
        ci=ci_fraction,
        max_repeats=max_repeats,
        during=during,
    )
    cap_id = _search(store, spec, target, during, allow, cross_check, load)
    console_err.print(
        f"Stored as capacity search {cap_id}: cephbench capacity --show {cap_id}", markup=False
    )
    _print(driver.load(store, cap_id).to_json(), fmt)


def _search(
    store: Store,
    spec,
    target: str,
    during: str | None,
    allow: str | None,
    cross_check: bool,
    load,
) -> int:
    from cephbench.capacity import driver
    from cephbench.capacity.osd_counters import measured, on_ceph
    from cephbench.capacity.steps import run_cross_check, run_step

    def note(text: str) -> None:
        console_err.print(text, markup=False)

    def run_one(rate: float, repeat: int):
        return run_step(
            store,
            spec.step,
            rate,
            repeat,
            target=target,
            label="capacity",
            degraded=during is not None,
            load=load,
        )

    measure: driver.Measure = run_one
    if on_ceph(target):  # each step's OSD latencies: which part grows first at the knee
        try:
            conn = load.connection
        except CephbenchError as e:
            note(f"the OSDs' latencies are not recorded with the steps: {e.message}")
        else:
            measure = measured(run_one, conn)

    def fio_latency_target() -> dict:
        return run_cross_check(
            store,
            spec.step,
            spec.rule.target_us,
            target=target,
            label="capacity",
            note=note,
            load=load,
        )

    if during is None:
        check = fio_latency_target if cross_check else None
        return driver.run_capacity(store, spec, target, measure, note, cross_check=check)
    from cephbench.capacity.degrade import while_recovery, while_scrub

    allowed, conn = allow == "degrade", load.connection
    if during == "scrub":
        return while_scrub(store, spec, target, measure, note, allow_degrade=allowed, conn=conn)
    down = during == "recovery"  # a failed OSD; backfill: a drained one
    return while_recovery(
        store, spec, target, measure, note, allow_degrade=allowed, conn=conn, down=down
    )


def _print(doc: dict, fmt: str) -> None:
    if fmt == "json":
        print_json(doc)
        return
    from cephbench.capacity.output import headline, steps_table

    _table(steps_table(doc), fmt)
    for line in headline(doc):
        click.echo(line)


def _table(table, fmt: str) -> None:
    from cephbench.tables.table import to_markdown, to_rich

    if fmt == "md":
        click.echo(to_markdown(table))
    else:
        console.print(to_rich(table, console.width))


def _compare(store: Store, ref_a: str, ref_b: str, fmt: str) -> None:
    from cephbench.capacity import driver
    from cephbench.capacity.compare import comparable, compare
    from cephbench.capacity.output import comparison_line, comparison_table

    a = driver.load(store, _ref(store, ref_a, "--compare"))
    b = driver.load(store, _ref(store, ref_b, "--compare"))
    why = comparable(a, b)
    if why:
        raise UsageError(f"--compare: {why}", hint="compare searches of one rule and workload")
    doc = compare(a, b)
    if fmt == "json":
        print_json(doc)
        return
    _table(comparison_table(doc), fmt)
    click.echo(comparison_line(doc))


def _ref(store: Store, ref: str, option: str = "--show") -> int:
    from cephbench.store import capacities

    if ref == "last":
        last = capacities.last_id(store)
        if last is None:
            raise UsageError("no capacity search stored yet", hint="run cephbench capacity")
        return last
    try:
        return int(ref)
    except ValueError:
        raise UsageError(f"{option} {ref}: a capacity search's number, or 'last'") from None


def _rule(p99: str | None, percentile: float | None, target_ms: float | None):
    """(percentile, target µs) from --p99 or --percentile with --target-ms."""
    from cephbench.system.units import parse_seconds

    if p99 is not None:
        if percentile is not None or target_ms is not None:
            raise UsageError("give --p99 or --percentile with --target-ms, not both")
        try:
            seconds = parse_seconds(p99)
        except (ValueError, UsageError):
            seconds = -1.0
        if not seconds > 0:
            raise UsageError(f"--p99 {p99}: a latency above 0, e.g. 5ms")
        return 99.0, seconds * 1e6
    if percentile is None or target_ms is None:
        raise UsageError(
            "a latency target is required",
            hint="e.g. --p99 5ms, or --percentile 99.9 --target-ms 10",
        )
    if not 0 < percentile < 100:
        raise UsageError(f"--percentile {percentile:g}: above 0 and below 100, e.g. 99.9")
    if not target_ms > 0:
        raise UsageError(f"--target-ms {target_ms:g}: above 0")
    return percentile, target_ms * 1000


def _percent(option: str, text: str, allow_zero: bool = False) -> float:
    try:
        pct = float(text.strip().removesuffix("%"))
    except ValueError:
        pct = -1.0
    if not (0 < pct < 100 or (allow_zero and pct == 0)):
        raise UsageError(f"{option} {text}: a percentage above 0 and below 100, e.g. 10%")
    return pct
