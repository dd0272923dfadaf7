"""The ``cephbench`` console script: a command's help from a file, everything else by click.

``cephbench run --help`` is what a new user types first, and again and again. Importing click
alone costs about five times a bare interpreter's start (bench/startup.py: some 100 ms
against 20 ms here), before any of cephbench's own modules. Yet the help of every built-in
command is fixed by the code: it is rendered once into ``help.txt`` beside this module
(``make help``, :mod:`cephbench.help_file`; ``tests/unit/test_help_file.py`` fails when
any text differs from what click prints) and printed from there when

- the arguments are built-in command names followed by ``--help`` or ``-h``, nothing else;
- the terminal is at least :data:`WIDTH` columns wide (click lays help out for
  ``min(columns, 80) - 2``; narrower terminals get click's own layout);
- the file is of this version of cephbench, and no installed package may add commands (their
  help and their lines in the list are theirs to say).

Anything else goes to click (:func:`cephbench.cli.main`), as before. Standard library only,
and as little of it as can be.
"""

from __future__ import annotations

import os
import sys

from cephbench import __version__
from cephbench.registry import COMMANDS_GROUP, may_have_entry_points

HELP_FILE = os.path.join(os.path.dirname(__file__), "help.txt")
MARK = "\n::: "
"""Starts each text's line of command words in the help file (no help line starts so: the
writer checks). A plain text file split by ``str`` methods: json would import ``re``, as much
again as the rest of this path."""
HELP_OPTIONS = ("--help", "-h")
WIDTH = 80
"""Click's widest layout: help is wrapped at ``min(columns, 80) - 2``."""


def columns() -> int:
    """The terminal's width as click reads it (:func:`shutil.get_terminal_size`: ``COLUMNS``,
    else the terminal on standard output, else 80), without importing shutil."""
    try:
        wide = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        wide = 0
    if wide > 0:
        return wide
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or WIDTH  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return WIDTH


def key(args: list[str]) -> str | None:
    """The help file's key for ``args`` (command names, then ``--help`` or ``-h``): the
    command line without its help option, e.g. ``cephbench lab up``; None when they ask for
    something else."""
    if not args or args[-1] not in HELP_OPTIONS:
        return None
    words = args[:-1]
    if any(not w or w.startswith("-") for w in words):
        return None
    return " ".join(("cephbench", *words))


def cached_help(args: list[str]) -> str | None:
    """The help ``cephbench ARGS`` prints, from the help file; None when click must say it."""
    wanted = key(args)
    if wanted is None or columns() < WIDTH:
        return None
    try:
        with open(HELP_FILE, encoding="utf-8") as f:
            saved = f.read()
    except OSError:
        return None
    header, *entries = saved.removesuffix("\n").split(MARK)
    if header != f"cephbench {__version__} help for {WIDTH} columns":
        return None
    texts = dict(e.partition("\n")[::2] for e in entries)
    if wanted not in texts or may_have_entry_points(COMMANDS_GROUP):
        return None
    return texts[wanted] + "\n"


def help_file(texts: dict[str, str]) -> str:
    """The help file holding ``texts`` (command words to help, each ending in a newline)."""
    out = [f"cephbench {__version__} help for {WIDTH} columns"]
    for words, text in texts.items():
        if not text.endswith("\n") or MARK in "\n" + text:
            raise ValueError(f"the help of {words!r} cannot be kept in the help file")
        out.append(f"{MARK}{words}\n{text[:-1]}")
    return "".join(out) + "\n"


def main() -> None:
    text = cached_help(sys.argv[1:])
    if text is not None:
        sys.stdout.write(text)
        sys.stdout.flush()
        sys.exit(0)
    from cephbench.cli import main as click_main

    click_main()
