"""``cephbench export RUN... -o FILE``: runs as one JSON file (``cephbench.export/1``) that
``cephbench import`` on another machine stores back as they were: figures, environment,
flags, raw tool outputs, cluster fingerprint and series."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from cephbench.cli.common import console_err, db_option
from cephbench.cli.complete import complete_run_ref
from cephbench.errors import UsageError

if TYPE_CHECKING:
    from cephbench.store import Store


@click.command()
@click.argument(
    "run_refs", metavar="RUN...", nargs=-1, required=True, shell_complete=complete_run_ref
)
@click.option(
    "--output",
    "-o",
    "output",
    required=True,
    metavar="FILE",
    type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
    help="The JSON file to write ('-': standard output).",
)
@db_option
def export(run_refs: tuple[str, ...], output: Path, store: Store) -> None:
    """Export stored runs (ids from `cephbench runs`, or 'last') with their raw outputs.

    \b
    Examples:
      cephbench export 3 4 5 -o attempts.json
      cephbench import attempts.json          # on another machine
    """
    ids = list(dict.fromkeys(store.resolve(ref) for ref in run_refs))
    from cephbench.contracts.write import export_document  # the store and model: not for --help

    text = json.dumps(export_document([store.get_run(i) for i in ids], store), indent=2) + "\n"
    if str(output) == "-":
        sys.stdout.write(text)
        return
    if not output.parent.is_dir():
        raise UsageError(
            f"the directory {output.parent} does not exist", hint="create it, or write elsewhere"
        )
    partial = output.with_name(f".{output.name}.partial")
    try:
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, output)  # a reader never sees half a file
    except OSError as e:
        partial.unlink(missing_ok=True)
        raise UsageError(f"cannot write {output}: {e.strerror}") from None
    console_err.print(f"exported run {', '.join(map(str, ids))} to {output}", markup=False)
