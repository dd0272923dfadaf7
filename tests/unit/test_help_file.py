"""`cephbench CMD --help` from the help file (issue 34 item 4): every text exactly what click
prints, the file up to date with the commands, and click's own help wherever the file cannot
say the same (a narrow terminal, options before --help, a plugin, another version).

bench/startup.py times it (1.5x a bare interpreter, against click's floor of some 5x)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from cephbench import console
from cephbench.cli import cli
from cephbench.help_file import render
from cephbench.system.process import run

TEXTS = render()
SAVED = Path(console.HELP_FILE).read_text(encoding="utf-8")


def test_the_help_file_is_what_the_commands_say_now():
    assert console.help_file(TEXTS) == SAVED, (
        "src/cephbench/help.txt is out of date with the commands: run `make help`"
    )


@pytest.mark.parametrize("line", list(TEXTS))
def test_each_text_is_what_click_prints_at_80_columns(line, monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit) as done:
        cli.main([*line.split()[1:], "--help"], prog_name="cephbench")
    assert done.value.code == 0
    printed = capsys.readouterr().out
    assert printed == TEXTS[line]
    assert console.cached_help([*line.split()[1:], "-h"]) == printed


def test_every_command_has_its_help_in_the_file():
    lines = set(TEXTS)
    assert {"cephbench", "cephbench run", "cephbench lab up", "cephbench lab fault cpu"} <= lines
    assert len(lines) >= 40


@pytest.mark.parametrize(
    "args",
    [
        ["run"],  # no help option: runs the command
        ["run", "--target", "file:/tmp", "--help"],  # an option before --help
        ["--debug", "run", "--help"],
        ["run", "--help", "extra"],
        ["nosuch", "--help"],  # click names the unknown command
        ["tune", "revert", "--help"],  # an argument, not a command
    ],
)
def test_anything_else_is_left_to_click(args, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    assert console.cached_help(args) is None


@pytest.mark.parametrize("columns", ["79", "40"])
def test_a_narrow_terminal_gets_clicks_own_layout(columns, monkeypatch):
    monkeypatch.setenv("COLUMNS", columns)
    assert console.cached_help(["run", "--help"]) is None
    monkeypatch.setenv("COLUMNS", "80")
    assert console.cached_help(["run", "--help"]) == TEXTS["cephbench run"]


def test_a_file_of_another_version_is_not_used(monkeypatch, tmp_path):
    monkeypatch.setenv("COLUMNS", "80")
    other = tmp_path / "help.txt"
    other.write_text(SAVED.replace(f"cephbench {console.__version__} help", "cephbench 0.0.1 help"))
    monkeypatch.setattr(console, "HELP_FILE", str(other))
    assert console.cached_help(["run", "--help"]) is None
    monkeypatch.setattr(console, "HELP_FILE", str(tmp_path / "missing.txt"))
    assert console.cached_help(["run", "--help"]) is None


def test_a_plugin_command_hands_the_help_to_click(monkeypatch, tmp_path):
    info = tmp_path / "cbplugin-1.0.dist-info"
    info.mkdir()
    (info / "entry_points.txt").write_text("[cephbench.commands]\nhello = cbplugin:hello\n")
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert console.cached_help(["--help"]) is None


REPORT = """
import json, sys
from cephbench.console import main
try:
    main()
finally:
    print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def test_the_console_script_prints_it_without_click():
    """What the installed ``cephbench`` runs, in a fresh interpreter."""
    done = run(
        [sys.executable, "-c", REPORT, "lab", "up", "--help"],
        env={"COLUMNS": "80"},
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == TEXTS["cephbench lab up"]
    modules = set(json.loads(done.stderr.splitlines()[-1]))
    assert "click" not in modules and "cephbench.cli" not in modules
