"""Every test's tier is its folder: tests/unit (``pure``: Python alone), tests/fio (``fio``:
real fio, iperf3, Chromium, loop devices: anything the machine runs for it) and tests/lab
(``lab``: a real Ceph lab), tests/k8s (``k8s``: a lab with its Kubernetes, ``lab up --k8s``),
tests/releases (``release``: labs of the newer Ceph releases, ``lab up --release``).
Moving a test to another tier is moving its file.

Shared fixtures: a private result store, the CLI on it, fio data directories (the Ceph labs
are tests/lab/conftest.py's). What tests share beyond fixtures is in tests/helpers.py."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

from tests import helpers
from tests.contract import validate

# Fuzz tests are reproducible in `make test` (the same examples every run: a failure is a
# defect to fix, never bad luck); HYPOTHESIS_PROFILE=explore draws new ones each time.
settings.register_profile("ci", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

TESTS = Path(__file__).parent
#: The tier of each folder under tests/, as its pytest marker (declared in pyproject.toml).
TIERS = {"unit": "pure", "fio": "fio", "lab": "lab", "k8s": "k8s", "releases": "release"}


def pytest_sessionstart(session: pytest.Session) -> None:
    """matplotlib builds its font cache on first import by running ``fc-list``: build it here,
    before any test, so that on a fresh machine (no ~/.cache/matplotlib) the first pure test to
    draw a chart is not failed for starting a tool it never asked for."""
    import matplotlib.font_manager  # noqa: F401


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
    """``tests.helpers.invoke`` on the test's own store: ``invoke("runs", expect=0)``."""
    return functools.partial(helpers.invoke, db=db)


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


def k8s_skip_reason() -> str | None:
    """Why the lab's Kubernetes cannot run here (None when it can), beside lab_skip_reason."""
    from cephbench.lab.k8s import missing_packages

    missing = missing_packages()
    if missing:
        return f"lab up --k8s needs: apt-get install -y {' '.join(missing)}"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test gets the marker of its folder's tier (``-m pure``, ``-m fio``, ``-m lab``);
    a lab test is skipped where no lab can run. A test outside the three folders, or marked
    for another tier than its folder's, stops the session, naming the file to move."""
    reason = lab_skip_reason()
    misfiled = []
    for item in items:
        tier = _tier(item)
        if why := _misfiled(item, tier):
            misfiled.append(f"{item.nodeid}: {why}")
            continue
        item.add_marker(getattr(pytest.mark, tier))
        if tier in ("lab", "release") and reason:
            item.add_marker(pytest.mark.skip(reason=reason))
        if tier == "k8s" and (why := reason or k8s_skip_reason()):
            item.add_marker(pytest.mark.skip(reason=why))
    # a quiet test runs after every other one its session collected (see tests/lab/conftest.py)
    items.sort(key=lambda item: item.get_closest_marker("quiet") is not None)
    if misfiled:
        raise pytest.UsageError(
            "a test's tier is its folder: tests/unit (pure: Python alone), tests/fio (starts "
            "programs, may need root), tests/lab (a real Ceph lab), tests/k8s (a lab with "
            "Kubernetes) or tests/releases (labs of Reef and Tentacle); move these files:\n  "
            + "\n  ".join(misfiled)
        )


def _tier(item: pytest.Item) -> str | None:
    """The tier of the folder under tests/ that the item's file is in (None: no tier's)."""
    parts = item.path.relative_to(TESTS).parts if item.path.is_relative_to(TESTS) else ()
    return TIERS.get(parts[0]) if len(parts) > 1 else None


def _misfiled(item: pytest.Item, tier: str | None) -> str | None:
    if tier is None:
        return "outside tests/unit, tests/fio, tests/lab, tests/k8s and tests/releases"
    wrong = {m.name for m in item.iter_markers()} & (set(TIERS.values()) - {tier})
    if tier == "pure" and item.get_closest_marker("root"):
        wrong.add("root")
    return f"marked {', '.join(sorted(wrong))} in the {tier} tier's folder" if wrong else None


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
            raise AssertionError(
                f"a pure test started {list(argv)[:3]}: move its file to tests/fio (or tests/lab)"
            )
        popen(self, argv, *args, **kwargs)

    monkeypatch.setattr(subprocess.Popen, "__init__", python_only)
