"""Numbered migrations: ``migrations/NNNN_name.sql``, applied in order, tracked by user_version."""

from __future__ import annotations

import sqlite3
from importlib import resources

from cephbench.errors import StoreError


def migrations() -> list[tuple[int, str, str]]:
    """(version, file name, SQL) for every shipped migration, in order."""
    found = []
    for entry in resources.files(__package__).joinpath("migrations").iterdir():
        if entry.name.endswith(".sql"):
            found.append((int(entry.name.split("_", 1)[0]), entry.name, entry.read_text()))
    return sorted(found)


def latest_version() -> int:
    return migrations()[-1][0]


def migrate(conn: sqlite3.Connection, path: str) -> int:
    """Bring the schema to the latest version; refuse a store written by a newer cephbench."""
    latest = latest_version()
    for version, name, sql in migrations():
        # the version is read inside the write lock: two processes opening a new store at
        # once must not both apply the same migration
        conn.execute("BEGIN IMMEDIATE")
        current = conn.execute("PRAGMA user_version").fetchone()[0]
        if current > latest:
            conn.execute("ROLLBACK")
            raise StoreError(
                f"{path} has schema version {current}, newer than this cephbench knows ({latest})",
                hint="upgrade cephbench, or use another store with --db",
            )
        if version <= current:
            conn.execute("COMMIT")
            continue
        try:
            # executescript would commit on its own; run statement by statement in one transaction
            for statement in _statements(sql):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {version}")
            conn.execute("COMMIT")
        except sqlite3.Error as e:
            conn.execute("ROLLBACK")
            raise StoreError(f"migration {name} failed on {path}: {e}") from e
    return latest


def _statements(sql: str) -> list[str]:
    lines = [ln for ln in sql.splitlines() if not ln.strip().startswith("--")]
    buf, out = [], []
    for ln in lines:
        buf.append(ln)
        if sqlite3.complete_statement("\n".join(buf)):
            out.append("\n".join(buf).strip())
            buf = []
    return [s for s in out if s]
