"""What a run on Kubernetes was asked for (``--pods``, ``--image``, ``--kubeconfig``...):
the options the ``pvc:`` target takes, as one typed value the run request stores."""

from __future__ import annotations

from dataclasses import dataclass

from cephbench.kube.objects import DEFAULT_IMAGE

VOLUME_MODES = ("Filesystem", "Block")


@dataclass(frozen=True)
class KubeOptions:
    pods: int = 1
    volume_mode: str = "Filesystem"
    image: str = DEFAULT_IMAGE
    kubeconfig: str | None = None
    context: str | None = None
    namespace: str | None = None
    """An existing namespace (only cephbench's labelled objects are made there); None: a
    fresh one for the run, deleted at its end."""
    node_selector: str | None = None
    """``k=v,k2=v2``"""
    spread: bool = False
    """At most one of the run's pods per node."""
    pod_cpu: str | None = None
    pod_memory: str | None = None

    @property
    def given(self) -> bool:
        """Whether any option differs from its default (only the pvc: target takes them)."""
        return self != KubeOptions()
