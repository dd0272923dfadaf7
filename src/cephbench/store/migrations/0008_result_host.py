"""Version 8: the results table without its ``UNIQUE (workload_id, op)``, which allowed one
result per direction: a run from many clients stores each client's too, told apart by their
``host`` (unique per workload, direction and host instead).

SQLite cannot drop a constraint, so the table is made again from its own stored definition
(every column any migration added kept, in its order), its rows copied as they are, and
its indexes made again as they were.
"""

from __future__ import annotations

import re
import sqlite3

_UNIQUE = re.compile(r",(\s*--[^\n]*)?\s*UNIQUE \(workload_id, op\)\s*\)\s*$")


def upgrade(conn: sqlite3.Connection) -> None:
    (sql,) = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'results'").fetchone()
    table, n = _UNIQUE.subn(lambda m: f"{m.group(1) or ''}\n)", sql)
    if n != 1:
        raise RuntimeError("the results table is not as version 7 left it")
    indexes = [
        sql
        for (sql,) in conn.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'results'"
            " AND sql IS NOT NULL"
        )
    ]
    conn.execute(table.replace("CREATE TABLE results", "CREATE TABLE results_v8", 1))
    conn.execute("INSERT INTO results_v8 SELECT * FROM results")
    conn.execute("DROP TABLE results")
    conn.execute("ALTER TABLE results_v8 RENAME TO results")
    for sql in indexes:
        conn.execute(sql)
    conn.execute(
        "CREATE UNIQUE INDEX results_one_per_host ON results (workload_id, op, COALESCE(host, ''))"
    )
