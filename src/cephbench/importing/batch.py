"""Importing many inputs at once: directories walked, files planned one by one and stored in
batches (one transaction per batch, each file under a savepoint of its own).

A directory stands for every regular file under it, recursively, in sorted path order; hidden
files and directories (a name starting with ``.``: ``.git``, editors' files) are passed over,
and so are files over ``MAX_FILE`` bytes (no tool prints that much). A file found in a
directory that holds no output (a job file, a README, ``*.expected.json``) is skipped with
one line saying so, and one that is an output but cannot be read (cut off, damaged) likewise,
so one bad file never costs the others: they are stored, and the command exits non-zero
(``ParseError``'s status) once everything else is in. A file named on the command line is
still all or nothing: a bad one stops the import before anything is stored.

Files are read, parsed and checked once each, as they are stored: a directory of 10,000
outputs is never held in memory as text at once.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from cephbench.errors import CephbenchError, ParseError, StoreError, UsageError
from cephbench.importing import own
from cephbench.importing.importer import NoOutput, Planned, report
from cephbench.store import Store
from cephbench.store.bulk import BulkWriter

MAX_FILE = 256 << 20
"""Files larger than this (bytes) in a directory are not read: no tool output is that big,
and a directory of results may hold a test file of gigabytes."""
BATCH_RUNS = 500
"""Runs per transaction: large enough that the disk syncs stop mattering, small enough that a
Ctrl-C loses little (the batch being written is rolled back; batches before it are kept)."""
BATCH_RESULTS = 50_000
"""...and result rows per transaction (files with hundreds of jobs each)."""


@dataclass(frozen=True)
class Input:
    """A file to import (``-`` is standard input)."""

    name: str
    found_in: str | None = None
    """The directory named on the command line it was found in; None when named itself."""


def expand(names: Sequence[str]) -> list[Input]:
    """The inputs named: files as given, directories as the files under them."""
    out = []
    for name in names:
        if name != "-" and os.path.isdir(name):
            out += [Input(path, name) for path in _walk(name)]
        else:
            out.append(Input(name))
    return out


def _walk(top: str) -> list[str]:
    paths = []
    for root, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        paths += [os.path.join(root, f) for f in files if not f.startswith(".")]
    return sorted(paths)


def read(inp: Input) -> str:
    """The text of an input; UsageError when it cannot be read; in a directory, ParseError
    (the file is skipped) when it is no regular file or too large to be an output."""
    if inp.name == "-":
        import sys

        return sys.stdin.read()
    try:
        if inp.found_in is not None:
            st = os.stat(inp.name)
            if not stat.S_ISREG(st.st_mode):  # a FIFO would block the import forever
                raise NoOutput(f"{inp.name}: not a regular file")
            if st.st_size > MAX_FILE:
                raise NoOutput(f"{inp.name}: {st.st_size >> 20} MiB, too large to be an output")
        with open(inp.name, "rb") as f:
            text = f.read().decode("utf-8", errors="replace")
    except OSError as e:
        if inp.found_in is not None:
            raise ParseError(f"{inp.name}: cannot read it: {e.strerror}") from None
        raise UsageError(f"cannot read {inp.name}: {e.strerror}") from None
    # what reading it as text would do (universal newlines), without its cost: most files
    # have no "\r" to translate
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def plan(inp: Input, label: str | None, force: str | None) -> list:
    return own.plan(inp.name, read(inp), label, force)


@dataclass
class Outcome:
    """What became of one input: its runs (ids None when not stored) or why it was skipped."""

    input: Input
    planned: list = field(default_factory=list)
    ids: list[int | None] = field(default_factory=list)
    error: CephbenchError | None = None

    @property
    def lines(self) -> list[str]:
        """What ``import`` says about it on stderr, one line each."""
        name = self.input.name
        if self.error is not None:
            what = "skipped" if isinstance(self.error, NoOutput) else "not imported"
            message = self.error.message.removeprefix(f"{name}: ")
            return [f"{name}: {what}: {message}"]
        lines = report(name, self.planned)
        if self.ids and self.ids[0] is not None:
            lines.append(f"{name}: stored as run {', '.join(map(str, self.ids))}")
        return lines


Planner = Callable[[Input], list]


def planned(inputs: Sequence[Input], plan_one: Planner) -> Iterator[Outcome]:
    """Each input planned, in order. Inputs named on the command line are planned first,
    all of them: any error there stops the import before anything is stored. Files found in
    directories are planned as they come; an error makes an Outcome with ``error``."""
    named = {i: plan_one(inp) for i, inp in enumerate(inputs) if inp.found_in is None}
    for i, inp in enumerate(inputs):
        if i in named:
            yield Outcome(inp, named.pop(i))
            continue
        try:
            yield Outcome(inp, plan_one(inp))
        except ParseError as e:
            yield Outcome(inp, error=e)


def save(store: Store | None, outcomes: Iterable[Outcome]) -> Iterator[Outcome]:
    """Store each planned input (nothing with ``store`` None: a dry run), in batches; yield
    each Outcome once its batch is committed, so "stored" is never said too early."""
    if store is None:
        for o in outcomes:
            o.ids = [None] * len(o.planned)
            yield o
        return
    writer = BulkWriter(store)
    for batch in _batches(outcomes):
        # planned before the transaction starts: the write lock is held only while writing
        try:
            with writer.batch():
                for o in batch:
                    if o.error is None:
                        _store_one(writer, store, o)
        except sqlite3.Error as e:
            names = [o.input.name for o in batch]
            raise StoreError(
                f"cannot write to {store.path}: {e}; none of {names[0]} .. {names[-1]} "
                f"({len(names)} files) is stored, the files before them are",
                hint="free space or fix the store, then import those files again",
            ) from e
        yield from batch


def _batches(outcomes: Iterable[Outcome]) -> Iterator[list[Outcome]]:
    batch: list[Outcome] = []
    runs = results = 0
    for o in outcomes:
        batch.append(o)
        runs += len(o.planned)
        results += sum(len(w.results) for p in o.planned for w in p.found.outcomes)
        if runs >= BATCH_RUNS or results >= BATCH_RESULTS:
            yield batch
            batch, runs, results = [], 0, 0
    if batch:
        yield batch


def _store_one(writer: BulkWriter, store: Store, o: Outcome) -> None:
    """One input's runs, all or none (a figure SQLite refuses: the input is not imported)."""
    try:
        with writer.one_input():
            o.ids = [_store_run(writer, store, p) for p in o.planned]
    except (OverflowError, ValueError, sqlite3.IntegrityError) as e:
        # a statement refused, the transaction still open; other errors (disk full, I/O),
        # or SQLite having rolled the transaction back itself, go up: the batch is lost whole
        if not writer.conn.in_transaction:
            raise
        o.planned, o.ids = [], []
        o.error = ParseError(f"{o.input.name}: the store refused it: {e}")


def _store_run(writer: BulkWriter, store: Store, p: Planned | own.OwnPlanned) -> int:
    if isinstance(p, own.OwnPlanned):  # cephbench's own JSON: stored whole, as it was
        return own.save_record(store, p.record, p.as_run())
    return writer.add_run(
        label=p.label,
        suite="import",
        target=p.source,
        environment=p.environment,
        params={"imported": True, **p.found.params},
        outcomes=p.found.outcomes,
        started_at=p.started_at,
        imported_at=p.imported_at,
    )
