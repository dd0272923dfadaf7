"""``cephbench import FILE|DIR...``: store outputs users already have (fio JSON or text, rados
bench, ceph tell osd bench, iperf3, dd; or Markdown with them in fenced blocks); ``-`` reads
standard input; a directory, every file under it (``importing/batch.py``). cephbench's own
JSON (``show --format json``, ``export``) is stored back whole (``importing/own.py``). The
JSON it prints is ``cephbench.import/1``, or ``cephbench.import-plan/1`` with ``--dry-run``
(ids null: nothing was stored), one run per line."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from cephbench import tools
from cephbench.cli.common import db_option, format_option
from cephbench.errors import ParseError, UsageError

if TYPE_CHECKING:
    from cephbench.store import Store

# The parsers' names from the tool registry: importing the parsers themselves takes longer
# than `cephbench import --help` should.
PARSER_NAMES = ("cephbench", *tools.parser_names())


@click.command(name="import")
@click.argument("inputs", nargs=-1, required=True, metavar="FILE|DIR...")
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
    """Import the tools' outputs you already have (the formats --as names), as files,
    Markdown, or stdin (-); or cephbench's own JSON (`show --format json`, `export`), stored
    back with everything it holds.

    fio JSON or normal output (2.x and 3.x), iperf3 -J or normal, and each tool's output as it
    prints it are recognised without --as.

    Several rados bench outputs in one file (write, seq, rand) are one run with a workload
    each, as `cephbench run rados` stores them; so are the OSDs of `ceph tell osd.* bench`.

    A directory imports every file under it (recursively; hidden ones passed over), in
    batches of hundreds per transaction. A file there that holds no output is skipped with
    one line, one that cannot be read (cut off, damaged) too, and the others are stored; a
    file named itself is all or nothing, as ever.
    """
    from cephbench.contracts import IMPORT, IMPORT_PLAN, document
    from cephbench.importing import batch  # every parser: not for --help
    from cephbench.importing.importer import FORMATS, NoOutput

    listed = batch.expand(inputs)
    outcomes = batch.planned(listed, lambda inp: batch.plan(inp, label, force))
    runs, failed, skipped = [], 0, 0
    for o in batch.save(None if dry_run else store, outcomes):
        runs += [p.as_run(i) for p, i in zip(o.planned, o.ids, strict=True)]
        _say(o.lines)
        failed += o.error is not None and not isinstance(o.error, NoOutput)
        skipped += o.error is not None
    dirs = list(dict.fromkeys(i.found_in for i in listed if i.found_in is not None))
    if dirs:
        files = len(listed) - skipped
        _say(
            [
                f"{', '.join(dirs)}: {files} file{'s' * (files != 1)} imported as {len(runs)} "
                f"run{'s' * (len(runs) != 1)}"
                + (f", {skipped} skipped (see above)" if skipped else "")
                + (" (dry run: nothing stored)" if dry_run else "")
            ]
        )
    if fmt == "json":
        kind = IMPORT_PLAN if dry_run else IMPORT
        _print_runs(document(kind, runs=[]), [r.to_json() for r in runs])
    else:
        from cephbench.cli.show import emit_run

        for run in runs:
            emit_run(run, fmt)  # as `show` prints it: each tool's own tables and units
    if failed:
        raise ParseError(
            f"{failed} file{'s' * (failed != 1)} could not be read (see above); "
            "the rest are imported",
            hint="fix or remove them and import those files again",
        )
    if not runs:
        raise UsageError(
            f"no {FORMATS} output in {', '.join(inputs)}",
            hint="name the files to import, or pass --as to say what they are",
        )


def _say(lines: list[str]) -> None:
    """Lines on stderr as they are (no markup, no wrapping): many, for a directory."""
    if lines:
        click.echo("\n".join(lines), err=True)


def _print_runs(head: dict, runs: list[dict]) -> None:
    """``head`` with ``runs`` in it, one run per line: indenting thousands of runs' results
    would take longer than importing them (json indents in Python, and compactly in C)."""
    import json
    import sys

    fields = [f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in head.items() if k != "runs"]
    rows = ",\n".join(f"    {json.dumps(r)}" for r in runs)
    sys.stdout.write("{\n" + ",\n".join([*fields, f'  "runs": [\n{rows}\n  ]']) + "\n}\n")
