"""A/B experiments in the store (``ab_experiments``): the sides, the rounds in the order they
ran (each an ordinary run), and the changes applied and reverted."""

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
class Experiment:
    id: int
    suite: str
    status: str
    started_at: str
    ended_at: str | None
    spec: dict[str, Any]
    rounds: list[dict[str, Any]]
    log: dict[str, Any]
    error: str | None
    pid: int
    host: str


def start(store: Store, suite: str, spec: dict[str, Any]) -> int:
    with store.transaction():
        cur = store.conn.execute(
            "INSERT INTO ab_experiments (suite, status, started_at, host, pid, spec)"
            " VALUES (?, 'running', ?, ?, ?, ?)",
            (suite, now(), socket.gethostname(), os.getpid(), json.dumps(spec)),
        )
    assert cur.lastrowid is not None
    return cur.lastrowid


def add_round(store: Store, exp_id: int, side: str, run_id: int) -> None:
    """Append a round (as it finishes, so a stopped experiment keeps its order)."""
    with store.transaction():
        rounds = json.loads(
            store.conn.execute(
                "SELECT rounds FROM ab_experiments WHERE id = ?", (exp_id,)
            ).fetchone()[0]
        )
        rounds.append({"round": len(rounds) + 1, "side": side, "run_id": run_id})
        store.conn.execute(
            "UPDATE ab_experiments SET rounds = ? WHERE id = ?", (json.dumps(rounds), exp_id)
        )


def save_log(store: Store, exp_id: int, log: dict[str, Any]) -> None:
    with store.transaction():
        store.conn.execute(
            "UPDATE ab_experiments SET log = ? WHERE id = ?", (json.dumps(log), exp_id)
        )


def finish(store: Store, exp_id: int, status: str, error: str | None = None) -> None:
    with store.transaction():
        store.conn.execute(
            "UPDATE ab_experiments SET status = ?, ended_at = ?, error = ? WHERE id = ?",
            (status, now(), error, exp_id),
        )


def get(store: Store, exp_id: int) -> Experiment:
    row = store.conn.execute("SELECT * FROM ab_experiments WHERE id = ?", (exp_id,)).fetchone()
    if row is None:
        raise StoreError(f"no A/B experiment {exp_id} in {store.path}")
    return Experiment(
        row["id"],
        row["suite"],
        row["status"],
        row["started_at"],
        row["ended_at"],
        json.loads(row["spec"]),
        json.loads(row["rounds"]),
        json.loads(row["log"]),
        row["error"],
        row["pid"],
        row["host"],
    )


def recover_interrupted(store: Store) -> list[str]:
    """Mark experiments left ``running`` by a dead process on this host as aborted (as runs
    are: :mod:`cephbench.store.recovery`); say which, and whether settings wait for
    ``cephbench cleanup``."""
    from cephbench.store.recovery import dead_ids

    notes = []
    for experiment in dead_ids(store, "ab_experiments"):
        finish(store, experiment, "aborted", "the process running it stopped unexpectedly")
        left = [
            r
            for r in store.open_resources()
            if (r.detail.get("owner") or {}).get("experiment") == experiment
        ]
        again = f"; `cephbench cleanup` puts back {len(left)} setting(s) it changed" if left else ""
        notes.append(f"A/B experiment {experiment} was interrupted; marked aborted{again}")
    return notes
