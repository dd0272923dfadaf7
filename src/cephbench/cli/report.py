"""``cephbench report RUN... -o FILE``: an HTML (self-contained) or Markdown report."""

from __future__ import annotations

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
@picking_filter
@db_option
def report(
    run_refs: tuple[str, ...],
    output: Path,
    experiment: int | None,
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
    """
    # scipy, matplotlib and jinja2 (~1 s) load when reporting, not for `report --help`
    from cephbench.analysis.compare import compare
    from cephbench.report.render import write_report

    if not output.parent.is_dir():
        raise UsageError(
            f"the directory {output.parent} does not exist", hint="create it, or write elsewhere"
        )
    ab = None
    if experiment is not None:
        if run_refs or run_filter.narrows or run_filter.last is not None:
            raise UsageError(
                "--experiment picks the runs itself (its rounds)",
                hint="give --experiment N alone, or runs without it",
            )
        ab, run_refs = _experiment(store, experiment)
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
