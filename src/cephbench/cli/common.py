"""What every command shares: consoles, option bundles, opening the store."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from rich.console import Console


class _LazyConsole:
    """A rich Console built on first use: `cephbench CMD --help` never imports rich (~15 ms)."""

    def __init__(self, **options: Any):
        self._options = options
        self._console: Any = None

    def get(self) -> Console:
        """The Console itself (where an API wants a real one)."""
        return self._get()

    def _get(self) -> Any:
        if self._console is None:
            from rich.console import Console

            self._console = Console(**self._options)
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self._get(), name)

    # `with console:` (rich's Live does it) looks these up on the class, not through __getattr__
    def __enter__(self) -> Any:
        return self._get().__enter__()

    def __exit__(self, *exc: Any) -> Any:
        return self._get().__exit__(*exc)


console = _LazyConsole(highlight=False)
# soft_wrap: one-line messages stay one line
console_err = _LazyConsole(stderr=True, highlight=False, soft_wrap=True)


def set_debug(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:
        ctx.find_root().meta["cephbench.debug"] = True


def debug_option(f: Callable) -> Callable:
    """``--debug`` on a subcommand too: ``cephbench run ... --debug``."""
    return click.option(
        "--debug",
        is_flag=True,
        callback=set_debug,
        expose_value=False,
        is_eager=True,
        help="Show full tracebacks instead of one-line errors.",
    )(f)


def db_option(f: Callable) -> Callable:
    """``--db PATH`` (or CEPHBENCH_DB); the command receives an open Store as ``store``."""

    @click.option(
        "--db",
        "db_path",
        type=click.Path(dir_okay=False),
        envvar="CEPHBENCH_DB",
        help="Result store (SQLite). Default: $XDG_DATA_HOME/cephbench/results.db.",
    )
    @debug_option
    @functools.wraps(f)
    def wrapper(*args: Any, db_path: str | None, **kwargs: Any) -> Any:
        from cephbench.store import Store, default_path  # sqlite3 and the model: not for --help

        with Store(db_path or default_path()) as store:
            for note in store.recover_interrupted():
                console_err.print(f"[yellow]note:[/] {note}")
            return f(*args, store=store, **kwargs)

    return wrapper


def one_ceph_connection(f: Callable) -> Callable:
    """The command's ``ceph`` commands go over one librados connection per cluster, not one
    ``ceph`` process each (:mod:`cephbench.ceph.link`): for the commands that make many."""

    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from cephbench.ceph.link import scope

        with scope():
            return f(*args, **kwargs)

    wrapper.one_ceph_connection = True  # type: ignore[attr-defined]
    return wrapper


def format_option(*choices: str, default: str = "table") -> Callable:
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(choices),
        default=default,
        show_default=True,
        help="Output format: " + ", ".join(choices) + ".",
    )


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2) + "\n")


def emit_table(table, fmt: str) -> None:
    """Print a report Table as Markdown (``md``) or as a rich table (``table``)."""
    from cephbench.tables.table import to_markdown, to_rich

    if fmt == "md":
        click.echo(to_markdown(table), nl=False)
    else:
        console.print(to_rich(table, console.width))
