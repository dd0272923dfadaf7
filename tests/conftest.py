"""Shared fixtures: a private result store, a CLI runner, fio data directories, and one real
Ceph lab for the whole test session (brought up on first use, always taken down)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import settings

from cephbench.cli import cli
from cephbench.lab import LabInfo, LabSpec, down, up
from tests.contract import validate

# Fuzz tests are reproducible in `make test` (the same examples every run: a failure is a
# defect to fix, never bad luck); HYPOTHESIS_PROFILE=explore draws new ones each time.
settings.register_profile("ci", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

DATA = Path(__file__).parent / "data"
FIO_DATA = DATA / "fio" / "3.33"

needs_fio = pytest.mark.skipif(
    shutil.which("fio") is None, reason="fio is not installed (make install)"
)
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
    """A command's JSON, checked against the schema it names (every test reading JSON through
    this checks the data contract on real outputs)."""

    def _invoke_json(*args: str):
        return validate(json.loads(invoke(*args, "--format", "json").stdout))

    return _invoke_json


def lab_skip_reason() -> str | None:
    """Why real-lab tests cannot run here (None when they can: root, Ceph installed)."""
    if os.geteuid() != 0:
        return "the lab tests need root (network namespaces, veth links, a bridge)"
    missing = [p for p in ("ceph-mon", "ceph-osd", "ceph-mgr", "ceph") if not shutil.which(p)]
    if missing:
        return (
            f"Ceph is not installed ({', '.join(missing)} missing): "
            "apt-get install -y ceph-mon ceph-osd ceph-mgr ceph-common"
        )
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test gets its tier: ``lab`` (a real Ceph lab), ``fio`` (real fio, iperf3, loop
    devices: anything the machine runs for it), or ``pure`` (Python alone: `make test-fast`)."""
    reason = lab_skip_reason()
    for item in items:
        if "lab" in item.keywords:
            item.add_marker(pytest.mark.lab)  # tests/lab/* by their folder: `-m lab` too
            if reason:
                item.add_marker(pytest.mark.skip(reason=reason))
        elif _runs_tools(item):
            item.add_marker(pytest.mark.fio)
        else:
            item.add_marker(pytest.mark.pure)


def _runs_tools(item: pytest.Item) -> bool:
    tools = ("fio", "chromium", "iperf3")
    return (
        "fio" in item.keywords
        or "root" in item.keywords
        or any(
            tool in str(m.kwargs.get("reason", ""))
            for m in item.iter_markers("skipif")
            for tool in tools
        )
    )


@pytest.fixture(autouse=True)
def _pure_tests_start_no_tool(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A test in the pure tier that starts a tool is misfiled: it fails, naming the fix."""
    if request.node.get_closest_marker("pure") is None:
        return

    popen = subprocess.Popen.__init__

    def python_only(self, argv, *args, **kwargs):
        if list(argv)[:1] != [sys.executable]:
            raise AssertionError(f"a pure test started {list(argv)[:3]}: mark it fio (or lab)")
        popen(self, argv, *args, **kwargs)

    monkeypatch.setattr(subprocess.Popen, "__init__", python_only)


@pytest.fixture(scope="session")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabInfo]:
    """A 3-OSD BlueStore lab (the defaults) shared by the session's lab tests."""
    lab_dir = tmp_path_factory.mktemp("lab") / "shared"
    try:
        result = up(LabSpec(dir=lab_dir), timeout=180)
        yield result.info
    finally:
        down(lab_dir, purge=True)


@pytest.fixture(scope="session")
def lab3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabInfo]:
    """A 3-host lab (one OSD per host, network namespaces on a bridge, every host link at
    500 Mbit/s, an sshd on each host for ``--hosts lab``) shared by the session's tests of
    hosts, diagnosis and A/B tuning. Tests that change it (a fault, a configuration change)
    put it back before they finish."""
    lab_dir = tmp_path_factory.mktemp("lab3") / "three"
    try:
        result = up(LabSpec(dir=lab_dir, hosts=3, osds=3, rate="500mbit", ssh=True), timeout=240)
        yield result.info
    finally:
        down(lab_dir, purge=True)
