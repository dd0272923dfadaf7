"""``cephbench show RUN``: one run as the table users post, as Markdown, or as JSON.

Each tool prints its own table (osd bench per OSD, iperf3 per host pair, fio per workload); ``--cluster`` shows the
cluster the run measured (stored with every run on a Ceph target). The JSON is
``cephbench.run/1`` (``cephbench.cluster/1`` with ``--cluster``; see ``cephbench.contracts``).

``--format csv`` prints one row per result, units in the column names
(``cephbench.report.spreadsheet``).

``--raw`` adds the raw tool outputs, the cluster fingerprint and the series to the JSON, as
``export`` does; not by default: they are what the figures were read from (fio's whole JSON,
job files, ``ceph config dump``...), often many times the size of the figures, and a script
reading figures does not need them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from cephbench.cli.common import console_err, db_option, emit_table, format_option, print_json
from cephbench.cli.complete import complete_run_ref
from cephbench.errors import StoreError, UsageError

if TYPE_CHECKING:
    from cephbench.model import Run, StoredRun
    from cephbench.store import Store


@click.command()
@click.argument("run_ref", metavar="RUN", default="last", shell_complete=complete_run_ref)
@click.option(
    "--cluster",
    "cluster",
    is_flag=True,
    help="Show the Ceph cluster the run measured (version, nodes, OSDs, capacity, pool).",
)
@click.option(
    "--raw",
    is_flag=True,
    help="With --format json: add the raw tool outputs, cluster fingerprint and series "
    "(as `cephbench export` does).",
)
@format_option("table", "md", "json", "csv")
@db_option
def show(run_ref: str, cluster: bool, raw: bool, fmt: str, store: Store) -> None:
    """Show a stored run (an id from `cephbench runs`, or 'last')."""
    # what showing needs (the cluster summary, the JSON contract, tables): not for --help
    from cephbench.ceph.fingerprint import summarize
    from cephbench.contracts import CLUSTER, document
    from cephbench.report.cluster import cluster_table

    if cluster and fmt == "csv":
        raise UsageError(
            "--cluster has no CSV form", hint="use --format json, md or table with --cluster"
        )
    run = store.get_run(run_ref)
    if cluster:
        fp = store.fingerprint(run.id)
        if fp is None:
            raise StoreError(
                f"run {run.id} did not run on a Ceph cluster; it has no cluster record"
            )
        if fmt == "json":
            print_json(document(CLUSTER, run=run.id, cluster=summarize(*fp), fingerprint=fp[0]))
        else:
            emit_table(cluster_table(run.id, summarize(*fp)), fmt)
        return
    emit_run(run, fmt, store, raw=raw)


def emit_run(run: Run, fmt: str, store: Store | None = None, raw: bool = False) -> None:
    from cephbench import tools
    from cephbench.contracts.write import run_document
    from cephbench.model import StoredRun

    if run.tool == "diagnose" and store is not None and isinstance(run, StoredRun) and not raw:
        from cephbench.cli.diagnose import emit

        emit(store, run.id, fmt)  # its findings first (JSON: cephbench.diagnosis/1)
        if fmt == "json":
            return
    if fmt == "json":
        print_json(run_document(run, store, raw=raw))
        return
    if fmt == "csv":  # one row per result, the run's fields on each (a spreadsheet's shape)
        from cephbench.report.spreadsheet import results_csv

        click.echo(results_csv([run]), nl=False)
        return
    tables = tools.of_run(run).tables(run)
    for i, table in enumerate(tables):
        if i and fmt == "md":
            click.echo()
        emit_table(table, fmt)
    empty = not run.results and not run.failures and run.error
    if empty and not any(n.startswith("No results:") for t in tables for n in t.notes):
        console_err.print(f"No results: {run.error}", soft_wrap=True)  # a tool's own table
    if store is not None and isinstance(run, StoredRun):
        for note in _notes(run, store):
            console_err.print(note, soft_wrap=True)


def _notes(run: StoredRun, store: Store) -> list[str]:
    from cephbench.contracts.write import FALLOCATE_TOOL, PREFILL_TOOL
    from cephbench.model import FLAGS, flag_text

    notes = []
    outputs = store.outputs(run.id)
    prefill = prefill_note([o for o in outputs if o["tool"] == PREFILL_TOOL])
    if prefill:
        notes.append(prefill)
    notes += [fallocate_note(o) for o in outputs if o["tool"] == FALLOCATE_TOOL]
    if run.status == "aborted" and run.results and run.error:  # an empty run's table says it
        notes.append(f"Run {run.id} {run.error}.")
    flags = sorted({f for r in run.results for f in r.flags if f in FLAGS and FLAGS[f].health})
    if flags:
        notes.append(
            "Health during the run: "
            + "; ".join(flag_text(f) for f in flags)
            + ". Flagged results are less trustworthy."
        )
    unread = served_unread([v for s in store.series(run.id, "served") for v in s.values])
    if unread:
        notes.append(unread)
    return notes


def served_unread(records: list[Any]) -> str | None:
    """One note for the reads a run could not judge for a cache: the layer behind the target
    (a Ceph pool) could not be read around them, so a cache may have served them unflagged."""
    missed = [r for r in records if isinstance(r, dict) and r.get("not_read")]
    if not missed:
        return None
    names = ", ".join(dict.fromkeys(str(r.get("workload")) for r in missed))
    why = "; ".join(dict.fromkeys(str(r["not_read"]) for r in missed))
    layer = missed[0].get("layer") or "the storage behind the target"
    return (
        f"Not judged for a cache: {names}: what {layer} served around them could not be read"
        f" ({why}); a cache on the client may have served them, unflagged."
    )


def fallocate_note(output: dict) -> str:
    """The note for a mount that refused ``fallocate(2)`` (targets/cephfs.py's probe)."""
    said = (output["stderr"] or "").strip().splitlines()
    return (
        f"Files: the mount refused fallocate(2) ({said[-1] if said else 'no reason given'}), "
        "so fio ran with fallocate=none: its files were laid out by writing them."
    )


def prefill_note(outputs: list[dict]) -> str | None:
    """One note for a run's prefills (the fio runs writing each new volume once before the
    workloads), however many volumes: an RBD image each, written one after another on this
    machine (their times add up), or a pod's volume each (``pod/NAME`` first in the argv),
    written by all the pods at once (each output holds the time of them all)."""
    if not outputs:
        return None
    sizes = ", ".join(
        dict.fromkeys(
            next((a.split("=", 1)[1] for a in o["argv"] if a.startswith("--size=")), "?")
            for o in outputs
        )
    )
    in_pods = all(o["argv"] and str(o["argv"][0]).startswith("pod/") for o in outputs)
    what = "volume" if in_pods else "RBD image"
    if len(outputs) == 1:
        return (
            f"Prefill: the new {what} was written once ({sizes}, sequential 4M) "
            f"in {outputs[0]['seconds']:.1f} s before the workloads."
        )
    if in_pods:
        seconds, how = max(o["seconds"] for o in outputs), f"by their {len(outputs)} pods at once"
    else:
        seconds, how = sum(o["seconds"] for o in outputs), "one after another"
    return (
        f"Prefill: the {len(outputs)} new {what}s were each written once ({sizes} each, "
        f"sequential 4M), {how}, in {seconds:.1f} s before the workloads."
    )
