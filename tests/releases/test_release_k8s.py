"""Kubernetes beside a lab of Reef and of Tentacle (``lab up --release R --k8s``): the class's
volumes are exposed by the release's rbd-fuse (a Pacific one cannot read a Tentacle key), the
pods' fio is the release's, with its librbd (``rbd:`` with ``--pods``), and after the runs and
``lab down`` nothing is left: no namespace, image, rbd-fuse, loop device or mount in the view."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from cephbench.lab import LabInfo, LabSpec, down, release_view, releases, up
from cephbench.lab.k8s_volumes import loops_under
from cephbench.store import Store
from tests.helpers import wait_for
from tests.k8s.test_pvc_k8s import claim_of, ours
from tests.releases.conftest import PARAMS

SMALL = ("--runtime", "1", "--size", "32M")


@pytest.fixture(scope="module", params=PARAMS)
def rk8s(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """A one-host lab of the release with its Kubernetes."""
    lab_dir = tmp_path_factory.mktemp(f"{request.param}-k8s") / "lab"
    try:
        spec = LabSpec(dir=lab_dir, release=request.param, k8s=True, osd_size="4G")
        yield up(spec, timeout=240).info
    finally:
        down(lab_dir, purge=True)


@pytest.fixture
def in_rk8s(rk8s: LabInfo, monkeypatch: pytest.MonkeyPatch) -> Iterator[LabInfo]:
    assert rk8s.k8s is not None
    monkeypatch.setenv("KUBECONFIG", str(rk8s.k8s.kubeconfig))
    monkeypatch.setenv("PATH", f"{Path(rk8s.k8s.kubectl).parent}:{os.environ['PATH']}")
    monkeypatch.setenv("CEPHBENCH_LAB_DIR", str(rk8s.dir))
    yield rk8s


def _built(lab: LabInfo) -> releases.Built:
    assert lab.tools.release is not None
    built = releases.built(releases.get(lab.tools.release))
    assert built is not None
    return built


def _pvs(lab: LabInfo) -> list[str]:
    assert lab.k8s is not None
    argv = [str(lab.k8s.kubectl), f"--kubeconfig={lab.k8s.kubeconfig}", "get", "pv", "-o", "name"]
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout.split()


def _images(lab: LabInfo, pool: str) -> list[str]:
    out = lab.tools.run("rbd", "ls", pool, env=lab.env, timeout=60, check=True).stdout
    return out.split()


def test_pods_on_the_labs_class_and_with_librbd_run_the_releases_fio(invoke, in_rk8s, db):
    lab, built = in_rk8s, _built(in_rk8s)
    assert lab.k8s is not None
    assert lab.k8s.fio_image == f"localhost/cephbench-fio:{built.fio}-ceph{built.version}"
    assert lab.k8s.pool == "rbd"  # rbd-fuse's default pool: Tentacle's takes no -p
    invoke("run", "quick", "--target", f"pvc:{lab.k8s.storage_class}", *SMALL)
    invoke("run", "quick", "--target", "rbd:lab", "--pods", "2", *SMALL)
    with Store(db) as store:
        runs = [store.get_run(str(i)) for i in (1, 2)]
        assert store.open_resources() == []
    for run in runs:
        assert run.status == "complete"
        assert run.environment["tools"]["fio"] == f"fio-{built.fio}"  # the pods' own fio
        assert sorted(r.workload for r in run.results) == [
            "rand_rd", "rand_wr", "seq_rd", "seq_wr",
        ]  # fmt: skip
    assert all(len({c.host for c in r.clients}) == 2 for r in runs[1].results)
    # the claims' volumes go (the provisioner releases each once its claim is deleted):
    # their PVs, images, rbd-fuse mounts in the view and loop devices
    for kind in ("namespaces", "pods"):
        assert ours(lab, kind) == [], kind
    wait_for(lambda: _pvs(lab) == [], "the runs' PVs to go", 120, poll=0.5)
    wait_for(lambda: _images(lab, lab.k8s.pool) == [], "the volumes' images to go", 60, poll=0.5)
    assert lab.view is not None
    volumes = lab.view / str(lab.dir / "k8s").lstrip("/")
    assert release_view.mounts_under(volumes) == [] and loops_under(volumes) == []


def test_lab_down_leaves_nothing_of_kubernetes_in_the_view(rk8s: LabInfo):
    """A claim's volume still in use when the lab goes down (the module's last test): its
    rbd-fuse (in the view), loop device and mounts go with it."""
    info = rk8s
    assert info.k8s is not None and info.view is not None
    claim = claim_of("left", info.k8s.storage_class, "16Mi")
    kubectl = [str(info.k8s.kubectl), f"--kubeconfig={info.k8s.kubeconfig}"]
    subprocess.run(
        [*kubectl, "create", "-f", "-"], input=json.dumps(claim), text=True, check=True,
        capture_output=True,
    )  # fmt: skip
    subprocess.run(
        [*kubectl, "wait", "pvc/left", "--for=jsonpath={.status.phase}=Bound", "--timeout=90s"],
        check=True,
        capture_output=True,
    )
    volumes = info.view / str(info.dir / "k8s").lstrip("/")
    assert release_view.mounts_under(volumes) and loops_under(volumes)  # rbd-fuse, in the view
    down(info.dir, purge=True)  # raises if anything is left
    assert release_view.leftovers(info.view) == [] and loops_under(volumes) == []
    assert not info.dir.exists()
