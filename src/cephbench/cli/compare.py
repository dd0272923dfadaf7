"""``cephbench compare RUN RUN...``: write-up style tables with a verdict for every cell."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import click

from cephbench.cli.common import console, console_err, db_option, format_option, print_json
from cephbench.cli.complete import complete_run_ref
from cephbench.cli.options import SectionedCommand, picking_filter
from cephbench.errors import ExitStatus, UsageError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from cephbench.analysis.compare import Comparison
    from cephbench.model import StoredRun
    from cephbench.store import Store
    from cephbench.store.query import RunFilter


def parse_percent(text: str | None) -> float | None:
    """``5%`` or ``5`` -> 5.0."""
    if text is None:
        return None
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*%?\s*", text)
    if not m:
        raise UsageError(f"'{text}' is not a percentage", hint="e.g. --fail-on-regression 5%")
    return float(m.group(1))


@click.command(cls=SectionedCommand)
@click.argument("run_refs", metavar="[RUN]...", nargs=-1, shell_complete=complete_run_ref)
@picking_filter
@click.option(
    "--fail-on-regression",
    "threshold",
    metavar="PCT",
    help="Exit with status 3 when any cell is significantly worse than the baseline "
    "by more than PCT (e.g. 5%). Untestable cells (1 sample) count on PCT alone.",
)
@click.option(
    "--match",
    type=click.Choice(("name", "params")),
    help="Line up workloads by name (and direction) only, or by parameters only (rw, bs, "
    "iodepth, numjobs, rwmixread, direction). Default: by name where the names agree, "
    "else by parameters; a note says which rows were matched by parameters.",
)
@format_option("table", "md", "json", "csv")
@db_option
def compare(
    run_refs: tuple[str, ...],
    threshold: str | None,
    match: str | None,
    run_filter: RunFilter,
    fmt: str,
    store: Store,
) -> None:
    """Compare stored runs; the first is the baseline.

    Runs sharing a label are pooled as repeats of one configuration. With repeats, every
    difference gets a 95 % confidence interval and a significance verdict. Runs are the RUNs
    given, then those the filters pick (oldest first). --format csv: one row per workload,
    direction and configuration, every metric's figures in columns named with their unit.

    \b
    Examples:
      cephbench compare 3 4
      cephbench compare 3 4 5 6 7 --format md
      cephbench compare 3 4 --fail-on-regression 5%
      cephbench compare 3 1 --match params   # a pasted result's `test` vs your own names
      cephbench compare 12 --label nightly --since 7d
      cephbench compare --suite quick --last 10 --format csv > quick.csv
    """
    # scipy and numpy (~0.3 s) load when comparing, not for `compare --help`
    from cephbench.analysis.compare import compare as compare_runs
    from cephbench.analysis.compare import to_json
    from cephbench.analysis.matching import match_notes
    from cephbench.report.markdown import comparison_markdown

    limit = parse_percent(threshold)
    runs = pick_runs(store, run_refs, run_filter)
    cmp = compare_runs(runs, clusters=load_clusters(store, runs), match=match or "auto")
    if len(cmp.columns) < 2:
        raise UsageError(
            f"nothing to compare: {', '.join(f'#{r.id}' for r in runs)} form one group "
            f"('{cmp.baseline.name}')",
            hint="give at least two runs with different labels (runs sharing a label are pooled)",
        )
    diagnoses = all(r.tool == "diagnose" for r in runs)
    if fmt == "json":
        doc = to_json(cmp)
        if diagnoses:
            doc["findings_changes"] = _findings_json(store, runs)
        print_json(doc)
    elif fmt == "csv":
        from cephbench.report.spreadsheet import comparison_csv

        click.echo(comparison_csv(to_json(cmp)), nl=False)
    elif fmt == "md":
        click.echo(comparison_markdown(cmp), nl=False)
        if cmp.by_params:  # the JSON schema takes no new key: the matching is said here only
            click.echo("\n" + "  \n".join(match_notes(cmp.by_params)))
    else:
        _print_rich(cmp)
    if fmt != "json" and diagnoses:
        _findings_changes(store, runs, fmt)
    if limit is not None:
        _gate(cmp, limit)


def pick_runs(store: Store, refs: Sequence[str], run_filter: RunFilter) -> list[StoredRun]:
    """The RUNs given, then those the filters pick that were not given (oldest first); at
    least one of the two is needed."""
    from cephbench.store.query import run_ids

    if not refs and not run_filter.narrows and run_filter.last is None:
        raise UsageError(
            "which runs? give run ids, or pick them by filter",
            hint="e.g. `3 4`, `last`, or --label nightly --since 30d (see --help)",
        )
    ids = [store.resolve(ref) for ref in refs]
    if run_filter.narrows or run_filter.last is not None:
        picked = run_ids(store.conn, run_filter)
        if not picked:
            which = run_filter.describe() or "the filters"
            raise UsageError(
                f"no stored run matches {which}", hint="`cephbench runs` with the same filters"
            )
        ids += [i for i in picked if i not in ids]
    return [store.get_run(i) for i in ids]


def load_clusters(store: Store, runs: Sequence[StoredRun]) -> dict[int, dict]:
    """Run id -> Ceph cluster facts, for the runs that stored a fingerprint."""
    from cephbench.analysis.envdiff import cluster_context

    out = {}
    for run in runs:
        stored = store.fingerprint(run.id) if hasattr(store, "fingerprint") else None
        if stored:
            out[run.id] = cluster_context(*stored)
    return out


def _findings_changes(store: Store, runs: Sequence[StoredRun], fmt: str) -> None:
    """Diagnoses: the findings that appeared or went away against the first run."""
    from cephbench.cli.common import emit_table
    from cephbench.diagnose import stored
    from cephbench.diagnose.render import changes_table

    base = stored.document(store, runs[0].id)
    for run in runs[1:]:
        if fmt == "md":
            click.echo("")
        new = stored.document(store, run.id)
        emit_table(changes_table(runs[0].id, run.id, stored.changes(base, new)), fmt)


def _findings_json(store: Store, runs: Sequence[StoredRun]) -> list[dict]:
    """Diagnoses: per run after the first, its findings that appeared, went away, stayed."""
    from cephbench.diagnose import stored

    base = stored.document(store, runs[0].id)
    return [
        {
            "baseline": runs[0].id,
            "run": run.id,
            **stored.changes(base, stored.document(store, run.id)),
        }
        for run in runs[1:]
    ]


def _print_rich(cmp: Comparison) -> None:
    from cephbench.analysis.matching import match_notes
    from cephbench.report.markdown import comparison_notes, env_table, result_tables
    from cephbench.tables.table import to_rich

    for table in result_tables(cmp):
        console.print(to_rich(table, console.width))
    for note in (*match_notes(cmp.by_params), *comparison_notes(cmp)):
        console.print(note, markup=False)
    env = env_table(cmp)
    if env:
        console.print(to_rich(env, console.width))


def _gate(cmp: Comparison, limit: float) -> None:
    from cephbench.analysis.compare import regressions

    bad = regressions(cmp, limit)
    if not bad:
        console_err.print(
            f"No cell is significantly worse than {cmp.baseline.name} by more than {limit:g}%.",
            markup=False,
        )
        return
    for row, col in bad:
        d = row.diffs[col.key]
        why = "significant" if d.significant else "1 sample: significance unknown"
        console_err.print(
            f"REGRESSION {col.name} vs {cmp.baseline.name}: {row.workload} "
            f"({row.op}) {row.metric.title} {d.pct:+.2f}% ({why})",
            markup=False,
        )
    raise click.exceptions.Exit(int(ExitStatus.REGRESSION))
