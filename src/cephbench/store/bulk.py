"""Many runs written in few transactions: ``cephbench import DIR`` of thousands of files.

``Store.start_run``/``record_batch``/``finish_run`` commit (and so sync the disk) once per
call, look up what a resumed run may already hold, and start every run as ``running``: right
for a run being measured, hundreds of times too slow for 10,000 imported files. Here the
caller holds one transaction for a batch of inputs (``batch``), each input is written under a
savepoint of its own (``one_input``: an input is stored whole or not at all, and its failure
leaves the rest of the batch alone), and a run is inserted already finished, its results in
one ``executemany``.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from cephbench.model import RunStatus, WorkloadOutcome, now
from cephbench.store.rows import RESULT_COLUMNS, result_row

if TYPE_CHECKING:
    from cephbench.store import Store

_RUN = (
    "INSERT INTO runs (label, suite, target, status, started_at, ended_at, host, pid,"
    " environment, params, imported_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)"
)
_WORKLOAD = (
    "INSERT INTO workloads (run_id, repeat, seq, name, status, error, output_id)"
    " VALUES (?,?,?,?,?,?,NULL)"
)
_RESULT = (
    f"INSERT INTO results (workload_id, {', '.join(RESULT_COLUMNS)})"
    f" VALUES (?{', ?' * len(RESULT_COLUMNS)})"
)


class BulkWriter:
    """Writes finished runs on ``store``'s connection; the host and process are read once."""

    def __init__(self, store: Store):
        self.conn = store.conn
        self.host = socket.gethostname()
        self.pid = os.getpid()

    @contextmanager
    def batch(self) -> Iterator[None]:
        """One transaction (the write lock held from its start): committed at the end, rolled
        back on any error or Ctrl-C, so a batch is stored whole or not at all."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            if self.conn.in_transaction:  # disk full, I/O errors: SQLite rolled it back itself
                self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    @contextmanager
    def one_input(self) -> Iterator[None]:
        """What one input stores, inside the batch: all of it, or (on an error) none of it,
        the batch going on without it. When SQLite has given up the whole transaction (some
        I/O errors do), the error goes to ``batch``, which has nothing left to keep."""
        self.conn.execute("SAVEPOINT one_input")
        try:
            yield
        except BaseException:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK TO one_input")
                self.conn.execute("RELEASE one_input")
            raise
        self.conn.execute("RELEASE one_input")

    def add_run(
        self,
        *,
        label: str | None,
        suite: str,
        target: str,
        environment: dict[str, Any],
        params: dict[str, Any],
        outcomes: Iterable[WorkloadOutcome],
        status: RunStatus = "complete",
        repeat: int = 0,
        started_at: str | None = None,
        imported_at: str | None = None,
    ) -> int:
        """A finished run and its workloads (in their order) with their results; its id.
        It is imported at ``imported_at`` (else now) and ran at ``started_at`` (the output's
        own time) or, when that is unknown, when it is imported."""
        at = imported_at or now()
        ran = started_at or at
        cur = self.conn.execute(
            _RUN,
            (
                label,
                suite,
                target,
                status,
                ran,
                ran,
                self.host,
                self.pid,
                json.dumps(environment),
                json.dumps(params),
                at,
            ),
        )
        run_id = _id(cur)
        rows = []
        for seq, o in enumerate(outcomes):
            status_ = "failed" if o.error else "ok"
            wid = self.conn.execute(_WORKLOAD, (run_id, repeat, seq, o.name, status_, o.error))
            rows += [(_id(wid), *result_row(x)) for r in o.results for x in (r, *r.clients)]
        self.conn.executemany(_RESULT, rows)
        return run_id


def _id(cur: sqlite3.Cursor) -> int:
    assert cur.lastrowid is not None, "sqlite3 sets lastrowid after an INSERT"
    return cur.lastrowid
