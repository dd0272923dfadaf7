"""Shell completion of what lives in the store: run ids, labels, suites, targets.

Click calls these while the user presses TAB, in a fresh process each time, so they must be
quick and harmless: the store is opened read-only (never created, never migrated), only the
newest runs are read, and any problem (no store yet, an old or foreign file) completes nothing
rather than printing an error into the user's command line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:  # these load on a TAB, not with every `CMD --help`
    import sqlite3

    from click.shell_completion import CompletionItem

RUN_IDS = 50
"""The most run ids offered at once (the latest that match what was typed)."""


@contextmanager
def _read_only(ctx: click.Context) -> Iterator[sqlite3.Connection | None]:
    """The store the command would use (``--db``, ``CEPHBENCH_DB``, the default), read-only;
    None when there is none."""
    import sqlite3

    from cephbench.store import default_path

    path = ctx.params.get("db_path") or default_path()
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1)
    except sqlite3.Error:
        yield None
        return
    try:
        yield conn
    finally:
        conn.close()


def complete_run_ref(
    ctx: click.Context, param: click.Parameter, incomplete: str
) -> list[CompletionItem]:
    """``last`` and the ids of the latest runs starting with what was typed, each with its
    label, suite and start time as help."""
    import sqlite3

    from click.shell_completion import CompletionItem

    items = [CompletionItem("last", help="the latest run")] if "last".startswith(incomplete) else []
    if incomplete and not incomplete.isdigit():
        return items
    with _read_only(ctx) as conn:
        if conn is None:
            return items
        try:
            rows = conn.execute(
                "SELECT id, label, suite, started_at FROM runs"
                " WHERE CAST(id AS TEXT) LIKE ? ORDER BY id DESC LIMIT ?",
                (f"{incomplete}%", RUN_IDS),
            ).fetchall()
        except sqlite3.Error:
            return items
    for run_id, label, suite, started in rows:
        about = " ".join(x for x in (label, suite, (started or "")[:16]) if x)
        items.append(CompletionItem(str(run_id), help=about))
    return items


def complete_column(column: str) -> Callable[..., list[CompletionItem]]:
    """A completion callback offering the stored values of ``runs.<column>`` (label, suite or
    target) starting with what was typed, most recently used first."""

    def complete(
        ctx: click.Context, param: click.Parameter, incomplete: str
    ) -> list[CompletionItem]:
        import sqlite3

        from click.shell_completion import CompletionItem

        from cephbench.store.query import distinct

        with _read_only(ctx) as conn:
            if conn is None:
                return []
            try:
                return [CompletionItem(v) for v in distinct(conn, column, incomplete)]
            except sqlite3.Error:
                return []

    return complete


def complete_suite(
    ctx: click.Context, param: click.Parameter, incomplete: str
) -> list[CompletionItem]:
    """The built-in suites (fio's YAML ones and the tools' fixed ones) starting with what was
    typed, and files: a suite can also be a .yaml file or a fio job file."""
    from pathlib import Path

    from click.shell_completion import CompletionItem

    names: list[str] = []
    try:
        from importlib.util import find_spec

        spec = find_spec("cephbench.tools.fio.suites")  # located, not imported (YAML, pydantic)
        for directory in (spec.submodule_search_locations or []) if spec else []:
            names += [p.stem for p in Path(directory).glob("*.yaml")]
        from cephbench import tools

        names += list(tools.fixed_suites())
    except Exception:  # a broken plugin must not break the user's command line
        pass
    items = [CompletionItem(n) for n in sorted(set(names)) if n.startswith(incomplete)]
    return [*items, CompletionItem(incomplete, type="file")]
