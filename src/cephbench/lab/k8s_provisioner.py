"""The lab's dynamic provisioner for the ``cephbench-lab`` StorageClass (a daemon of the lab).

``python -m cephbench.lab.k8s_provisioner <lab dir>/k8s``, started by ``lab up --k8s`` (pid
recorded). Once a second it asks kubectl for the claims and volumes; for each claim of the
class that waits for a volume it makes one (:mod:`.k8s_volumes`: an RBD image of the size
asked for, rbd-fuse, a loop device, ext4 for Filesystem claims) and creates a ``local`` PV
bound to that claim; for each of its PVs that is Released (its claim deleted) it deletes
the PV and undoes the volume, image included. SIGTERM stops it between two steps.
"""

from __future__ import annotations

import contextlib
import json
import signal
import sys
import time
from pathlib import Path
from types import FrameType

from cephbench.errors import CephbenchError
from cephbench.lab import k8s_volumes
from cephbench.lab.info import LabInfo, info_from_state
from cephbench.lab.k8s_conf import (
    POOL,
    PROVISIONER,
    STORAGE_CLASS,
    K8sLayout,
    image_size_mib,
)
from cephbench.lab.k8s_down import admin
from cephbench.lab.k8s_storage import persistent_volume, quantity_bytes
from cephbench.lab.paths import Layout
from cephbench.lab.state import load

INTERVAL = 1.0
_stopping = False


def _stop(signum: int, frame: FrameType | None) -> None:
    global _stopping
    _stopping = True


def pv_name(claim: dict) -> str:
    return f"pvc-{claim['metadata']['uid']}"


def wanted(claims: list[dict], have: set[str]) -> list[dict]:
    """Claims of the class that wait for a volume this provisioner has not made (pure)."""
    out = []
    for c in claims:
        spec, meta = c.get("spec", {}), c.get("metadata", {})
        if spec.get("storageClassName") != STORAGE_CLASS or spec.get("volumeName"):
            continue
        if meta.get("deletionTimestamp") or c.get("status", {}).get("phase") != "Pending":
            continue
        if pv_name(c) not in have:
            out.append(c)
    return out


def released(volumes: list[dict]) -> list[dict]:
    """This provisioner's PVs whose claim is gone (pure)."""
    return [
        v
        for v in volumes
        if v.get("metadata", {}).get("annotations", {}).get("pv.kubernetes.io/provisioned-by")
        == PROVISIONER
        and v.get("status", {}).get("phase") in ("Released", "Failed")
    ]


def failure_event(claim: dict, message: str) -> dict:
    """A Warning event on ``claim``: why its volume could not be made (pure)."""
    meta = claim["metadata"]
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"generateName": f"{meta['name']}.", "namespace": meta["namespace"]},
        "involvedObject": {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "name": meta["name"],
            "namespace": meta["namespace"],
            "uid": meta["uid"],
        },
        "type": "Warning",
        "reason": "ProvisioningFailed",
        "message": f"{PROVISIONER}: {message}"[:1000],
        "source": {"component": PROVISIONER},
    }


class Provisioner:
    def __init__(self, root: Path):
        self.kl = K8sLayout(root.parent)
        layout = Layout(root.parent)
        state = load(layout)
        if state is None or state.k8s is None:
            raise SystemExit(f"no lab with Kubernetes in {root.parent}")
        self.lab: LabInfo = info_from_state(layout, state)
        self.node = state.k8s.node
        self.pool = state.k8s.pool or POOL
        self.failed: dict[str, float] = {}
        self.k = admin(self.kl)

    def kubectl(self, *args: str, stdin: str | None = None) -> str:
        """kubectl's stdout; its failure as the one-line error kube/kubectl.py maps it to."""
        return self.k.run(*args, "--request-timeout=20s", timeout=40, stdin=stdin).stdout

    def once(self) -> None:
        claims = json.loads(self.kubectl("get", "pvc", "--all-namespaces", "-o", "json"))["items"]
        pvs = json.loads(self.kubectl("get", "pv", "-o", "json"))["items"]
        have = {v["metadata"]["name"] for v in pvs}
        have |= {r["pv"] for r in k8s_volumes.records(self.kl)}
        for claim in wanted(claims, have):
            if _stopping:
                return
            if time.monotonic() < self.failed.get(pv_name(claim), 0):
                continue
            self.provision(claim)
        for pv in released(pvs):
            if _stopping:
                return
            self.delete(pv)
        # volumes left by a claim deleted before its PV was created
        names = {v["metadata"]["name"] for v in pvs}
        uids = {c["metadata"]["uid"] for c in claims}
        for rec in k8s_volumes.records(self.kl):
            if rec["pv"] not in names and rec["pv"].removeprefix("pvc-") not in uids:
                k8s_volumes.release(self.kl, rec, self.lab)

    def provision(self, claim: dict) -> None:
        meta, spec = claim["metadata"], claim["spec"]
        name = pv_name(claim)
        block = spec.get("volumeMode") == "Block"
        request = quantity_bytes(
            spec.get("resources", {}).get("requests", {}).get("storage", "1Gi")
        )
        size_mib = image_size_mib(request)
        where = f"{meta['namespace']}/{meta['name']}"
        try:
            path = k8s_volumes.provision(self.kl, self.lab, name, self.pool, size_mib, block, where)
            pv = persistent_volume(
                name, claim, self.node, path, size_mib * 1024 * 1024, block, name, self.pool
            )
            self.kubectl("create", "-f", "-", stdin=json.dumps(pv))
            print(f"provisioned {name} for {where}: {self.pool}/{name} {size_mib} MiB", flush=True)
        except CephbenchError as e:
            print(f"provisioning {name} for {where} failed: {e}", flush=True)
            self.failed[name] = time.monotonic() + 10
            with contextlib.suppress(CephbenchError):  # `kubectl describe pvc` shows why
                self.kubectl("create", "-f", "-", stdin=json.dumps(failure_event(claim, str(e))))
            for rec in k8s_volumes.records(self.kl):
                if rec["pv"] == name:
                    k8s_volumes.release(self.kl, rec, self.lab)

    def delete(self, pv: dict) -> None:
        name = pv["metadata"]["name"]
        for rec in k8s_volumes.records(self.kl):
            if rec["pv"] == name:
                problems = k8s_volumes.release(self.kl, rec, self.lab)
                if problems:
                    print(f"removing {name}: {'; '.join(problems)}", flush=True)
                    return
        self.kubectl("delete", "pv", name, "--wait=false", "--ignore-not-found")
        print(f"deleted {name} and its image", flush=True)


def main(argv: list[str]) -> None:
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    provisioner = Provisioner(Path(argv[0]))
    print(f"provisioner for StorageClass {STORAGE_CLASS} ({PROVISIONER}) started", flush=True)
    while not _stopping:
        try:
            provisioner.once()
        except CephbenchError as e:
            print(f"error: {e}", flush=True)
        for _ in range(int(INTERVAL / 0.1)):
            if _stopping:
                break
            time.sleep(0.1)


if __name__ == "__main__":
    main(sys.argv[1:])
