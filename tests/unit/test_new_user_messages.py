"""Issue 25's messages a new user meets first: the unknown-suite error names every suite, and
``--hosts lab`` without a lab says that no lab is running."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from cephbench.cli import cli
from cephbench.errors import UsageError
from cephbench.tools import fixed_suites
from cephbench.tools.fio.suites import builtin_names, load_suite


def test_the_unknown_suite_error_lists_every_suite_run_takes():
    with pytest.raises(UsageError) as e:
        load_suite("nosuch")
    hint = e.value.hint or ""
    for name in (*builtin_names(), *fixed_suites()):
        assert name in hint.split("; ")[0], name
    assert {"rados", "osd", "network"} <= set(fixed_suites())


def test_hosts_lab_without_a_lab_says_no_lab_is_running(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("CEPHBENCH_LAB_DIR", str(tmp_path / "lab"))
    result = CliRunner().invoke(
        cli, ["hosts", "check", "--hosts", "lab"], env={"CEPHBENCH_DB": str(tmp_path / "r.db")}
    )
    assert result.exit_code != 0
    assert "no lab is running" in result.output
    assert "cephbench lab up" in result.output and "--ssh" in result.output
    assert "no ssh inventory" not in result.output
