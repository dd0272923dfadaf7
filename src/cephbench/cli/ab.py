"""``cephbench ab SUITE --b CHANGE``: an interleaved A/B experiment of a configuration change
that cephbench applies and reverts, with a verdict per workload."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from cephbench.analysis.equivalence import SAME_WITHIN
from cephbench.cli.common import (
    console,
    console_err,
    db_option,
    format_option,
    one_ceph_connection,
    print_json,
)
from cephbench.cli.run_options import RUNTIME
from cephbench.errors import UsageError
from cephbench.tuning.rounds import DEFAULT_MAX_ROUNDS, DEFAULT_MAX_TIME, DEFAULT_TARGET_CI

if TYPE_CHECKING:
    from cephbench.store import Store


@click.command()
@click.argument("suite")
@click.option(
    "--b",
    "b_specs",
    multiple=True,
    required=True,
    metavar="CHANGE|FILE.yaml",
    help="A change for side B (repeatable): 'ceph config set WHO KEY VALUE', "
    "'ceph config rm WHO KEY', 'ceph osd pool set POOL KEY VALUE', 'sysctl KEY=VALUE', "
    "'conf-set KEY=VALUE' (lab), or a YAML file of them.",
)
@click.option(
    "--a",
    "a_specs",
    multiple=True,
    metavar="CHANGE|FILE.yaml",
    help="Changes for side A (default: the configuration as found).",
)
@click.option("--a-label", default="A", show_default=True, help="Side A's run label.")
@click.option("--b-label", default="B", show_default=True, help="Side B's run label.")
@click.option(
    "--rounds",
    type=int,
    help="A fixed number of rounds in all (even, >= 4); default: blocks until --target-ci.",
)
@click.option(
    "--target-ci",
    metavar="PCT",
    help="Run blocks until every workload's IOPS CI is within ±PCT, the smallest change the "
    f"experiment can then detect (default {DEFAULT_TARGET_CI:g}% unless --rounds).",
)
@click.option(
    "--max-rounds",
    type=int,
    default=DEFAULT_MAX_ROUNDS,
    show_default=True,
    help="Unless --rounds: stop after this many rounds.",
)
@click.option(
    "--max-time",
    metavar="DURATION",
    help=f"Unless --rounds: no new block after this (default {DEFAULT_MAX_TIME / 60:g}m).",
)
@click.option(
    "--same-within",
    metavar="PCT",
    default=f"{SAME_WITHIN:g}%",
    show_default=True,
    help="The verdict is 'same' when the whole 95 % CI of the difference is within ±PCT, "
    "significant or not; not significant and wider: 'inconclusive'.",
)
@click.option(
    "--hosts",
    "hosts_spec",
    metavar="SPEC",
    help="Make the sysctl changes on these hosts over ssh (lab | ceph | FILE | h1,h2,...); "
    "default: this machine.",
)
@click.option("--target", help="Where each round runs (default: a fresh RBD image in the lab).")
@click.option(*RUNTIME[0], **RUNTIME[1])
@click.option("--size", help="Each workload's size (e.g. 256m).")
@format_option("table", "md", "json")
@db_option
@one_ceph_connection
def ab(
    suite: str,
    b_specs: tuple[str, ...],
    a_specs: tuple[str, ...],
    a_label: str,
    b_label: str,
    rounds: int | None,
    target_ci: str | None,
    max_rounds: int,
    max_time: str | None,
    same_within: str,
    hosts_spec: str | None,
    target: str | None,
    runtime: str | None,
    size: str | None,
    fmt: str,
    store: Store,
) -> None:
    """Interleaved A/B of a configuration change cephbench applies and reverts, with verdicts.

    Rounds run A B B A A B ..., each a full run of SUITE stored under its side's label; every
    setting is recorded before it changes and restored (and verified) at the end, also after
    Ctrl-C; `cephbench cleanup` reverts a killed experiment.

    By default blocks run until every workload's IOPS CI is within ±5 % (or 40 rounds, or
    30 minutes); each verdict is better, worse, same (the CI within --same-within) or
    inconclusive, with the smallest change the experiment could detect.

    \b
    Examples:
      cephbench ab quick --b "ceph config set client rbd_cache false"
      cephbench ab standard --b "ceph config set osd osd_op_num_shards 8" --b-label shards8 \\
          --target-ci 3% --max-time 1h
      cephbench ab quick --a ab/a.yaml --b ab/b.yaml --rounds 8
    """
    from cephbench.cli.live import RichProgress, print_note
    from cephbench.execution.runner import run_request
    from cephbench.planning.request import RunRequest
    from cephbench.system.units import parse_seconds
    from cephbench.tools.plan import Overrides
    from cephbench.tuning.changes import make_side
    from cephbench.tuning.experiment import AbPlan, run_ab
    from cephbench.tuning.report import tables, to_json
    from cephbench.tuning.rounds import check_rounds
    from cephbench.tuning.settings import kind

    if target_ci is not None and rounds is not None:
        raise UsageError("give --rounds or --target-ci, not both")
    if rounds is not None and max_time is not None:
        raise UsageError(
            "--max-time bounds the rounds run until --target-ci; --rounds fixes them",
            hint="e.g. --target-ci 3% --max-time 30m",
        )
    pct = None
    if rounds is not None:
        rounds = check_rounds(rounds)
    else:
        pct = _percent("--target-ci", target_ci) if target_ci else DEFAULT_TARGET_CI
        check_rounds(max_rounds)
    band = _percent("--same-within", same_within)
    if a_label == b_label:
        raise UsageError(f"both sides are labelled {a_label}", hint="give --a-label or --b-label")
    side_a, side_b = make_side(a_label, a_specs), make_side(b_label, b_specs)
    request = RunRequest(
        suite=suite, target=target, overrides=Overrides(runtime=runtime, size=size)
    )
    plan = AbPlan(
        suite,
        side_a,
        side_b,
        request,
        rounds=rounds,
        target_ci=pct,
        max_rounds=max_rounds,
        max_time=None if rounds else parse_seconds(max_time) if max_time else DEFAULT_MAX_TIME,
        same_within=band,
    )
    if hosts_spec is not None and not any(
        kind(c.kind).on_hosts for side in (side_a, side_b) for c in side.changes
    ):
        raise UsageError("--hosts is for sysctl changes, and no side makes one")
    request.resolve(note=print_note)  # an unrunnable suite or target fails before any change
    conn, lab_dir = _connection(plan)
    inventory = None
    if hosts_spec is not None:
        from cephbench.hosts.load import load_inventory

        inventory = load_inventory(hosts_spec, conn)

    def run_round(store: Store, req: RunRequest) -> int:
        outcome = run_request(store, req, progress=RichProgress, note=print_note)
        if outcome.failed_workloads:
            console_err.print(
                f"[yellow]note:[/] run {outcome.run_id}: {outcome.failed_workloads} "
                "workload(s) failed; their blocks are left out"
            )
        return outcome.run_id

    def note(text: str) -> None:
        console_err.print(text, markup=False)

    if plan.target_ci is not None:
        note(
            f"Rounds: blocks until every workload's IOPS CI is within ±{plan.target_ci:g} % "
            f"(the smallest change it can then detect), at most {plan.max_rounds} rounds or "
            f"{max_time or f'{DEFAULT_MAX_TIME / 60:g}m'}; --rounds N runs a fixed number"
        )
    exp_id = run_ab(store, plan, run_round, conn, lab_dir, note, inventory)
    doc = to_json(store, exp_id)
    console_err.print(
        f"Stored as A/B experiment {exp_id}; its report: "
        f"cephbench report --experiment {exp_id} -o ab.html",
        markup=False,
    )
    if fmt == "json":
        print_json(doc)
        return
    from cephbench.tables.table import to_markdown, to_rich

    found, lines = tables(doc)
    for table in found:
        if fmt == "md":
            click.echo(to_markdown(table))
        else:
            console.print(to_rich(table, console.width))
    for line in lines:
        click.echo(line)


def _percent(option: str, text: str) -> float:
    try:
        pct = float(text.strip().removesuffix("%"))
    except ValueError:
        pct = -1.0
    if not 0 < pct <= 100:
        raise UsageError(f"{option} {text}: a percentage above 0, e.g. 3%")
    return pct


def _connection(plan):
    """The Ceph connection (the lab's when one runs) when any change or the target needs it."""
    from cephbench.lab.connect import resolve
    from cephbench.tuning.settings import kind

    on_cluster = any(kind(c.kind).on_cluster for side in (plan.a, plan.b) for c in side.changes)
    target = plan.request.target or "rbd:lab"
    if not on_cluster and not target.startswith(("rbd:", "rados:", "ceph:")):
        return None, None
    conn = resolve()
    return conn, conn.lab_dir
