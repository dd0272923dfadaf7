"""Runs, A/B experiments, capacity searches and tunes a dead process left ``running``: found on the next open of the
store, marked aborted, and said so (with what ``cephbench cleanup`` still has to undo)."""

from __future__ import annotations

import socket
from typing import TYPE_CHECKING

from cephbench.system.pids import exists

if TYPE_CHECKING:
    from cephbench.store import Store


def dead_ids(store: Store, table: str) -> list[int]:
    """Rows of ``table`` (runs, ab_experiments) left ``running`` on this host by a process
    that is gone; a live process's are in use."""
    rows = store.conn.execute(
        f"SELECT id, pid FROM {table} WHERE status = 'running' AND host = ?",
        (socket.gethostname(),),
    ).fetchall()
    return [row["id"] for row in rows if not (row["pid"] and exists(row["pid"]))]


def recover_interrupted(store: Store) -> list[str]:
    """Mark runs, experiments, searches and tunes left ``running`` by a dead process on this
    host as aborted; say which."""
    notes = []
    dead = dead_ids(store, "runs")
    for run_id in dead:
        store.finish_run(run_id, "aborted", "the process running it stopped unexpectedly")
        done = store.finished_workloads(run_id)
        notes.append(
            f"run {run_id} was interrupted; marked aborted with {done} finished workload(s) kept"
        )
    left = [r for r in store.open_resources() if r.run_id in dead]  # not a live run's
    if left:
        notes.append(
            f"{len(left)} thing(s) an interrupted run created are left; `cephbench cleanup` removes them"
        )
    from cephbench.store import capacities, experiments, tunings  # A/B, searches, tunes likewise

    return (
        notes
        + experiments.recover_interrupted(store)
        + capacities.recover_interrupted(store)
        + tunings.recover_interrupted(store)
    )
