"""`run --runtime` and `ab --runtime` are one option (issue 25, item 16): one spelling, one
help text, from one definition in cephbench.cli.run_options."""

from __future__ import annotations

import click

from cephbench.cli import cli
from cephbench.system.units import parse_seconds


def _runtime(command: str) -> click.Option:
    cmd = cli.get_command(click.Context(cli), command)
    assert cmd is not None
    (opt,) = [p for p in cmd.params if isinstance(p, click.Option) and "--runtime" in p.opts]
    return opt


def test_run_and_ab_share_the_runtime_option():
    run, ab = _runtime("run"), _runtime("ab")
    assert (run.help, run.metavar) == (ab.help, ab.metavar)
    assert "fio's spelling" not in (ab.help or "")


def test_every_example_in_the_help_is_a_duration_both_accept():
    examples = (_runtime("ab").help or "").split("e.g. ")[1].rstrip(").").split(", ")
    assert examples == ["30", "500ms", "2m"]
    assert [parse_seconds(e) for e in examples] == [30, 0.5, 120]
