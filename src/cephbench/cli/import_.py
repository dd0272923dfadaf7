"""``cephbench import FILE...``: store outputs users already have (fio JSON or text, rados
bench, ceph tell osd bench, iperf3; or Markdown with them in fenced blocks); ``-`` reads
standard input. cephbench's own JSON (``show --format json``, ``export``) is stored back whole
(``importing/own.py``). The JSON it prints is ``cephbench.import/1``, or
``cephbench.import-plan/1`` with ``--dry-run`` (ids null: nothing was stored)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from cephbench.cli.common import console_err, db_option, emit_table, format_option, print_json
from cephbench.errors import UsageError

if TYPE_CHECKING:
    from cephbench.store import Store

# The names of importer.PARSERS (a test keeps them equal): importing the parsers themselves
# takes longer than `cephbench import --help` should.
PARSER_NAMES = ("cephbench", "fio-json", "fio-text", "iperf3", "osd-bench", "rados-bench")


@click.command(name="import")
@click.argument("inputs", nargs=-1, required=True, metavar="FILE...")
@click.option(
    "--label", "-l", help="Label for the imported runs (default: none; runs show as #id)."
)
@click.option(
    "--as",
    "force",
    type=click.Choice(PARSER_NAMES),
    help="Read every input as this format instead of detecting it.",
)
@click.option("--dry-run", is_flag=True, help="Show what would be stored; store nothing.")
@format_option("table", "md", "json")
@db_option
def import_(
    inputs: tuple[str, ...],
    label: str | None,
    force: str | None,
    dry_run: bool,
    fmt: str,
    store: Store,
) -> None:
    """Import fio JSON or normal output (2.x and 3.x), rados bench, ceph tell osd bench or
    iperf3 (-J or normal) output, as files, Markdown, or stdin (-); or cephbench's own JSON
    (`show --format json`, `export`), stored back with everything it holds.

    Several rados bench outputs in one file (write, seq, rand) are one run with a workload
    each, as `cephbench run rados` stores them; so are the OSDs of `ceph tell osd.* bench`.
    """
    from cephbench.contracts import IMPORT, IMPORT_PLAN, document
    from cephbench.importing import importer, own  # every parser: not for --help

    planned_per_input = [(name, own.plan(name, _read(name), label, force)) for name in inputs]
    runs = []
    for name, planned in planned_per_input:
        ids = [None] * len(planned) if dry_run else own.save(store, planned)
        runs += [p.as_run(i) for p, i in zip(planned, ids, strict=True)]
        for line in importer.report(name, planned):
            console_err.print(line, markup=False, highlight=False, soft_wrap=True)
        if not dry_run:
            console_err.print(f"{name}: stored as run {', '.join(map(str, ids))}")
    if fmt == "json":
        kind = IMPORT_PLAN if dry_run else IMPORT
        print_json(document(kind, runs=[r.to_json() for r in runs]))
        return
    from cephbench.report.run_table import run_table

    for run in runs:
        emit_table(run_table(run), fmt)


def _read(name: str) -> str:
    if name == "-":
        return sys.stdin.read()
    try:
        with open(name, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError as e:
        raise UsageError(f"cannot read {name}: {e.strerror}") from None
