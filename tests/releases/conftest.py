"""The release tier: labs of the newer Ceph releases (Reef 18, Tentacle 20), each run from its
root (``lab/releases.py``; ``make test`` builds a missing root before this tier), with every
client program from the same root. One 3-host lab per release, shared by the tier's tests of
that release and always taken down. ``make test`` runs the releases side by side, one
worker each."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from cephbench.lab import LabInfo, LabSpec, down, up
from cephbench.lab.ceph import ceph_json, not_ready

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
    """The release's lab, ready (every OSD up, every PG active+clean, HEALTH_OK) before the
    test benchmarks it: the tests share it, and one that changed the cluster may have left it
    settling. A lab that does not get there fails the test with what each OSD logged."""
    monkeypatch.setenv("CEPHBENCH_LAB_DIR", str(rlab.dir))
    wait_ready(rlab)
    return rlab


def wait_ready(lab: LabInfo, timeout: float = 90.0) -> None:
    deadline, waiting = time.monotonic() + timeout, None
    while (waiting := not_ready(ceph_json(lab, "status"), len(lab.osds))) is not None:
        if time.monotonic() > deadline:
            pytest.fail(f"the {lab.dir} lab is not ready after {timeout:g} s: {waiting}\n"
                        + osd_evidence(lab), pytrace=False)  # fmt: skip
        time.sleep(0.3)


def osd_evidence(lab: LabInfo) -> str:
    """Each OSD's state in the map and what its log says of being marked down or of missed
    heartbeats (its last such lines): why a lab's OSD went down."""
    dump = ceph_json(lab, "osd", "dump")
    lines = [f"osd.{o['osd']}: up={o['up']} in={o['in']}" for o in dump.get("osds", [])]
    for log in sorted((lab.dir / "log").glob("osd.*.log")):
        said = [
            ln.rstrip()
            for ln in log.read_text(errors="replace").splitlines()
            if any(m in ln for m in OSD_DOWN_MARKS)
        ]
        lines += [f"{log.name}: {ln}" for ln in said[-5:]]
    return "\n".join(lines)


OSD_DOWN_MARKS = ("wrongly marked me down", "heartbeat_check: no reply", "marked down", "abort")
