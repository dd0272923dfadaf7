"""Click option bundles: a group of options that a command receives as one typed value,
and shows under its own heading in ``--help``.

``cephbench run`` has some forty options; a bundle keeps the flags of one concern (steady
state, Ceph connection...) next to the code that turns their values into the dataclass the
rest of cephbench works with (``cephbench.planning.request``). The flags, defaults and help
texts are the command line's; the dataclasses and their stored JSON do not depend on them.

This module holds the machinery and the run-picking filters of ``runs``, ``compare`` and
``report``; ``run``'s own bundles are :mod:`cephbench.cli.run_options`'s.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import click

from cephbench.cli.complete import complete_column

OTHER = "Other options"


class SectionOption(click.Option):
    """An option that ``--help`` lists under ``section``."""

    def __init__(self, *args: Any, section: str | None = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.section = section


class SectionedCommand(click.Command):
    """A command whose ``--help`` lists options by section, sections in the order their first
    option appears; options of no section come under "Other options"."""

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        sections: dict[str, list[tuple[str, str]]] = {}
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is not None and not isinstance(param, click.Argument):
                sections.setdefault(getattr(param, "section", None) or OTHER, []).append(record)
        for title, records in sections.items():
            with formatter.section(title):
                formatter.write_dl(records)


def opt(*decls: str, **attrs: Any) -> tuple[tuple[str, ...], dict[str, Any]]:
    """One option of a bundle: ``click.option``'s arguments."""
    return decls, attrs


class Bundle:
    """A decorator adding ``options`` under ``section``. The command receives
    ``build(**their values)`` as the keyword argument ``key``; without ``build``, the values
    themselves as keyword arguments."""

    def __init__(
        self,
        section: str,
        options: list[tuple[tuple[str, ...], dict[str, Any]]],
        key: str | None = None,
        build: Callable[..., Any] | None = None,
    ):
        self.section, self.options, self.key, self.build = section, options, key, build

    def __call__(self, f: Callable) -> Callable:
        names: list[str] = []

        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            values = {name: kwargs.pop(name) for name in names}
            if self.build is None or self.key is None:
                return f(*args, **values, **kwargs)
            return f(*args, **{self.key: self.build(**values)}, **kwargs)

        for decls, attrs in reversed(self.options):
            add = click.option(*decls, cls=SectionOption, section=self.section, **attrs)
            wrapper = add(wrapper)
        params = wrapper.__click_params__  # type: ignore[attr-defined]  # click's decorator store
        names.extend(p.name for p in params[-len(self.options) :])
        return wrapper


def _run_filter(default_last: int | None) -> Callable[..., Any]:
    """The build function of a run-picking bundle: the options' values -> a RunFilter."""

    def build(
        last: int | None,
        all_runs: bool,
        offset: int,
        label: str | None,
        suite: str | None,
        target: str | None,
        since: str | None,
        status: tuple[str, ...],
    ) -> Any:
        from cephbench.errors import UsageError
        from cephbench.store.query import RunFilter, parse_since

        if all_runs and last is not None:
            raise UsageError("--all and --last both say how many runs", hint="give one of them")
        return RunFilter(
            label=label,
            suite=suite,
            target=target,
            since=None if since is None else parse_since(since),
            status=status,
            last=None if all_runs else (last if last is not None else default_last),
            offset=offset,
        )

    return build


def _run_filter_options(how_many: str) -> list[tuple[tuple[str, ...], dict[str, Any]]]:
    return [
        opt("--last", type=click.IntRange(1), metavar="N", help=f"The latest N runs {how_many}."),
        opt("--all", "all_runs", is_flag=True, help="Every matching run."),
        opt(
            "--offset",
            type=click.IntRange(0),
            default=0,
            metavar="N",
            help="Skip the N latest matching runs first (with --last: the page before).",
        ),
        opt(
            "--label",
            metavar="LABEL",
            shell_complete=complete_column("label"),
            help="Runs with this label (a pattern with * or ? matches several).",
        ),
        opt(
            "--suite",
            metavar="SUITE",
            shell_complete=complete_column("suite"),
            help="Runs of this suite (a pattern with * or ? matches several).",
        ),
        opt(
            "--target",
            metavar="TARGET",
            shell_complete=complete_column("target"),
            help="Runs on this target, e.g. rbd:lab or 'file:*' (patterns as for --label).",
        ),
        opt(
            "--since",
            metavar="DATE|AGE",
            help="Runs started at or after DATE (2024-05-01, 2024-05-01T10:00; UTC unless it "
            "says) or within AGE (30d, 12h, 2w, 90m).",
        ),
        opt(
            "--status",
            type=click.Choice(("running", "complete", "failed", "aborted")),
            multiple=True,
            help="Runs in this state; repeat the option for several.",
        ),
    ]


listing_filter = Bundle(
    "Which runs",
    _run_filter_options("(default: 20)"),
    "run_filter",
    _run_filter(20),
)
"""``cephbench runs``: the filters, and the latest 20 unless --last or --all says otherwise."""

picking_filter = Bundle(
    "Pick runs by filter (after any RUN given)",
    _run_filter_options("(default: every matching run)"),
    "run_filter",
    _run_filter(None),
)
"""``compare`` and ``report``: the same filters; every matching run unless --last says."""
