"""Every command and every option explains itself."""

from __future__ import annotations

import click
import pytest

from cephbench.cli import cli

CTX = click.Context(cli)
COMMANDS = [(name, cli.get_command(CTX, name)) for name in cli.list_commands(CTX)]


def _walk(name, command):
    yield name, command
    if isinstance(command, click.Group):
        for sub in command.list_commands(CTX):
            yield from _walk(f"{name} {sub}", command.get_command(CTX, sub))


ALL = [pair for name, cmd in COMMANDS for pair in _walk(name, cmd)]


@pytest.mark.parametrize("name, command", ALL, ids=[n for n, _ in ALL])
def test_command_has_help(name, command):
    assert command.help and command.help.strip(), f"{name} has no help"
    for param in command.params:
        if isinstance(param, click.Option) and param.name not in ("help",):
            assert param.help, f"{name} {param.opts} has no help"


@pytest.mark.parametrize("name", [n for n, _ in ALL])
def test_help_runs(invoke, name):
    assert "Usage:" in invoke(*name.split(), "--help").output


def test_unknown_run_id_is_one_line(invoke):
    result = invoke("show", "42", expect=1)
    assert "no run 42" in result.output and "Traceback" not in result.output
