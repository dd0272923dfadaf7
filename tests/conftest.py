"""Shared fixtures: a private result store, a CLI runner, and fio data directories."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from cephbench.cli import cli

DATA = Path(__file__).parent / "data"
FIO_DATA = DATA / "fio" / "3.33"

needs_fio = pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed (make install)")
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root")


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "results.db"


@pytest.fixture
def bench_dir(tmp_path: Path) -> Path:
    """A directory on a real disk (not tmpfs) for fio data files."""
    d = tmp_path / "bench"
    d.mkdir()
    return d


@pytest.fixture
def invoke(db: Path):
    """Run a cephbench command in-process against the test's own store."""
    runner = CliRunner()

    def _invoke(*args: str, expect: int | None = 0):
        result = runner.invoke(cli, [*args], env={"CEPHBENCH_DB": str(db)}, catch_exceptions=False)
        if expect is not None:
            assert result.exit_code == expect, f"exit {result.exit_code}\n{result.output}"
        return result

    return _invoke


@pytest.fixture
def invoke_json(invoke):
    def _invoke_json(*args: str):
        return json.loads(invoke(*args, "--format", "json").stdout)

    return _invoke_json
