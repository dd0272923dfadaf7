"""The release tier: labs of the newer Ceph releases (Reef 18, Tentacle 20), each run from its
root (``lab/releases.py``; ``make test`` builds a missing root before this tier), with every
client program from the same root. One 3-host lab per release, shared by the tier's tests of
that release and always taken down. ``make test`` runs the releases side by side, one
worker each."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from cephbench.lab import LabInfo, LabSpec, down, up

RELEASES = ("reef", "tentacle")
#: One xdist group per release: ``make test`` runs the tier with two workers, each keeping
#: to one release's labs (``--dist loadgroup``).
PARAMS = [pytest.param(r, marks=pytest.mark.xdist_group(r)) for r in RELEASES]


@pytest.fixture(scope="module", params=PARAMS)
def rlab(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LabInfo]:
    """A 3-host, 3-OSD lab of the release (network namespaces on a bridge, an sshd from the
    release's root on each: ``--clients lab``) with CephFS."""
    lab_dir = tmp_path_factory.mktemp(request.param) / "lab"
    try:
        spec = LabSpec(dir=lab_dir, release=request.param, hosts=3, osds=3, cephfs=True, ssh=True)
        result = up(spec, timeout=240)
        yield result.info
    finally:
        down(lab_dir, purge=True)


@pytest.fixture
def in_rlab(rlab: LabInfo, monkeypatch: pytest.MonkeyPatch) -> LabInfo:
    monkeypatch.setenv("CEPHBENCH_LAB_DIR", str(rlab.dir))
    return rlab
