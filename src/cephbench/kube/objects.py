"""The Kubernetes objects cephbench creates, as plain dicts (``kubectl create -f -`` takes
their JSON): a namespace, PersistentVolumeClaims, idle fio pods, Secrets and ConfigMaps.

Every one carries ``app.kubernetes.io/managed-by=cephbench`` and the run's id
(``cephbench.io/run``): cephbench only ever deletes objects with both (:func:`selector`)."""

from __future__ import annotations

import re
import secrets
from typing import Any

MANAGED_BY = "app.kubernetes.io/managed-by"
RUN_LABEL = "cephbench.io/run"
MANAGER = "cephbench"
WORKDIR = "/cephbench"
"""The pod's scratch directory (an emptyDir): job files, fio's output, its start gate's times."""
DATA_MOUNT = "/data"
"""Where a Filesystem claim is mounted in the pod."""
DEVICE_PATH = "/dev/cephbench"
"""Where a Block claim's device appears in the pod."""
CEPH_DIR = "/etc/ceph"
"""Where a librbd pod finds ceph.conf and its client's keyring (the Secret's files)."""
DEFAULT_IMAGE = "ghcr.io/kastenhq/kubestr:latest"
"""kubestr's public image, which ships fio (and sh, date, sleep); tests never pull it."""
GRACE_SECONDS = 1
"""The idle pod's command ignores SIGTERM as PID 1 (``sleep``): no 30 s wait on deletion."""
_DNS = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


def labels(run_id: int) -> dict[str, str]:
    return {MANAGED_BY: MANAGER, RUN_LABEL: str(run_id)}


def selector(run_id: int | None = None) -> str:
    """``-l`` selecting cephbench's objects (of run ``run_id``)."""
    base = f"{MANAGED_BY}={MANAGER}"
    return base if run_id is None else f"{base},{RUN_LABEL}={run_id}"


def is_ours(obj: dict[str, Any], run_id: int | None = None) -> bool:
    """Whether ``obj`` carries cephbench's labels (and run ``run_id``'s)."""
    found = (obj.get("metadata") or {}).get("labels") or {}
    if found.get(MANAGED_BY) != MANAGER:
        return False
    return run_id is None or found.get(RUN_LABEL) == str(run_id)


def fresh_namespace(run_id: int) -> str:
    """``cephbench-<run>-<hex>``: unique across stores sharing a cluster."""
    return f"cephbench-{run_id}-{secrets.token_hex(3)}"


def valid_name(name: str) -> bool:
    """A DNS-1123 label (what namespaces, claims and pods are named)."""
    return len(name) <= 63 and bool(_DNS.match(name))


def _meta(name: str, run_id: int, namespace: str | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "labels": labels(run_id)}
    if namespace is not None:
        meta["namespace"] = namespace
    return meta


def namespace(name: str, run_id: int) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": _meta(name, run_id)}


def pvc(
    name: str,
    ns: str,
    run_id: int,
    storage_class: str,
    size: str,
    volume_mode: str = "Filesystem",
    access_mode: str = "ReadWriteOnce",
) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": _meta(name, run_id, ns),
        "spec": {
            "storageClassName": storage_class,
            "accessModes": [access_mode],
            "volumeMode": volume_mode,
            "resources": {"requests": {"storage": size}},
        },
    }


def pod(
    name: str,
    ns: str,
    run_id: int,
    claim: str | None,
    image: str,
    *,
    volume_mode: str = "Filesystem",
    node_selector: dict[str, str] | None = None,
    cpu: str | None = None,
    memory: str | None = None,
    spread: bool = False,
    pull_policy: str = "IfNotPresent",
    secret: str | None = None,
    host_network: bool = False,
    tolerations: list[dict[str, str]] | None = None,
) -> dict[str, Any]:
    """An idle pod (fio runs in it through ``kubectl exec``) on ``claim``: the claim at
    DATA_MOUNT (Filesystem) or as the device DEVICE_PATH (Block); or, without a claim, on
    nothing but its scratch directory (librbd's pods: fio reaches Ceph over the network).
    ``secret``: a Secret mounted read-only at CEPH_DIR (ceph.conf and the client's key);
    ``host_network``: the node's network namespace (monitors on loopback: targets/pods.py);
    ``tolerations``: :func:`parse_toleration`'s, put on the pod as they are."""
    container: dict[str, Any] = {
        "name": "fio",
        "image": image,
        "imagePullPolicy": pull_policy,
        "command": ["sleep", "infinity"],
        "workingDir": "/",
    }
    container["volumeMounts"] = [{"name": "work", "mountPath": WORKDIR}]
    volumes: list[dict[str, Any]] = []
    if claim is not None:
        volumes.append({"name": "data", "persistentVolumeClaim": {"claimName": claim}})
        if volume_mode == "Block":
            container["volumeDevices"] = [{"name": "data", "devicePath": DEVICE_PATH}]
        else:
            container["volumeMounts"].append({"name": "data", "mountPath": DATA_MOUNT})
    volumes.append({"name": "work", "emptyDir": {}})  # scratch: the image needs no mkdir
    if secret is not None:
        container["volumeMounts"].append({"name": "ceph", "mountPath": CEPH_DIR, "readOnly": True})
        volumes.append({"name": "ceph", "secret": {"secretName": secret}})
    resources: dict[str, dict[str, str]] = {}
    for key, value in (("cpu", cpu), ("memory", memory)):
        if value:
            resources.setdefault("requests", {})[key] = value
            resources.setdefault("limits", {})[key] = value
    if resources:
        container["resources"] = resources
    spec: dict[str, Any] = {
        "restartPolicy": "Never",
        "terminationGracePeriodSeconds": GRACE_SECONDS,
        "automountServiceAccountToken": False,
        "enableServiceLinks": False,
        "containers": [container],
        "volumes": volumes,
    }
    if host_network:
        spec["hostNetwork"] = True
        spec["dnsPolicy"] = "ClusterFirstWithHostNet"
    if node_selector:
        spec["nodeSelector"] = dict(node_selector)
    if tolerations:
        spec["tolerations"] = [dict(t) for t in tolerations]
    if spread:  # one pod per node: the run's pods repel one another
        spec["affinity"] = {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "labelSelector": {"matchLabels": {RUN_LABEL: str(run_id)}},
                        "topologyKey": "kubernetes.io/hostname",
                    }
                ]
            }
        }
    return {"apiVersion": "v1", "kind": "Pod", "metadata": _meta(name, run_id, ns), "spec": spec}


def secret(name: str, ns: str, run_id: int, data: dict[str, str]) -> dict[str, Any]:
    """A Secret of text values (``stringData``: the server encodes them)."""
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": _meta(name, run_id, ns),
        "type": "Opaque",
        "stringData": dict(data),
    }


def config_map(name: str, ns: str, run_id: int, data: dict[str, str]) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": _meta(name, run_id, ns),
        "data": dict(data),
    }


def parse_node_selector(text: str | None) -> dict[str, str]:
    """``--node-selector k=v,k2=v2`` as a dict; ValueError naming a malformed pair."""
    out: dict[str, str] = {}
    for part in (text or "").split(","):
        if not part.strip():
            continue
        key, sep, value = part.strip().partition("=")
        if not sep or not key:
            raise ValueError(f"'{part}' is not KEY=VALUE")
        out[key] = value
    return out


EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def parse_toleration(text: str) -> dict[str, str]:
    """``KEY[=VALUE]:EFFECT`` (kubectl taint's syntax) as a pod's toleration: ``Equal``
    with a value, ``Exists`` without; ValueError saying what is wrong."""
    rest, sep, effect = text.rpartition(":")
    if not sep or not rest:
        raise ValueError(f"'{text}' is not KEY[=VALUE]:EFFECT")
    if effect not in EFFECTS:
        raise ValueError(f"'{text}': the effect is one of {', '.join(EFFECTS)}")
    key, eq, value = rest.partition("=")
    if not key:
        raise ValueError(f"'{text}' names no key")
    if eq:
        return {"key": key, "operator": "Equal", "value": value, "effect": effect}
    return {"key": key, "operator": "Exists", "effect": effect}
