"""Picking runs from the store: filters and paging done by SQLite, never in Python.

A store lasts for years and gathers thousands of runs; listing the latest twenty, or every
nightly run of the last month, must cost what those runs cost, not what the store holds. So a
:class:`RunFilter` becomes one ``WHERE`` clause (label, suite, target, status, start time) and
``ORDER BY id DESC LIMIT ... OFFSET ...``; the number of matching runs is one ``COUNT(*)`` of
the same clause. Run ids grow with time (a run is stored when it starts), so "latest" is the
highest id.

Label, suite and target match exactly, or as a shell-style pattern when they hold ``*``, ``?``
or ``[`` (SQLite's ``GLOB``: case-sensitive, as the names are). ``--since`` takes an ISO date or
time (UTC unless it names its offset) or an age such as ``30d``, ``12h``, ``2w``.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from cephbench.errors import UsageError
from cephbench.model import StoredRun
from cephbench.store.rows import run_from_row

AGE_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


@dataclass(frozen=True)
class RunFilter:
    """Which runs, and how many of the latest of them (``last=None``: all)."""

    label: str | None = None
    suite: str | None = None
    target: str | None = None
    since: str | None = None
    """ISO 8601 UTC time, as ``started_at`` is stored (see :func:`parse_since`)."""
    status: tuple[str, ...] = ()
    last: int | None = None
    offset: int = 0
    """Skip this many of the latest matching runs first (the page before)."""

    @property
    def narrows(self) -> bool:
        """Whether any condition on the runs is set (not only how many)."""
        return any((self.label, self.suite, self.target, self.since, self.status))

    def where(self) -> tuple[str, list[str]]:
        """The SQL condition on ``runs`` (``1`` when none) and its parameters."""
        terms: list[str] = []
        args: list[str] = []
        for column in ("label", "suite", "target"):
            value = getattr(self, column)
            if value is not None:
                terms.append(f"{column} {'GLOB' if _is_pattern(value) else '='} ?")
                args.append(value)
        if self.since is not None:
            terms.append("started_at >= ?")
            args.append(self.since)
        if self.status:
            terms.append(f"status IN ({', '.join('?' * len(self.status))})")
            args.extend(self.status)
        return (" AND ".join(terms) or "1"), args

    def describe(self) -> str:
        """The conditions in words, for messages: ``label nightly, since 2024-05-01...``."""
        parts = [
            f"{name} {value}"
            for name, value in (
                ("label", self.label),
                ("suite", self.suite),
                ("target", self.target),
                ("since", self.since),
            )
            if value is not None
        ]
        if self.status:
            parts.append("status " + "/".join(self.status))
        return ", ".join(parts)


@dataclass(frozen=True)
class Page:
    """Runs picked by a filter, oldest first, and how many match in all."""

    runs: list[StoredRun]
    total: int
    offset: int

    @property
    def more(self) -> bool:
        """Whether matching runs were left out."""
        return len(self.runs) < self.total


def count(conn: sqlite3.Connection, f: RunFilter) -> int:
    where, args = f.where()
    return conn.execute(f"SELECT COUNT(*) FROM runs WHERE {where}", args).fetchone()[0]


def run_ids(conn: sqlite3.Connection, f: RunFilter) -> list[int]:
    """The ids of the runs ``f`` picks, oldest first."""
    where, args = f.where()
    limit = -1 if f.last is None else f.last  # SQLite: a negative LIMIT is no limit
    rows = conn.execute(
        f"SELECT id FROM runs WHERE {where} ORDER BY id DESC LIMIT ? OFFSET ?",
        [*args, limit, f.offset],
    ).fetchall()
    return [r[0] for r in reversed(rows)]


def page(conn: sqlite3.Connection, f: RunFilter) -> Page:
    """The runs ``f`` picks (without results: cheap), oldest first, and the number matching."""
    where, args = f.where()
    limit = -1 if f.last is None else f.last
    rows = conn.execute(
        f"SELECT * FROM runs WHERE {where} ORDER BY id DESC LIMIT ? OFFSET ?",
        [*args, limit, f.offset],
    ).fetchall()
    runs = [run_from_row(r) for r in reversed(rows)]
    total = len(runs) if f.last is None and f.offset == 0 else count(conn, f)
    return Page(runs, total, f.offset)


def distinct(
    conn: sqlite3.Connection, column: str, prefix: str = "", limit: int = 200
) -> list[str]:
    """Values of ``column`` (label, suite or target) starting with ``prefix``, most recently
    used first: what shell completion offers. Reads the newest runs only (at most 5,000), so
    it stays quick on any store."""
    if column not in ("label", "suite", "target"):
        raise ValueError(f"no completion for runs.{column}")
    rows = conn.execute(
        f"SELECT {column} FROM (SELECT {column}, id FROM runs ORDER BY id DESC LIMIT 5000)"
        f" WHERE {column} IS NOT NULL AND substr({column}, 1, ?) = ?"
        f" GROUP BY {column} ORDER BY MAX(id) DESC LIMIT ?",
        (len(prefix), prefix, limit),
    ).fetchall()
    return [r[0] for r in rows]


def parse_since(text: str, now: datetime | None = None) -> str:
    """``2024-05-01``, ``2024-05-01T10:00``, ``2024-05-01T10:00+02:00`` or an age (``30d``,
    ``12h``, ``90m``, ``2w``) -> the UTC time runs must have started at or after, formatted as
    ``started_at`` is stored (``2024-05-01T00:00:00+00:00``), so SQLite compares text."""
    value = text.strip()
    m = re.fullmatch(r"(\d+)\s*([mhdw])", value)
    if m:
        moment = (now or datetime.now(UTC)) - timedelta(**{AGE_UNITS[m[2]]: int(m[1])})
    else:
        try:
            if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
                moment = datetime.combine(date.fromisoformat(value), datetime.min.time())
            else:
                moment = datetime.fromisoformat(value)
        except ValueError:
            raise UsageError(
                f"'{text}' is neither a date nor an age",
                hint="give an ISO date or time (2024-05-01, 2024-05-01T10:00) or an age "
                "(30d, 12h, 2w, 90m)",
            ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="seconds")


def _is_pattern(value: str) -> bool:
    return any(c in value for c in "*?[")
