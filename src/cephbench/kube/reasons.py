"""Why a claim stays Pending or a pod does not run, from the objects and their events
(``kubectl get ... -o json``), as one line naming the fix. Pure functions: tests feed them
recorded outputs."""

from __future__ import annotations

from typing import Any

IMAGE_ERRORS = ("ErrImageNeverPull", "ImagePullBackOff", "ErrImagePull", "InvalidImageName")


def events_for(events: list[dict[str, Any]], kind: str, name: str) -> list[dict[str, Any]]:
    """The events about one object, oldest first."""
    mine = [
        e
        for e in events
        if (e.get("involvedObject") or {}).get("kind") == kind
        and (e.get("involvedObject") or {}).get("name") == name
    ]
    return sorted(mine, key=lambda e: e.get("lastTimestamp") or e.get("eventTime") or "")


def _message(event: dict[str, Any]) -> str:
    return " ".join(str(event.get("message", "")).split())


def pending_reason(claim: dict[str, Any], events: list[dict[str, Any]]) -> str | None:
    """Why claim ``claim`` is not Bound (None when it is, or nothing says why yet)."""
    status = (claim.get("status") or {}).get("phase")
    if status == "Bound":
        return None
    name = claim.get("metadata", {}).get("name", "")
    mine = events_for(events, "PersistentVolumeClaim", name)
    # a provisioner's failure first: the controller's "waiting for a volume to be created"
    # (ExternalProvisioning) comes back every few seconds after it and would hide it
    failed = [e for e in mine if e.get("reason") == "ProvisioningFailed"]
    for event in [*failed[-1:], *reversed(mine)]:
        reason, message = event.get("reason", ""), _message(event)
        if reason == "WaitForFirstConsumer":
            return (
                "its StorageClass binds a volume only once a pod using it is scheduled "
                "(WaitForFirstConsumer), and no node can take the pod yet: " + message
            )
        if reason == "ExternalProvisioning":
            return (
                "no provisioner has answered: the StorageClass's provisioner (its CSI driver) "
                "is not running or not installed: " + message
            )
        if reason == "ProvisioningFailed":
            if "exceeded quota" in message or "forbidden" in message.lower():
                return f"a quota refuses it: {message}"
            return f"provisioning failed: {message}"
        if reason in ("FailedBinding", "VolumeMismatch"):
            return f"{reason}: {message}"
    if status == "Lost":
        return "its volume is lost (the PV it was bound to is gone)"
    return None


def pod_failure(pod: dict[str, Any], events: list[dict[str, Any]], image: str) -> str | None:
    """Why pod ``pod`` will not run (None while it may still): the image cannot be had,
    OOMKilled, evicted, unschedulable (the scheduler's reason), or a failed container."""
    status = pod.get("status") or {}
    name = pod.get("metadata", {}).get("name", "")
    if status.get("reason") == "Evicted":
        return f"pod {name} was evicted: {' '.join(str(status.get('message', '')).split())}"
    for cs in status.get("containerStatuses") or []:
        state = cs.get("state") or {}
        waiting = state.get("waiting") or {}
        if waiting.get("reason") in IMAGE_ERRORS:
            return (
                f"the image {image} is not on the node and cannot be pulled "
                f"({waiting['reason']}: {' '.join(str(waiting.get('message', '')).split())})"
            )
        if waiting.get("reason") in ("CreateContainerError", "CreateContainerConfigError"):
            return f"pod {name} cannot start its container: {waiting.get('message', '')}"
        for key in ("terminated",):
            term = state.get(key) or (cs.get("lastState") or {}).get(key) or {}
            if term.get("reason") == "OOMKilled":
                return f"pod {name} was OOMKilled: its memory limit is too low for fio"
            if term:
                return (
                    f"pod {name}'s container ended ({term.get('reason', 'exit')} "
                    f"{term.get('exitCode', '')}): {term.get('message', '')}".rstrip(": ")
                )
    if status.get("phase") == "Failed":
        return f"pod {name} failed: {status.get('reason') or status.get('message') or 'Failed'}"
    for cond in status.get("conditions") or []:
        if (
            cond.get("type") == "PodScheduled"
            and cond.get("status") == "False"
            and cond.get("reason") == "Unschedulable"
        ):
            message = " ".join(str(cond.get("message", "")).split())
            return f"no node can take pod {name}: {message}"
    for event in reversed(events_for(events, "Pod", name)):
        if event.get("reason") == "FailedScheduling":
            return f"no node can take pod {name}: {_message(event)}"
        if event.get("reason") == "FailedMount" and "timed out" not in _message(event):
            return f"pod {name} cannot mount its volume: {_message(event)}"
    return None


def image_hint(image: str) -> str:
    return (
        f"pass --image with an image that has fio, or load one on the nodes: "
        f"cephbench k8s image -o fio.tar (then import fio.tar into the nodes' runtime); "
        f"it was --image {image}"
    )
