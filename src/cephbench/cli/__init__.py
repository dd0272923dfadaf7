"""The ``cephbench`` command line: a group whose commands live one per module.

Built-in commands are registered exactly like plugins: a name mapped to ``module:attribute``,
imported only when used. Third-party packages add commands through the
``cephbench.commands`` entry-point group.
"""

from __future__ import annotations

import importlib
import signal
import sys
from importlib.metadata import entry_points

import click
from rich.markup import escape

from cephbench import __version__
from cephbench.cli.common import console_err, set_debug
from cephbench.errors import CephbenchError, ExitStatus, Interrupted

BUILTIN_COMMANDS: dict[str, str] = {
    "run": "cephbench.cli.run:run",
    "runs": "cephbench.cli.runs:runs",
    "show": "cephbench.cli.show:show",
    "suites": "cephbench.cli.suites:suites",
    "cleanup": "cephbench.cli.cleanup:cleanup",
    "import": "cephbench.cli.import_:import_",
    "export": "cephbench.cli.export:export",
    "compare": "cephbench.cli.compare:compare",
    "report": "cephbench.cli.report:report",
    "lab": "cephbench.cli.lab:lab",
}


def _all_commands() -> dict[str, str]:
    commands = dict(BUILTIN_COMMANDS)
    for ep in entry_points(group="cephbench.commands"):
        commands.setdefault(ep.name, ep.value)
    return commands


class CephbenchGroup(click.Group):
    """Lazy command loading, and the one place errors become messages and exit codes."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_all_commands())

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = _all_commands().get(cmd_name)
        if target is None:
            return None
        module_name, attr = target.split(":")
        return getattr(importlib.import_module(module_name), attr)

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except (CephbenchError, Interrupted) as e:
            if ctx.meta.get("cephbench.debug"):
                raise
            prefix = "Interrupted" if isinstance(e, Interrupted) else "Error"
            # soft_wrap: a path in a message stays on one line, whatever the terminal width
            console_err.print(f"[bold red]{prefix}:[/] {escape(e.message)}", soft_wrap=True)
            if e.hint:
                console_err.print(f"  {escape(e.hint)}", soft_wrap=True)
            ctx.exit(int(e.exit_status))
        except KeyboardInterrupt:
            if ctx.meta.get("cephbench.debug"):
                raise
            console_err.print("Interrupted.")
            ctx.exit(int(ExitStatus.INTERRUPTED))


def _raise_keyboard_interrupt(signum, frame):
    raise KeyboardInterrupt


@click.group(cls=CephbenchGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="cephbench")
@click.option(
    "--debug", is_flag=True, envvar="CEPHBENCH_DEBUG", callback=set_debug, expose_value=False,
    is_eager=True, help="Show full tracebacks instead of one-line errors.",
)
def cli() -> None:
    """Benchmark Ceph and block storage with fio, keep every result, compare them.

    Start with `cephbench suites`, then `cephbench run quick --target file:/tmp`.
    """


def main() -> None:
    # Ctrl-C and SIGTERM take the same clean-up path: nothing left behind either way. SIGINT
    # is set explicitly: a shell starts background jobs with it ignored, and `kill -INT`
    # must still stop a run cleanly.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _raise_keyboard_interrupt)
    sys.exit(cli(prog_name="cephbench"))
