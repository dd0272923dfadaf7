"""Tunes in the store (``tunings``): the document of each (its findings, candidates and
attempts, each attempt an A/B experiment of ``ab_experiments``), and the changes ``--keep``
left in place with what restores each, for ``cephbench tune revert``."""

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
class Tuning:
    id: int
    status: str
    started_at: str
    ended_at: str | None
    doc: dict[str, Any]
    kept: list[dict[str, Any]]
    error: str | None


def start(store: Store) -> int:
    with store.transaction():
        cur = store.conn.execute(
            "INSERT INTO tunings (status, started_at, host, pid) VALUES ('running', ?, ?, ?)",
            (now(), socket.gethostname(), os.getpid()),
        )
    assert cur.lastrowid is not None
    return cur.lastrowid


def save(store: Store, tune_id: int, doc: dict[str, Any]) -> None:
    with store.transaction():
        store.conn.execute("UPDATE tunings SET doc = ? WHERE id = ?", (json.dumps(doc), tune_id))


def save_kept(store: Store, tune_id: int, kept: list[dict[str, Any]]) -> None:
    with store.transaction():
        store.conn.execute("UPDATE tunings SET kept = ? WHERE id = ?", (json.dumps(kept), tune_id))


def finish(store: Store, tune_id: int, status: str, error: str | None = None) -> None:
    with store.transaction():
        store.conn.execute(
            "UPDATE tunings SET status = ?, ended_at = ?, error = ? WHERE id = ?",
            (status, now(), error, tune_id),
        )


def get(store: Store, tune_id: int) -> Tuning:
    row = store.conn.execute("SELECT * FROM tunings WHERE id = ?", (tune_id,)).fetchone()
    if row is None:
        raise StoreError(f"no tune {tune_id} in {store.path}", hint="cephbench tune --help")
    return Tuning(
        row["id"],
        row["status"],
        row["started_at"],
        row["ended_at"],
        json.loads(row["doc"]),
        json.loads(row["kept"]),
        row["error"],
    )


def recover_interrupted(store: Store) -> list[str]:
    """Mark tunes left ``running`` by a dead process on this host as aborted (the settings
    its attempts changed are their experiments' records, which ``cephbench cleanup`` puts
    back)."""
    from cephbench.store.recovery import dead_ids

    notes = []
    for tune_id in dead_ids(store, "tunings"):
        finish(store, tune_id, "aborted", "the process running it stopped unexpectedly")
        notes.append(f"tune {tune_id} was interrupted; marked aborted")
    return notes
