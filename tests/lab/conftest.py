"""One real lab for the whole test session, always taken down, even when tests fail."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest

from cephbench.lab import LabInfo, LabSpec, down, up


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
    reason = lab_skip_reason()
    if reason:
        for item in items:
            if "lab" in item.keywords:
                item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="session")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabInfo]:
    """A 3-OSD BlueStore lab (the defaults) shared by the session's lab tests."""
    lab_dir = tmp_path_factory.mktemp("lab") / "shared"
    try:
        result = up(LabSpec(dir=lab_dir), timeout=180)
        yield result.info
    finally:
        down(lab_dir, purge=True)
