"""`cephbench --help` and `cephbench CMD --help` stay light: what they import, not how long
they take (bench/startup.py times them).

Each help runs in a fresh interpreter, which reports the modules it ended up with.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
import pytest

from cephbench.cli import BUILTIN_COMMANDS, _may_have_plugins, cli
from cephbench.system.process import run

# Each costs tens to hundreds of milliseconds to import; help needs none of them.
HEAVY = ("scipy", "numpy", "matplotlib", "jinja2", "pydantic", "yaml", "rich")

REPORT_MODULES = """
import json, sys
from cephbench.cli import cli
try:
    cli.main(sys.argv[1:], prog_name="cephbench", standalone_mode=False)
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)))
"""
CEPHBENCH = [sys.executable, "-c", "from cephbench.console import main; main()"]


def _help_lines() -> list[tuple[str, ...]]:
    ctx = click.Context(cli)
    lines: list[tuple[str, ...]] = [()]
    for name in BUILTIN_COMMANDS:
        lines.append((name,))
        command = cli.get_command(ctx, name)
        if isinstance(command, click.Group):
            lines += [(name, sub) for sub in command.list_commands(ctx)]
    return lines


def _modules_after(*args: str) -> tuple[str, set[str]]:
    """The help text and the modules loaded by ``cephbench ARGS --help`` in a new interpreter."""
    result = run([sys.executable, "-c", REPORT_MODULES, *args, "--help"], check=True, timeout=120)
    text, _, modules = result.stdout.rstrip("\n").rpartition("\n")
    return text, set(json.loads(modules))


@pytest.mark.parametrize("args", _help_lines(), ids=lambda a: " ".join((*a, "--help")))
def test_help_imports_nothing_heavy(args):
    text, modules = _modules_after(*args)
    assert "Usage:" in text
    loaded = sorted(m for m in HEAVY if m in modules)
    assert not loaded, f"cephbench {' '.join(args)} --help imports {loaded}"


# What `run --help` needs: click, and the CLI modules defining its options; none of what the
# options build (the planner, the Ceph session, the store, the result model, Kubernetes...).
RUN_HELP_MODULES = {
    "cephbench",
    "cephbench.cli",
    "cephbench.cli.common",
    "cephbench.cli.complete",
    "cephbench.cli.options",
    "cephbench.cli.run",
    "cephbench.cli.run_options",
    "cephbench.errors",
    "cephbench.registry",
    "cephbench.system",  # an empty package
    "cephbench.system.interrupts",  # main's signal handlers: signal and threading alone
}
# Standard modules the building pulls in (processes, sockets, the store...), each milliseconds.
RUN_HELP_NEVER = (
    "subprocess",
    "socket",
    "sqlite3",
    "logging",
    "concurrent.futures",
    "ctypes",
    "dataclasses",
    "pathlib",
    "tempfile",
    "hashlib",
    "secrets",
)


def test_run_help_imports_the_option_definitions_alone():
    """`cephbench run --help` (some forty options, issue 34 item 4): the CLI modules that
    define them and nothing they build; bench/startup.py times it."""
    text, modules = _modules_after("run")
    assert "--target KIND:LOCATION" in text and "--pods" in text
    ours = {m for m in modules if m == "cephbench" or m.startswith("cephbench.")}
    assert ours == RUN_HELP_MODULES, f"run --help also imports {sorted(ours - RUN_HELP_MODULES)}"
    loaded = [m for m in (*HEAVY, *RUN_HELP_NEVER) if m in modules]
    assert not loaded, f"cephbench run --help imports {loaded}"


def test_run_options_defaults_are_their_sources():
    """The defaults `run --help` shows are copies (so that it imports none of their modules)."""
    from cephbench.ceph import connection, health
    from cephbench.cli import run_options
    from cephbench.kube import objects
    from cephbench.planning import request

    assert run_options.DEFAULT_TIMEOUT == connection.DEFAULT_TIMEOUT
    assert run_options.DEFAULT_INTERVAL == health.DEFAULT_INTERVAL
    assert run_options.DEFAULT_IMAGE == objects.DEFAULT_IMAGE
    assert run_options.DEFAULT_MAX_REPEATS == request.DEFAULT_MAX_REPEATS
    assert run_options.DEFAULT_PG_NUM == request.DEFAULT_PG_NUM


def test_listing_commands_imports_none_of_them():
    text, modules = _modules_after()
    for name, entry in BUILTIN_COMMANDS.items():
        assert f"  {name} " in text
        module = entry.target.split(":")[0]
        assert module not in modules, f"`cephbench --help` imported {module}"
    if not _may_have_plugins():
        assert "importlib.metadata" not in modules


@pytest.mark.parametrize("name", list(BUILTIN_COMMANDS))
def test_registry_line_is_the_commands_own_summary(name):
    """The line `cephbench --help` shows is the first sentence of the command's docstring."""
    command = cli.get_command(click.Context(cli), name)
    assert BUILTIN_COMMANDS[name].help == command.get_short_help_str(limit=10_000)


def test_light_copies_match_their_source():
    """Names the CLI keeps at hand so that its help imports neither the lab nor the parsers."""
    from cephbench.cli import import_, lab
    from cephbench.importing import importer
    from cephbench.lab import paths

    assert lab.DIR_ENV == paths.DIR_ENV
    assert sorted(import_.PARSER_NAMES) == sorted(importer.PARSERS)


def test_the_tool_registry_names_each_tools_own_parsers():
    from cephbench import tools

    for name, entry in tools.BUILTIN.items():
        assert entry.parsers == tuple(i.name for i in tools.get(name).importers()), name
        assert bool(entry.imports) == bool(entry.parsers), name


def _plugin(tmp_path: Path) -> dict[str, str]:
    """A third-party package declaring two commands, one of them a built-in's name."""
    (tmp_path / "cbplugin.py").write_text(
        "import click\n\n\n@click.command()\ndef hello():\n"
        '    """Say hello from a plugin."""\n    click.echo("hello from a plugin")\n'
    )
    info = tmp_path / "cbplugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: cbplugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[cephbench.commands]\nhello = cbplugin:hello\nruns = cbplugin:hello\n"
    )
    return {"PYTHONPATH": str(tmp_path)}


def test_plugin_commands_are_listed_and_run(tmp_path):
    env = _plugin(tmp_path)
    listing = run([*CEPHBENCH, "--help"], env=env, check=True).stdout
    lines = {" ".join(line.split()) for line in listing.splitlines()}  # column width varies
    assert "hello Say hello from a plugin." in lines
    assert "runs List the stored runs, oldest first." in lines  # a built-in name wins
    assert run([*CEPHBENCH, "hello"], env=env, check=True).stdout == "hello from a plugin\n"
    assert "Say hello" not in run([*CEPHBENCH, "runs", "--help"], env=env, check=True).stdout
    unknown = run([*CEPHBENCH, "nosuch"], env=env)
    assert unknown.returncode == 2 and "No such command 'nosuch'" in unknown.stderr
