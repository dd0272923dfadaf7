"""``cephbench report RUN... -o FILE``: an HTML (self-contained) or Markdown report."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import click

from cephbench.cli.common import db_option
from cephbench.cli.compare import load_clusters, pick_runs
from cephbench.cli.complete import complete_run_ref
from cephbench.cli.options import SectionedCommand, picking_filter
from cephbench.errors import UsageError

if TYPE_CHECKING:
    from cephbench.store import Store
    from cephbench.store.query import RunFilter


@click.command(cls=SectionedCommand)
@click.argument("run_refs", metavar="[RUN]...", nargs=-1, shell_complete=complete_run_ref)
@click.option(
    "--output",
    "-o",
    "output",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="report.html (one self-contained file) or report.md (PNG charts in report_files/).",
)
@click.option(
    "--experiment",
    type=int,
    metavar="N",
    help="The rounds of A/B experiment N (`cephbench ab` prints its number), with its verdict "
    "and every round's figures first.",
)
@click.option(
    "--tune",
    "tune_id",
    type=int,
    metavar="N",
    help="Tune N (`cephbench tune` prints its number): its attempts table and each workload's "
    "IOPS across the attempts first, then the final configuration against the first.",
)
@click.option(
    "--capacity",
    "capacity_ids",
    type=int,
    multiple=True,
    metavar="N",
    help="Capacity search N (`cephbench capacity` prints its number): its curve, steps and "
    "knee, with the run at its capacity. Repeat it to show searches side by side (healthy "
    "beside degraded); two of one rule and workload are compared.",
)
@picking_filter
@db_option
def report(
    run_refs: tuple[str, ...],
    output: Path,
    experiment: int | None,
    tune_id: int | None,
    capacity_ids: tuple[int, ...],
    run_filter: RunFilter,
    store: Store,
) -> None:
    """Write a report of one or more runs; the first is the baseline.

    Runs are the RUNs given, then those the filters pick (oldest first). Where a
    configuration (a label) has three runs or more, the report charts each workload's figures
    over time, one point per run, with the change points found marked.

    \b
    Examples:
      cephbench report 3 4 5 -o report.html
      cephbench report last -o report.md
      cephbench report --label nightly --since 30d -o nightly.html
      cephbench report --experiment 2 -o ab.html
      cephbench report --tune 1 -o tune.html
      cephbench report --capacity 4 --capacity 5 -o capacity.html
    """
    # scipy, matplotlib and jinja2 (~1 s) load when reporting, not for `report --help`
    from cephbench.analysis.compare import compare
    from cephbench.report.render import write_report

    if not output.parent.is_dir():
        raise UsageError(
            f"the directory {output.parent} does not exist", hint="create it, or write elsewhere"
        )
    ab = capacity = title = tune = None
    given = {
        "--experiment": experiment is not None,
        "--tune": tune_id is not None,
        "--capacity": bool(capacity_ids),
    }
    picked = [name for name, on in given.items() if on]
    if picked and (run_refs or run_filter.narrows or run_filter.last is not None or picked[1:]):
        what = picked[0]
        raise UsageError(
            f"{what} picks the runs itself (its {'steps' if what == '--capacity' else 'rounds'})",
            hint=f"give {what} alone, or runs without it",
        )
    if experiment is not None:
        ab, run_refs = _experiment(store, experiment)
    if tune_id is not None:
        tune, title, run_refs = _tune(store, tune_id)
    if capacity_ids:
        capacity, title, runs = _capacities(store, capacity_ids)
    else:
        runs = pick_runs(store, run_refs, run_filter)
    provenance = {run.id: store.outputs(run.id) for run in runs}
    _explain(store, runs, provenance)
    series = {run.id: [s for s in store.series(run.id) if s.workload] for run in runs}  # not health
    written = write_report(
        compare(runs, clusters=load_clusters(store, runs)),
        provenance,
        output,
        series,
        ab,
        fsids=_fsids(store, runs),
        capacity=capacity,
        title=title,
        tune=tune,
    )
    click.echo(str(written[0]))


def _fsids(store: Store, runs: list) -> dict[int, str]:
    """Run id -> the fsid of the cluster it ran on, for the runs whose fingerprint has one."""
    from cephbench.diagnose.explain import fsid_of

    return {run.id: fsid for run in runs if (fsid := fsid_of(store, run.id)[0]) is not None}


def _explain(store: Store, runs: list, provenance: dict[int, list[dict]]) -> None:
    """Each Ceph run's explanation (its ceilings), added to its outputs for the Explained
    section, when a diagnosis of its cluster is stored."""
    from cephbench.diagnose import explain
    from cephbench.diagnose.explained import explanation_output
    from cephbench.errors import CephbenchError

    for run in runs:
        if run.suite == "diagnose":
            continue
        fsid = explain.fsid_of(store, run.id)[0]
        if fsid is None:
            continue
        diag = explain.latest_diagnosis(store, fsid)
        if diag is None:
            continue
        try:
            doc = explain.document(store, run.id, diag)
        except CephbenchError:
            continue
        if doc["workloads"]:
            provenance[run.id] = [*provenance[run.id], explanation_output(doc)]


def _experiment(store: Store, exp_id: int) -> tuple[dict, tuple[str, ...]]:
    """Experiment ``exp_id``'s ``cephbench.ab/1`` document, and its runs (side A's first)."""
    from cephbench.errors import StoreError
    from cephbench.tuning.report import to_json

    try:
        doc = to_json(store, exp_id)
    except StoreError as e:
        raise UsageError(str(e), hint="`cephbench ab` prints the number of each experiment") from e
    a, b = (c["runs"] for c in doc["columns"])
    if not a or not b:
        raise UsageError(
            f"A/B experiment {exp_id} has no round of {'side A' if not a else 'side B'} "
            f"({doc['status']}): nothing to compare",
            hint="run the experiment again (cephbench ab)",
        )
    return doc, tuple(str(i) for i in (*a, *b))


def _tune(store: Store, tune_id: int) -> tuple[dict, str, tuple[str, ...]]:
    """Tune ``tune_id``'s document, the report's title, and the runs its other sections
    compare: the rounds of its final experiment (or of its first attempt's)."""
    from cephbench.errors import StoreError
    from cephbench.store import tunings
    from cephbench.tuning.tune_section import reported_experiment, shown_suite

    try:
        doc = tunings.get(store, tune_id).doc
    except StoreError as e:
        raise UsageError(str(e), hint="`cephbench tune` prints the number of each tune") from e
    exp = reported_experiment(doc)
    if exp is None:
        raise UsageError(
            f"tune {tune_id} measured no attempt ({doc.get('status')}): nothing to report",
            hint="a tune whose diagnosis found nothing a remedy answers changes nothing",
        )
    _, runs = _experiment(store, exp)
    title = f"Tune {tune_id}: {shown_suite(doc)} on {doc.get('target') or 'the lab'}"
    return doc, title, runs


def _capacities(store: Store, ids: tuple[int, ...]) -> tuple[dict, str, list]:
    """The capacity searches' section data, the report's title, and for each search the run
    of its step at the capacity (the highest offered rate that met the target in the last
    repeat; the last step when none did), labelled with the search it stands for."""
    from cephbench.capacity import driver
    from cephbench.capacity.compare import comparable, compare
    from cephbench.capacity.section import name_of
    from cephbench.errors import StoreError
    from cephbench.tables.table import fmt_ms

    try:
        found = [driver.load(store, i) for i in dict.fromkeys(ids)]
    except StoreError as e:
        raise UsageError(str(e), hint="`cephbench capacity` prints each search's number") from e
    docs = [c.to_json() for c in found]
    runs = []
    for doc in docs:
        if not doc["steps"]:
            raise UsageError(
                f"capacity search {doc['capacity']} has no step ({doc['status']}): nothing to report",
                hint="run the search again (cephbench capacity)",
            )
        last = [s for s in doc["steps"] if s["repeat"] == doc["steps"][-1]["repeat"]]
        passed = [s for s in last if s["outcome"] == "pass"]
        step = max(passed, key=lambda s: s["offered_iops"]) if passed else last[-1]
        runs.append(replace(store.get_run(step["run_id"]), label=name_of(doc)))
    comparison = None
    if len(found) == 2 and comparable(found[0], found[1]) is None:
        comparison = compare(found[0], found[1])
    first = docs[0]
    rule = first["rule"]
    what = (
        f"{first['workload']['rw']} {first['workload']['bs']} at p{rule['percentile']:g} <= "
        f"{fmt_ms(rule['target_us'])} ms"
    )
    numbers = ", ".join(str(d["capacity"]) for d in docs)
    title = f"Capacity search{'es' if len(docs) > 1 else ''} {numbers}: {what} on {first['target']}"
    return {"searches": docs, "comparison": comparison}, title, runs
