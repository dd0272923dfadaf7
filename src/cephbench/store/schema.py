"""Numbered migrations: ``migrations/NNNN_name.sql``, with an optional ``NNNN_name.py`` of the
same name for what SQL cannot do, applied in order and tracked by ``PRAGMA user_version``.

Every pending migration runs in one transaction: a store is upgraded to the latest version or,
when any step fails, left exactly as it was. A migration's Python module may define

- ``FUNCTIONS``: {name: function}, SQL functions its SQL calls (SQLite has no zlib, nor a way to
  write a REAL as its 8 bytes); registered on the connection before the SQL runs;
- ``upgrade(conn)``: run after the SQL, inside the same transaction (it must not commit).

Python modules are loaded only when their migration is applied, so opening an up-to-date store
imports nothing more.
"""

from __future__ import annotations

import importlib.util
import inspect
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from cephbench.errors import StoreError

MIGRATIONS = Path(__file__).with_name("migrations")


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    """The file name without its suffix, e.g. ``0005_one_timeseries``."""
    sql: Path | None
    py: Path | None

    def apply(self, conn: sqlite3.Connection) -> None:
        """Run it inside the caller's transaction."""
        module = _load(self.py) if self.py else None
        for fname, fn in getattr(module, "FUNCTIONS", {}).items():
            nargs = len(inspect.signature(fn).parameters)
            conn.create_function(fname, nargs, fn, deterministic=True)
        if self.sql:
            # executescript would commit on its own; run statement by statement
            for statement in _statements(self.sql.read_text()):
                conn.execute(statement)
        if module is not None and hasattr(module, "upgrade"):
            module.upgrade(conn)


def migrations(directory: Path | None = None) -> list[Migration]:
    """Every migration in ``directory`` (the shipped ones by default), in order; a number used
    by two names is refused."""
    found: dict[int, dict[str, Path]] = {}
    names: dict[int, str] = {}
    for entry in (directory or MIGRATIONS).iterdir():
        if entry.suffix not in (".sql", ".py") or not entry.name[:1].isdigit():
            continue
        version = int(entry.stem.split("_", 1)[0])
        if names.setdefault(version, entry.stem) != entry.stem:
            raise RuntimeError(f"two migrations numbered {version}: {names[version]}, {entry.stem}")
        found.setdefault(version, {})[entry.suffix] = entry
    return [
        Migration(v, names[v], found[v].get(".sql"), found[v].get(".py")) for v in sorted(found)
    ]


def latest_version(directory: Path | None = None) -> int:
    return migrations(directory)[-1].version


def migrate(conn: sqlite3.Connection, path: str, directory: Path | None = None) -> int:
    """Bring the schema to the latest version, all or nothing; refuse a store written by a
    newer cephbench."""
    steps = migrations(directory)
    latest = steps[-1].version
    if _version(conn, path, latest) == latest:
        return latest
    # the version is read again inside the write lock: two processes opening an old or new
    # store at once must not both apply the same migrations
    conn.execute("BEGIN IMMEDIATE")
    try:
        current = _version(conn, path, latest)
        for step in steps:
            if step.version > current:
                try:
                    step.apply(conn)
                except Exception as e:
                    raise StoreError(
                        f"cannot upgrade {path} from schema version {current} to {latest}: "
                        f"migration {step.name} failed: {e}",
                        hint=f"the store is unchanged (still version {current}); use the cephbench "
                        "that wrote it, or keep a copy and report the error",
                    ) from e
        conn.execute(f"PRAGMA user_version = {latest}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:  # some errors (disk full, I/O) have already rolled it back
            conn.execute("ROLLBACK")
        raise
    return latest


def _version(conn: sqlite3.Connection, path: str, latest: int) -> int:
    current = conn.execute("PRAGMA user_version").fetchone()[0]
    if current > latest:
        raise StoreError(
            f"{path} has schema version {current}, newer than this cephbench knows ({latest})",
            hint="upgrade cephbench, or use another store with --db",
        )
    return current


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"cephbench_migration_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _statements(sql: str) -> list[str]:
    lines = [ln for ln in sql.splitlines() if not ln.strip().startswith("--")]
    buf, out = [], []
    for ln in lines:
        buf.append(ln)
        if sqlite3.complete_statement("\n".join(buf)):
            out.append("\n".join(buf).strip())
            buf = []
    return [s for s in out if s]
