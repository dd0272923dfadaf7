"""The ``cephbench`` command line: a group whose commands live one per module.

Built-in commands are registered exactly like plugins: a name mapped to ``module:attribute``,
imported only when used. The registry also carries each command's one-line help, so
``cephbench --help`` lists the commands without importing any of them (their modules pull in
scipy, matplotlib, the lab...). Third-party packages add commands through the
``cephbench.commands`` entry-point group; listing those imports them for their help.

Start-up time matters here: keep this module's imports to click and the standard library
(``bench/startup.py`` measures it, ``tests/unit/test_cli_startup.py`` guards it).
"""

from __future__ import annotations

import sys
from typing import NamedTuple

import click

from cephbench import __version__
from cephbench.cli.common import console_err, set_debug
from cephbench.errors import CephbenchError, ExitStatus, Interrupted
from cephbench.registry import COMMANDS_GROUP, Registry, may_have_entry_points
from cephbench.system import interrupts


class Entry(NamedTuple):
    """A built-in command: where it lives, and the line `cephbench --help` shows for it."""

    target: str  # "module:attribute", imported only when the command runs or shows its help
    help: str  # the first sentence of the command's docstring (a test keeps them equal)


BUILTIN_COMMANDS: dict[str, Entry] = {
    "run": Entry(
        "cephbench.cli.run:run",
        "Run SUITE (a built-in name, a suite .yaml, or a fio job file) and store the results.",
    ),
    "diagnose": Entry(
        "cephbench.cli.diagnose:diagnose",
        "Diagnose a Ceph cluster: where the performance goes, layer by layer, with evidence.",
    ),
    "explain": Entry(
        "cephbench.cli.explain:explain",
        "Explain a stored Ceph run: each workload's ceiling, efficiency and limiting part.",
    ),
    "runs": Entry("cephbench.cli.runs:runs", "List the stored runs, oldest first."),
    "show": Entry(
        "cephbench.cli.show:show", "Show a stored run (an id from `cephbench runs`, or 'last')."
    ),
    "suites": Entry("cephbench.cli.suites:suites", "List the built-in suites and their workloads."),
    "cleanup": Entry(
        "cephbench.cli.cleanup:cleanup",
        "Remove files (and other things) that killed runs created and could not remove.",
    ),
    "import": Entry(
        "cephbench.cli.import_:import_",
        "Import the tools' outputs you already have (the formats --as names), as files, "
        "Markdown, or stdin (-); or cephbench's own JSON (`show --format json`, `export`), "
        "stored back with everything it holds.",
    ),
    "export": Entry(
        "cephbench.cli.export:export",
        "Export stored runs (ids from `cephbench runs`, or 'last') with their raw outputs.",
    ),
    "compare": Entry(
        "cephbench.cli.compare:compare", "Compare stored runs; the first is the baseline."
    ),
    "report": Entry(
        "cephbench.cli.report:report",
        "Write a report of one or more runs; the first is the baseline.",
    ),
    "hosts": Entry(
        "cephbench.cli.hosts:hosts",
        "The machines a benchmark runs from and across, reached over ssh.",
    ),
    "k8s": Entry(
        "cephbench.cli.k8s:k8s",
        "Kubernetes: what a cluster offers cephbench's pvc: target, and its fio image.",
    ),
    "completion": Entry(
        "cephbench.cli.completion:completion",
        "Print the shell completion script for bash, zsh or fish.",
    ),
    "ab": Entry(
        "cephbench.cli.ab:ab",
        "Interleaved A/B of a configuration change cephbench applies and reverts, with verdicts.",
    ),
    "capacity": Entry(
        "cephbench.cli.capacity:capacity",
        "The load a target takes with its tail latency under a target, with a CI.",
    ),
    "tune": Entry(
        "cephbench.cli.tune:tune",
        "Diagnose, propose the changes remedies make for the findings, prove each in turn.",
    ),
    "lab": Entry(
        "cephbench.cli.lab:lab",
        "A real, throwaway Ceph cluster on this machine: plain processes, no containers.",
    ),
}


def _may_have_plugins() -> bool:
    """Whether an installed distribution may declare ``cephbench.commands`` entry points."""
    return may_have_entry_points(COMMANDS_GROUP)


COMMANDS = Registry(
    {name: entry.target for name, entry in BUILTIN_COMMANDS.items()},
    group=COMMANDS_GROUP,
    may_have_plugins=_may_have_plugins,
)


class CephbenchGroup(click.Group):
    """Lazy command loading, and the one place errors become messages and exit codes."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS.names())

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        command: click.Command = COMMANDS.load(cmd_name)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list, built-in lines from the registry: no command module is imported."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(map(len, names))
        rows = []
        for name in names:
            entry = BUILTIN_COMMANDS.get(name)
            # a built-in's line shortened as click would its docstring; a plugin's from its module
            command = click.Command(name, help=entry.help) if entry else self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except (CephbenchError, Interrupted) as e:
            if ctx.meta.get("cephbench.debug"):
                raise
            from rich.markup import escape  # rich loads only once there is something to print

            prefix = "Interrupted" if isinstance(e, Interrupted) else "Error"
            # soft_wrap: a path in a message stays on one line, whatever the terminal width;
            # a Ctrl-C with nothing more to say is not "Interrupted: interrupted"
            line = f"[bold red]{prefix}:[/] {escape(e.message)}"
            if isinstance(e, Interrupted) and e.message == "interrupted":
                line = f"[bold red]{prefix}.[/]"
            console_err.print(line, soft_wrap=True)
            if e.hint:
                console_err.print(f"  {escape(e.hint)}", soft_wrap=True)
            ctx.exit(int(e.exit_status))
        except KeyboardInterrupt:
            if ctx.meta.get("cephbench.debug"):
                raise
            console_err.print("Interrupted.")
            ctx.exit(int(ExitStatus.INTERRUPTED))


@click.group(cls=CephbenchGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="cephbench")
@click.option(
    "--debug",
    is_flag=True,
    envvar="CEPHBENCH_DEBUG",
    callback=set_debug,
    expose_value=False,
    is_eager=True,
    help="Show full tracebacks instead of one-line errors.",
)
def cli() -> None:
    """Benchmark Ceph and block storage with fio, keep every result, compare them.

    Start with `cephbench suites`, then `cephbench run quick --target file:/tmp`.
    """


def main() -> None:
    # Ctrl-C and SIGTERM take the same clean-up path: nothing left behind either way.
    interrupts.install()
    sys.exit(cli(prog_name="cephbench"))
