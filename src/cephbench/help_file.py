"""Writes ``help.txt``, the help texts :mod:`cephbench.console` prints without click.

    python -m cephbench.help_file          # or: make help

Every built-in command and subcommand's ``--help``, rendered as click prints it in a
terminal of 80 columns or more, keyed by the command line (``cephbench``, ``cephbench run``,
``cephbench lab up``...), with the version it is of (the format:
:func:`cephbench.console.help_file`). Run it after changing any command's options or
docstring; ``tests/unit/test_help_file.py`` compares every text with what click prints and
names this command when one differs.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import click

from cephbench.cli import BUILTIN_COMMANDS, cli
from cephbench.console import HELP_FILE, WIDTH, help_file


def _walk(
    command: click.Command, ctx: click.Context, words: tuple[str, ...]
) -> Iterator[tuple[tuple[str, ...], str]]:
    yield words, command.get_help(ctx) + "\n"  # click echoes it with a newline
    if isinstance(command, click.Group):
        names = BUILTIN_COMMANDS if not words else command.list_commands(ctx)
        for name in names:
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                sub_ctx = sub.make_context(name, [], parent=ctx, resilient_parsing=True)
                yield from _walk(sub, sub_ctx, (*words, name))


def render() -> dict[str, str]:
    """Every built-in command's help text by its words, laid out for :data:`WIDTH` columns."""
    root = cli.make_context("cephbench", [], resilient_parsing=True, terminal_width=WIDTH - 2)
    return {" ".join(("cephbench", *words)): text for words, text in _walk(cli, root, ())}


def main() -> None:
    texts = render()
    Path(HELP_FILE).write_text(help_file(texts), encoding="utf-8")
    print(f"wrote {HELP_FILE}: {len(texts)} help texts", file=sys.stderr)


if __name__ == "__main__":
    main()
