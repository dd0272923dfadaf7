"""``cephbench k8s``: a Kubernetes cluster as cephbench sees it (``check``), and the fio
image for clusters that cannot pull one (``image``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from cephbench.cli.common import console, debug_option, format_option, print_json
from cephbench.errors import CephbenchError


@click.group()
def k8s() -> None:
    """Kubernetes: what a cluster offers cephbench's pvc: target, and its fio image.

    `cephbench k8s check` shows the server, nodes, StorageClasses, CSI drivers and whether
    this user may do everything a run does (docs/k8s-role.yaml grants exactly that).
    """


def kube_options(f):
    f = click.option("--context", help="kubectl's --context (default: the current one).")(f)
    return click.option(
        "--kubeconfig", metavar="FILE", help="kubectl's --kubeconfig (default: KUBECONFIG)."
    )(f)


@k8s.command()
@kube_options
@click.option(
    "--namespace",
    metavar="NS",
    help="Check the namespaced permissions in NS (what `run --namespace NS` needs); default: "
    "in every namespace.",
)
@format_option("table", "json")
@debug_option
def check(kubeconfig: str | None, context: str | None, namespace: str | None, fmt: str) -> None:
    """Show the server, nodes, StorageClasses and CSI drivers, and what this user may do.

    Exits non-zero when the user may not do something a run needs.
    """
    from cephbench import contracts
    from cephbench.kube.check import gather
    from cephbench.kube.kubectl import Kubectl

    found = gather(Kubectl(kubeconfig, context), namespace)
    if fmt == "json":
        print_json(contracts.document(contracts.K8S, **found))
    else:
        _print(found)
    denied = [p for p in found["permissions"] if not p["allowed"]]
    if denied:
        listed = ", ".join(f"{p['verb']} {p['resource']}" for p in denied)
        raise CephbenchError(
            f"this user may not: {listed}",
            hint="a cluster admin can grant docs/k8s-role.yaml (with --namespace, creating "
            "namespaces is not needed)",
        )


@k8s.command()
@click.option(
    "--output",
    "-o",
    "out",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write the image archive (e.g. fio.tar).",
)
@debug_option
def image(out: Path) -> None:
    """Build the fio image from this machine's fio, as an OCI archive, without a registry.

    Load it on a node with e.g. `ctr -n k8s.io images import fio.tar`, then run with
    --image set to the name this prints.
    """
    from cephbench.kube.image import build_fio_image  # type: ignore[import-not-found,unused-ignore]

    made = build_fio_image(out)
    console.print(f"wrote {out}: the image {getattr(made, 'ref', made)}")


def _print(found: dict[str, Any]) -> None:
    from rich.table import Table

    console.print(
        f"Kubernetes {found['server_version']}"
        + (f" (context {found['context']})" if found["context"] else "")
    )
    nodes = Table("node", "ready", "kubelet", "kernel", "CPUs", "memory", "runtime")
    for n in found["nodes"]:
        nodes.add_row(
            n["name"], "yes" if n["ready"] else "[red]no[/]", n["kubelet"] or "?",
            n["kernel"] or "?", str(n["cpus"] or "?"), n["memory"] or "?", n["runtime"] or "?",
        )  # fmt: skip
    console.print(nodes)
    classes = Table("StorageClass", "provisioner", "binding", "reclaim", "parameters")
    for c in found["storage_classes"]:
        params = ", ".join(f"{k}={v}" for k, v in sorted(c["parameters"].items()))
        classes.add_row(
            c["name"] + (" (default)" if c["default"] else ""), c["provisioner"],
            c["binding_mode"], c["reclaim_policy"], params or "-",
        )  # fmt: skip
    console.print(classes)
    drivers = ", ".join(d["name"] for d in found["csi_drivers"]) or "none"
    console.print(f"CSI drivers: {drivers}")
    perms = Table("verb", "resource", "allowed", "needed for")
    for p in found["permissions"]:
        perms.add_row(p["verb"], p["resource"], "yes" if p["allowed"] else "[red]no[/]", p["why"])
    console.print(perms)
    for line in found["unavailable"]:
        console.print(f"[yellow]not shown:[/] {line}")
