"""What a run on Kubernetes records of where it ran: the server's version, the nodes (kernel,
OS, CPUs), the StorageClass, each claim's volume (CSI driver and attributes, or local path)
and the RBD image behind a PV. Pure functions of the objects ``kubectl get`` returns, beside
the one call that reads them (:func:`cluster_fingerprint`)."""

from __future__ import annotations

from typing import Any

from cephbench.kube.kubectl import Kubectl


def cluster_fingerprint(k: Kubectl, storage_class: str | None) -> dict[str, Any]:
    """Kubernetes' version, the nodes (kernel, OS, CPUs), and the StorageClass."""
    sc = k.get("storageclass", storage_class) if storage_class else None
    return fingerprint_of(k.server_version(), k.items("nodes"), sc)


def fingerprint_of(
    version: str, nodes: list[dict[str, Any]], sc: dict[str, Any] | None
) -> dict[str, Any]:
    """:func:`cluster_fingerprint` of what was read already (``kubectl version``, the nodes,
    the StorageClass or None)."""
    out: dict[str, Any] = {"kubernetes": version}
    out["nodes"] = [node_fingerprint(n) for n in nodes]
    if sc is not None:
        out["storage_class"] = class_fingerprint(sc)
    return out


def node_fingerprint(node: dict[str, Any]) -> dict[str, Any]:
    info = (node.get("status") or {}).get("nodeInfo") or {}
    cap = (node.get("status") or {}).get("capacity") or {}
    return {
        "name": node.get("metadata", {}).get("name"),
        "kernel": info.get("kernelVersion"),
        "os": info.get("osImage"),
        "arch": info.get("architecture"),
        "cpus": cap.get("cpu"),
        "memory": cap.get("memory"),
        "kubelet": info.get("kubeletVersion"),
        "runtime": info.get("containerRuntimeVersion"),
    }


def class_fingerprint(sc: dict[str, Any]) -> dict[str, Any]:
    annotations = sc.get("metadata", {}).get("annotations") or {}
    return {
        "name": sc.get("metadata", {}).get("name"),
        "provisioner": sc.get("provisioner"),
        "parameters": dict(sc.get("parameters") or {}),
        "binding_mode": sc.get("volumeBindingMode", "Immediate"),
        "reclaim_policy": sc.get("reclaimPolicy", "Delete"),
        "default": annotations.get("storageclass.kubernetes.io/is-default-class") == "true",
    }


LAB_POOL, LAB_IMAGE = "cephbench.lab/pool", "cephbench.lab/image"
"""The annotations the lab's provisioner puts on its PVs (lab/k8s_storage.py)."""
RBD_CSI = "rbd.csi.ceph.com"


def rbd_image_of(pv: dict[str, Any]) -> dict[str, str] | None:
    """The RBD image behind a PV (``pool``, ``image``, and ``namespace`` when it is in a
    RADOS namespace): a ceph-csi RBD volume's attributes (``pool`` and ``imageName``; a
    static volume's handle is its image), or the lab's annotations; None: not an RBD image."""
    annotations = (pv.get("metadata") or {}).get("annotations") or {}
    if annotations.get(LAB_POOL) and annotations.get(LAB_IMAGE):
        return {"pool": annotations[LAB_POOL], "image": annotations[LAB_IMAGE]}
    csi = (pv.get("spec") or {}).get("csi") or {}
    if not str(csi.get("driver", "")).endswith(RBD_CSI):
        return None
    attrs = csi.get("volumeAttributes") or {}
    image = attrs.get("imageName")
    if not image and attrs.get("staticVolume") == "true":
        image = csi.get("volumeHandle")
    if not attrs.get("pool") or not image:
        return None
    ref = {"pool": attrs["pool"], "image": image}
    if attrs.get("radosNamespace"):
        ref["namespace"] = attrs["radosNamespace"]
    return ref


def volume_fingerprint(claim: dict[str, Any], pv: dict[str, Any]) -> dict[str, Any]:
    """A claim's volume: access and volume mode, capacity, and the PV's CSI driver and
    attributes (ceph-csi's pool, imageName, clusterID) or local path."""
    spec = pv.get("spec") or {}
    out: dict[str, Any] = {
        "volume": pv.get("metadata", {}).get("name"),
        "access_modes": (claim.get("spec") or {}).get("accessModes"),
        "volume_mode": (claim.get("spec") or {}).get("volumeMode", "Filesystem"),
        "capacity": (spec.get("capacity") or {}).get("storage"),
        "reclaim_policy": spec.get("persistentVolumeReclaimPolicy"),
    }
    if "csi" in spec:
        csi = spec["csi"]
        out["csi"] = {
            "driver": csi.get("driver"),
            "fs_type": csi.get("fsType"),
            "volume_handle": csi.get("volumeHandle"),
            "attributes": dict(csi.get("volumeAttributes") or {}),
        }
    elif "local" in spec:
        out["local"] = {"path": spec["local"].get("path"), "fs_type": spec["local"].get("fsType")}
    elif "hostPath" in spec:
        out["host_path"] = spec["hostPath"].get("path")
    return out
