"""The real lab with its Kubernetes (``lab up --k8s``) that the k8s tier shares: one for the
whole session, brought up on first use (building the Kubernetes binaries first if they are
not cached: ``cephbench lab build-k8s``), always taken down. Every test here is in the
``k8s`` tier, skipped where it cannot run (see the root conftest.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from cephbench.lab import K8sInfo, LabInfo, LabSpec, down, up


@dataclass(frozen=True)
class K8sLab:
    """A running lab: ``lab`` for Ceph clients, ``k8s`` for kubectl."""

    lab: LabInfo
    k8s: K8sInfo

    @property
    def dir(self) -> Path:
        return self.lab.dir


def start(lab_dir: Path) -> K8sLab:
    """A one-host lab with Kubernetes in ``lab_dir`` (3 small BlueStore OSDs)."""
    result = up(LabSpec(dir=lab_dir, k8s=True, osd_size="4G"), timeout=240)
    assert result.info.k8s is not None
    return K8sLab(result.info, result.info.k8s)


@pytest.fixture(scope="session")
def k8s_lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[K8sLab]:
    """The session's lab with Kubernetes: a Ready node and the ``cephbench-lab`` class."""
    lab_dir = tmp_path_factory.mktemp("k8s") / "lab"
    try:
        yield start(lab_dir)
    finally:
        down(lab_dir, purge=True)


@pytest.fixture
def k8s(k8s_lab, monkeypatch):
    """The lab's cluster as a user's environment: KUBECONFIG, its kubectl first on PATH, and
    the lab as the Ceph cluster (``CEPHBENCH_LAB_DIR``)."""
    info = k8s_lab.k8s
    monkeypatch.setenv("KUBECONFIG", str(info.kubeconfig))
    monkeypatch.setenv("PATH", f"{Path(info.kubectl).parent}:{os.environ['PATH']}")
    monkeypatch.setenv("CEPHBENCH_LAB_DIR", str(k8s_lab.lab.dir))
    return k8s_lab
