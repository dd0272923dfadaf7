"""The result store: one SQLite file (WAL) holding every run, its results and raw outputs.

Writes are grouped so the store is always consistent: a run row first (status ``running``),
then each finished batch of workloads in one transaction, then the final status. A run whose
process died while ``running`` is marked ``aborted`` by the next command that opens the store.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from cephbench.errors import StoreError, UsageError
from cephbench.model import (
    Failure,
    RawOutput,
    RunStatus,
    Series,
    StoredRun,
    WorkloadOutcome,
    now,
)
from cephbench.store.resources import Resource, ResourceLog
from cephbench.store.rows import RESULT_COLUMNS, insert_results, run_from_row, workload_results
from cephbench.store.schema import migrate

__all__ = ["RESULT_COLUMNS", "Resource", "ResourceLog", "Store", "default_path"]


def default_path() -> Path:
    """``$CEPHBENCH_DB``, else ``$XDG_DATA_HOME/cephbench/results.db``."""
    if os.environ.get("CEPHBENCH_DB"):
        return Path(os.environ["CEPHBENCH_DB"])
    data_home = os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share")
    return Path(data_home) / "cephbench" / "results.db"


class Store:
    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(self.path, isolation_level=None, timeout=30)
            self.conn.execute("PRAGMA journal_mode = WAL")
        except (OSError, sqlite3.Error) as e:
            raise StoreError(
                f"cannot open the result store {self.path}: {e}",
                hint="choose another path with --db or CEPHBENCH_DB",
            ) from e
        self.conn.row_factory = sqlite3.Row
        self.conn.execute("PRAGMA foreign_keys = ON")
        try:
            migrate(self.conn, str(self.path))
        except sqlite3.DatabaseError as e:
            self.conn.close()
            raise StoreError(f"{self.path} is not a cephbench result store: {e}") from e
        except BaseException:
            self.conn.close()
            raise

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def transaction(self) -> _Transaction:
        """Group several writes: all of them are stored, or none. Re-entrant: inside another
        transaction, part of it."""
        return _Transaction(self.conn)

    # -- writing -----------------------------------------------------------------------
    def start_run(
        self,
        *,
        label: str | None,
        suite: str,
        target: str,
        environment: dict[str, Any],
        params: dict[str, Any],
        started_at: str | None = None,
        imported_at: str | None = None,
    ) -> int:
        """A run begins (``running``); ``imported_at``: when an imported run was imported
        (its ``started_at`` is when its output says it ran)."""
        with self.transaction():
            cur = self.conn.execute(
                "INSERT INTO runs (label, suite, target, status, started_at, host, pid,"
                " environment, params, imported_at) VALUES (?, ?, ?, 'running', ?, ?, ?, ?, ?, ?)",
                (
                    label,
                    suite,
                    target,
                    started_at or now(),
                    socket.gethostname(),
                    os.getpid(),
                    json.dumps(environment),
                    json.dumps(params),
                    imported_at,
                ),
            )
        return _inserted_id(cur)

    def record_batch(
        self,
        run_id: int,
        repeat: int,
        output: RawOutput | None,
        outcomes: Iterable[WorkloadOutcome],
    ) -> None:
        """Store one tool invocation and every workload it produced, all or nothing."""
        with self.transaction():
            output_id = None
            if output is not None:
                output_id = self.conn.execute(
                    "INSERT INTO outputs (run_id, repeat, tool, argv, input_text, stdout_z,"
                    " stderr, returncode, started_at, seconds) VALUES (?,?,?,?,?,?,?,?,?,?)",
                    (
                        run_id,
                        repeat,
                        output.tool,
                        json.dumps(list(output.argv)),
                        output.input_text,
                        zlib.compress(output.stdout.encode()),
                        output.stderr,
                        output.returncode,
                        output.started_at,
                        output.seconds,
                    ),
                ).lastrowid
            for outcome in outcomes:  # a workload run again (resume) replaces its failure
                self.conn.execute(
                    "DELETE FROM workloads WHERE run_id = ? AND repeat = ? AND name = ?"
                    " AND status = 'failed'",
                    (run_id, repeat, outcome.name),
                )
            seq = self.conn.execute(
                "SELECT COUNT(*) FROM workloads WHERE run_id = ? AND repeat = ?", (run_id, repeat)
            ).fetchone()[0]
            for outcome in outcomes:
                wid = self.conn.execute(
                    "INSERT INTO workloads (run_id, repeat, seq, name, status, error, output_id)"
                    " VALUES (?,?,?,?,?,?,?)",
                    (
                        run_id,
                        repeat,
                        seq,
                        outcome.name,
                        "failed" if outcome.error else "ok",
                        outcome.error,
                        output_id,
                    ),
                ).lastrowid
                seq += 1
                assert wid is not None, "sqlite3 sets lastrowid after an INSERT"
                insert_results(self.conn, wid, outcome.results)

    def finish_run(
        self, run_id: int, status: RunStatus, error: str | None = None, ended_at: str | None = None
    ) -> None:
        """The run's final status; ``ended_at`` now, unless given (an imported run's own)."""
        with self.transaction():
            self.conn.execute(
                "UPDATE runs SET status = ?, ended_at = ?, error = ? WHERE id = ?",
                (status, ended_at or now(), error, run_id),
            )

    def set_tool_versions(self, run_id: int, versions: dict[str, str]) -> None:
        """The versions of the tools that ran the workloads where this machine's did not
        (fio in pods), found once the run's target was set up: they become the run's
        ``environment.tools``; this machine's differing ones stay as ``NAME (this machine)``."""
        with self.transaction():
            row = self.conn.execute(
                "SELECT environment FROM runs WHERE id = ?", (run_id,)
            ).fetchone()
            env = json.loads(row["environment"])
            tools = env.setdefault("tools", {})
            for name, version in versions.items():
                local = tools.get(name)
                if local is not None and local != version:
                    tools[f"{name} (this machine)"] = local
                tools[name] = version
            self.conn.execute(
                "UPDATE runs SET environment = ? WHERE id = ?", (json.dumps(env), run_id)
            )

    def reopen_run(self, run_id: int, environment: dict[str, Any]) -> None:
        """A stored run continues (``--resume``): running again, from this process; the
        environment it resumed in is kept beside the original."""
        with self.transaction():
            row = self.conn.execute(
                "SELECT environment FROM runs WHERE id = ?", (run_id,)
            ).fetchone()
            env = json.loads(row["environment"])
            env.setdefault("resumed", []).append(environment)
            self.conn.execute(
                "UPDATE runs SET status = 'running', ended_at = NULL, error = NULL, host = ?, pid = ?,"
                " environment = ? WHERE id = ?",
                (socket.gethostname(), os.getpid(), json.dumps(env), run_id),
            )

    def finish_schedule(
        self, run_id: int, summary: dict[str, dict], not_reached: Sequence[str]
    ) -> None:
        """Adaptive repeats: each workload's repeats and CI kept in the run's params, and the
        results of those that did not reach the target flagged ``ci_not_reached``."""
        with self.transaction():
            row = self.conn.execute("SELECT params FROM runs WHERE id = ?", (run_id,)).fetchone()
            params = {**json.loads(row["params"]), "adaptive": summary}
            self.conn.execute(
                "UPDATE runs SET params = ? WHERE id = ?", (json.dumps(params), run_id)
            )
            for name in not_reached:
                rows = self.conn.execute(
                    "SELECT r.id, r.flags FROM results r JOIN workloads w ON w.id = r.workload_id"
                    " WHERE w.run_id = ? AND w.name = ?",
                    (run_id, name),
                ).fetchall()
                for r in rows:
                    flags = json.loads(r["flags"])
                    if "ci_not_reached" not in flags:
                        self.conn.execute(
                            "UPDATE results SET flags = ? WHERE id = ?",
                            (json.dumps([*flags, "ci_not_reached"]), r["id"]),
                        )

    def add_resource(
        self, run_id: int | None, kind: str, name: str, detail: dict | None = None
    ) -> int:
        """Record something about to be created, before creating it."""
        with self.transaction():
            cur = self.conn.execute(
                "INSERT INTO resources (run_id, kind, name, detail, created_at) VALUES (?,?,?,?,?)",
                (run_id, kind, name, json.dumps(detail or {}), now()),
            )
        return _inserted_id(cur)

    def resource_removed(self, resource_id: int) -> None:
        with self.transaction():
            self.conn.execute(
                "UPDATE resources SET removed_at = ? WHERE id = ?", (now(), resource_id)
            )

    def open_resources(self) -> list[Resource]:
        """Resources created and not (yet) removed, oldest first."""
        rows = self.conn.execute("SELECT * FROM resources WHERE removed_at IS NULL ORDER BY id")
        return [
            Resource(r["id"], r["run_id"], r["kind"], r["name"], json.loads(r["detail"]))
            for r in rows
        ]

    def recover_interrupted(self) -> list[str]:
        """Mark runs and experiments left ``running`` by a dead process on this host as
        aborted; say which (:mod:`cephbench.store.recovery`)."""
        from cephbench.store.recovery import recover_interrupted

        return recover_interrupted(self)

    def save_fingerprint(self, run_id: int, data: dict[str, Any], pool: str | None = None) -> None:
        """The cluster a run measured (Ceph's own JSON), once per run."""
        with self.transaction():
            self.conn.execute(
                "INSERT OR REPLACE INTO cluster_fingerprints (run_id, collected_at, pool, data_z)"
                " VALUES (?,?,?,?)",
                (run_id, now(), pool, zlib.compress(json.dumps(data).encode())),
            )

    def add_series(self, run_id: int, series: Iterable[Series]) -> None:
        """Time series of a run, each stored as one compressed row: a workload's metric over
        time (numbers), or samples of the whole run (workload '', values JSON objects: health,
        drop_caches)."""
        from cephbench.store import timeseries

        with self.transaction():
            timeseries.insert(self.conn, run_id, series)

    # -- reading -----------------------------------------------------------------------
    def finished_workloads(self, run_id: int) -> int:
        return self.conn.execute(
            "SELECT COUNT(*) FROM workloads WHERE run_id = ? AND status = 'ok'", (run_id,)
        ).fetchone()[0]

    def resolve(self, ref: str | int) -> int:
        """A run id from ``ref``: a number, or ``last``."""
        if str(ref) == "last":
            row = self.conn.execute("SELECT MAX(id) FROM runs").fetchone()
            if row[0] is None:
                raise StoreError(f"no runs in {self.path} yet", hint="start one with cephbench run")
            return int(row[0])
        try:
            run_id = int(ref)
        except ValueError:
            raise UsageError(
                f"'{ref}' is not a run id", hint="give a number from `cephbench runs`, or 'last'"
            ) from None
        if self.conn.execute("SELECT 1 FROM runs WHERE id = ?", (run_id,)).fetchone() is None:
            raise StoreError(f"no run {run_id} in {self.path}", hint="`cephbench runs` lists them")
        return run_id

    def runs(self, status: RunStatus | None = None) -> list[StoredRun]:
        """Every run (with ``status`` only, when given: indexed), oldest first, no results."""
        where, args = ("WHERE status = ?", (status,)) if status else ("", ())
        rows = self.conn.execute(f"SELECT * FROM runs {where} ORDER BY id", args).fetchall()
        return [run_from_row(r) for r in rows]

    def get_run(self, ref: str | int) -> StoredRun:
        run_id = self.resolve(ref)
        row = self.conn.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
        results, failures = [], []
        for w in self.conn.execute(
            "SELECT * FROM workloads WHERE run_id = ? ORDER BY repeat, seq", (run_id,)
        ):
            if w["status"] == "failed":
                failures.append(Failure(w["name"], w["repeat"], w["error"] or "failed"))
                continue
            results.extend(workload_results(self.conn, w))
        run = run_from_row(row)
        return StoredRun(**{**run.__dict__, "results": tuple(results), "failures": tuple(failures)})

    def fingerprint(self, run_id: int) -> tuple[dict[str, Any], str | None] | None:
        """(Ceph JSON, pool) stored with the run, or None for a run on no Ceph cluster."""
        row = self.conn.execute(
            "SELECT pool, data_z FROM cluster_fingerprints WHERE run_id = ?", (run_id,)
        ).fetchone()
        return None if row is None else (json.loads(zlib.decompress(row["data_z"])), row["pool"])

    def series(self, run_id: int, metric: str | None = None) -> list[Series]:
        """The time series of a run (only ``metric``'s when given), in the order stored.
        Numbers come back as numpy float64 arrays; a series of records (health samples, cache
        drops) as tuples of the times and JSON values written, without importing numpy."""
        from cephbench.store import timeseries

        return timeseries.select(self.conn, run_id, metric)

    def output_workloads(self, run_id: int) -> dict[int, list[str]]:
        """Output id -> the workloads it produced, in their order (export keeps the link)."""
        out: dict[int, list[str]] = {}
        for w in self.conn.execute(
            "SELECT output_id, name FROM workloads WHERE run_id = ? AND output_id IS NOT NULL"
            " ORDER BY repeat, seq",
            (run_id,),
        ):
            out.setdefault(w["output_id"], []).append(w["name"])
        return out

    def outputs(self, run_id: int) -> list[dict[str, Any]]:
        """The raw tool outputs of a run, decompressed."""
        rows = self.conn.execute(
            "SELECT * FROM outputs WHERE run_id = ? ORDER BY id", (run_id,)
        ).fetchall()
        return [
            {
                **dict(r),
                "argv": json.loads(r["argv"]),
                "stdout": zlib.decompress(r["stdout_z"]).decode() if r["stdout_z"] else "",
            }
            for r in rows
        ]


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on error); inside another one, part of it."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    def __enter__(self):
        self.outer = self.conn.in_transaction
        if not self.outer:
            self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type, exc, tb):
        if not self.outer:
            self.conn.execute("ROLLBACK" if exc_type else "COMMIT")


def _inserted_id(cur: sqlite3.Cursor) -> int:
    """The id of the row the INSERT on ``cur`` made."""
    assert cur.lastrowid is not None, "sqlite3 sets lastrowid after an INSERT"
    return cur.lastrowid
