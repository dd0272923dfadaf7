"""The manifests of the lab's storage, as pure functions: the ``cephbench-lab`` StorageClass,
the PVs its provisioner makes, and Kubernetes quantities read as bytes.

Split from :mod:`.k8s_conf` (the cluster's own paths, ports, argument lists and
configuration files), which it builds on: :mod:`.k8s` applies the class, and
:mod:`.k8s_provisioner` sizes claims and writes their PVs.
"""

from __future__ import annotations

from pathlib import Path

from cephbench.lab.k8s_conf import BACKEND, POOL, PROVISIONER, STORAGE_CLASS, short_id


def storage_class(lab_dir: Path, pool: str = POOL) -> dict:
    """The ``cephbench-lab`` StorageClass: the lab's provisioner, RBD images in ``pool``."""
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {
            "name": STORAGE_CLASS,
            "labels": {"app.kubernetes.io/managed-by": "cephbench"},
        },
        "provisioner": PROVISIONER,
        "reclaimPolicy": "Delete",
        "volumeBindingMode": "Immediate",
        "allowVolumeExpansion": False,
        "parameters": {
            "pool": pool,
            "clusterID": short_id(lab_dir),
            "imageFeatures": "layering",
            "cephbench.lab/backend": BACKEND,
        },
    }


def persistent_volume(
    name: str,
    claim: dict,
    node: str,
    path: str,
    size_bytes: int,
    block: bool,
    image: str,
    pool: str = POOL,
) -> dict:
    """A ``local`` PV on ``path`` (a mount, or a loop device for Block), bound to ``claim``."""
    meta = claim["metadata"]
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {
            "name": name,
            "labels": {"app.kubernetes.io/managed-by": "cephbench"},
            "annotations": {
                "pv.kubernetes.io/provisioned-by": PROVISIONER,
                "cephbench.lab/pool": pool,
                "cephbench.lab/image": image,
            },
        },
        "spec": {
            "capacity": {"storage": str(size_bytes)},
            "accessModes": claim["spec"].get("accessModes") or ["ReadWriteOnce"],
            "persistentVolumeReclaimPolicy": "Delete",
            "storageClassName": STORAGE_CLASS,
            "volumeMode": "Block" if block else "Filesystem",
            "local": {"path": path},
            "claimRef": {
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "namespace": meta["namespace"],
                "name": meta["name"],
                "uid": meta["uid"],
            },
            "nodeAffinity": {
                "required": {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {
                                    "key": "kubernetes.io/hostname",
                                    "operator": "In",
                                    "values": [node],
                                }
                            ]
                        }
                    ]
                }
            },
        },
    }


_UNITS = {"": 1, "k": 1000, "M": 1000**2, "G": 1000**3, "T": 1000**4, "P": 1000**5}
_UNITS |= {"Ki": 1024, "Mi": 1024**2, "Gi": 1024**3, "Ti": 1024**4, "Pi": 1024**5}


def quantity_bytes(text: str) -> int:
    """Bytes in a Kubernetes quantity ("1Gi", "500M", "1073741824", "1.5Gi")."""
    text = str(text).strip()
    for suffix in sorted(_UNITS, key=len, reverse=True):
        if suffix and text.endswith(suffix):
            return int(float(text[: -len(suffix)]) * _UNITS[suffix])
    return int(float(text))
