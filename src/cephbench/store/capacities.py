"""Capacity searches in the store (``capacities``): what was asked, every step as it ran
(each an ordinary run), what the search noted, and how it ended."""

from __future__ import annotations

import json
import os
import socket
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cephbench.errors import StoreError
from cephbench.model import now

if TYPE_CHECKING:
    from cephbench.store import Store


@dataclass(frozen=True)
class StoredCapacity:
    id: int
    status: str
    started_at: str
    ended_at: str | None
    target: str | None
    spec: dict[str, Any]
    steps: list[dict[str, Any]]
    notes: list[str]
    error: str | None
    cross_check: dict[str, Any] | None = None


def start(store: Store, target: str | None, spec: dict[str, Any]) -> int:
    with store.transaction():
        cur = store.conn.execute(
            "INSERT INTO capacities (status, started_at, host, pid, target, spec)"
            " VALUES ('running', ?, ?, ?, ?, ?)",
            (now(), socket.gethostname(), os.getpid(), target, json.dumps(spec)),
        )
    assert cur.lastrowid is not None
    return cur.lastrowid


def _append(store: Store, cap_id: int, column: str, item: Any) -> None:
    with store.transaction():
        row = store.conn.execute(
            f"SELECT {column} FROM capacities WHERE id = ?", (cap_id,)
        ).fetchone()
        items = json.loads(row[0])
        items.append(item)
        store.conn.execute(
            f"UPDATE capacities SET {column} = ? WHERE id = ?", (json.dumps(items), cap_id)
        )


def add_step(store: Store, cap_id: int, step: dict[str, Any]) -> None:
    """Append a step as it finishes (a stopped search keeps every step it measured)."""
    _append(store, cap_id, "steps", step)


def add_note(store: Store, cap_id: int, note: str) -> None:
    _append(store, cap_id, "notes", note)


def set_cross_check(store: Store, cap_id: int, found: dict[str, Any]) -> None:
    """What fio's latency_target mode found after the search (``--cross-check``)."""
    with store.transaction():
        store.conn.execute(
            "UPDATE capacities SET cross_check = ? WHERE id = ?", (json.dumps(found), cap_id)
        )


def finish(store: Store, cap_id: int, status: str, error: str | None = None) -> None:
    with store.transaction():
        store.conn.execute(
            "UPDATE capacities SET status = ?, ended_at = ?, error = ? WHERE id = ?",
            (status, now(), error, cap_id),
        )


def get(store: Store, cap_id: int) -> StoredCapacity:
    row = store.conn.execute("SELECT * FROM capacities WHERE id = ?", (cap_id,)).fetchone()
    if row is None:
        raise StoreError(f"no capacity search {cap_id} in {store.path}")
    return StoredCapacity(
        row["id"],
        row["status"],
        row["started_at"],
        row["ended_at"],
        row["target"],
        json.loads(row["spec"]),
        json.loads(row["steps"]),
        json.loads(row["notes"]),
        row["error"],
        json.loads(row["cross_check"]) if row["cross_check"] else None,
    )


def last_id(store: Store) -> int | None:
    row = store.conn.execute("SELECT max(id) FROM capacities").fetchone()
    return row[0]


def recover_interrupted(store: Store) -> list[str]:
    """Mark searches left ``running`` by a dead process on this host as aborted."""
    from cephbench.store.recovery import dead_ids

    notes = []
    for cap_id in dead_ids(store, "capacities"):
        finish(store, cap_id, "aborted", "the process running it stopped unexpectedly")
        notes.append(f"capacity search {cap_id} was interrupted; marked aborted")
    return notes
