"""The real Ceph labs the lab tests share (brought up on first use, always taken down): the
default and the 3-host lab for the whole session, the CephFS labs for the one module that uses
each, so their daemons do not idle on the two cores through the rest of the session. Every
test here is in the ``lab`` tier, skipped where no lab can run (not root, Ceph not installed):
see the root conftest.py."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cephbench.lab import LabInfo, LabSpec, down, up
from tests.helpers import wait_for

RELEASE_ENV = "CEPHBENCH_TEST_RELEASE"
"""Set to reef or tentacle: the tier's labs run that release (default: the labs' default)."""


def spec(**kwargs: Any) -> LabSpec:
    """A lab of the release the tier runs (:data:`RELEASE_ENV`)."""
    release = os.environ.get(RELEASE_ENV)
    return LabSpec(**kwargs, **({"release": release} if release else {}))


def as_a_shell(info: LabInfo) -> LabInfo:
    """``info`` whose ``env`` is what ``eval "$(cephbench lab env)"`` gives a shell: a release
    lab's client programs (``ceph``, ``rbd``... run in its view) first on PATH, so a test's
    own ``ceph`` is the cluster's release, as a user's is."""
    shims = info.dir / "bin"
    if info.view is None or not shims.is_dir():
        return info
    return dataclasses.replace(info, env={**info.env, "PATH": f"{shims}:{os.environ['PATH']}"})


QUIET_WAIT = 900.0
"""How long a quiet test waits for the other tiers to end (s): the lab tier is the longest,
so in ``make test`` the wait is short or none."""


@pytest.fixture(autouse=True)
def _quiet_host(request: pytest.FixtureRequest) -> None:
    """A ``quiet`` test compares OSDs that share this machine's one disk, so it needs that disk
    to itself: in ``make test`` the other tiers' labs, pods and fio load it in bursts (recorded:
    every OSD's commit at 90 to 195 ms in one step, 2 ms in the next, the slow OSD hidden).
    Quiet tests are collected last (tests/conftest.py); before the first, wait until the file
    CEPHBENCH_QUIET_AFTER names exists (``make test`` touches it when its other tiers end).
    Unset (a tier run by hand), nothing waits."""
    after = os.environ.get("CEPHBENCH_QUIET_AFTER")
    if not after or request.node.get_closest_marker("quiet") is None:
        return
    wait_for(Path(after).exists, f"the other tiers to end ({after})", QUIET_WAIT, poll=1.0)


@pytest.fixture(scope="session")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabInfo]:
    """A 3-OSD BlueStore lab (the defaults) shared by the session's lab tests."""
    lab_dir = tmp_path_factory.mktemp("lab") / "shared"
    try:
        result = up(spec(dir=lab_dir), timeout=180)
        yield as_a_shell(result.info)
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
        result = up(spec(dir=lab_dir, hosts=3, osds=3, rate="500mbit", ssh=True), timeout=240)
        yield as_a_shell(result.info)
    finally:
        down(lab_dir, purge=True)


@pytest.fixture(scope="module")
def lab_cephfs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabInfo]:
    """A 1-host, 3-OSD lab with an MDS and the filesystem ``lab`` (``lab up --cephfs``),
    shared by the module's CephFS tests."""
    lab_dir = tmp_path_factory.mktemp("labfs") / "cephfs"
    try:
        result = up(spec(dir=lab_dir, cephfs=True), timeout=180)
        yield as_a_shell(result.info)
    finally:
        down(lab_dir, purge=True)


@pytest.fixture(scope="module")
def lab_cephfs_hosts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabInfo]:
    """A 2-host lab (network namespaces, an sshd on each: ``--clients lab``) with an MDS and
    the filesystem ``lab``, for the CephFS tests with many clients."""
    lab_dir = tmp_path_factory.mktemp("labfs2") / "cephfs2"
    try:
        result = up(spec(dir=lab_dir, hosts=2, osds=3, ssh=True, cephfs=True), timeout=240)
        yield as_a_shell(result.info)
    finally:
        down(lab_dir, purge=True)
