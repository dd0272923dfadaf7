"""What a run on Kubernetes was asked for (``--pods``, ``--image``, ``--kubeconfig``...):
the options the ``pvc:`` target takes (and ``rbd:`` with ``--pods``), as one
typed value the run request stores."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from cephbench.errors import UsageError
from cephbench.kube.objects import DEFAULT_IMAGE, parse_node_selector, parse_toleration, valid_name

VOLUME_MODES = ("Filesystem", "Block")


@dataclass(frozen=True)
class KubeOptions:
    pods: int | None = None
    """``--pods N``; None: not given (one pod for ``pvc:``, fio on this machine for ``rbd:``)."""
    volume_mode: str = "Filesystem"
    image: str | None = None
    """``--image``; None: not given, chosen by :meth:`with_image` once the nodes are read."""
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
    tolerations: tuple[str, ...] = field(default=(), metadata={"stored": "if_set"})
    """``--toleration KEY[=VALUE]:EFFECT``, each as given."""

    def __post_init__(self) -> None:  # a stored request gives a list
        object.__setattr__(self, "tolerations", tuple(self.tolerations or ()))

    def check_names(self) -> None:
        """``--namespace`` is a namespace name and ``--node-selector`` reads as k=v pairs;
        else a one-line usage error (every target that makes pods asks this first)."""
        if self.namespace is not None and not valid_name(self.namespace):
            raise UsageError(f"--namespace {self.namespace} is not a namespace name")
        try:
            parse_node_selector(self.node_selector)
        except ValueError as e:
            raise UsageError(
                f"--node-selector: {e}", hint="e.g. --node-selector disk=ssd"
            ) from None

    def with_image(self, nodes: Iterable[Mapping]) -> KubeOptions:
        """These options with the pods' image chosen when ``--image`` was not given:
        cephbench's fio image when every node the pods may land on holds it (the lab's node
        does), else kubestr's public one (``DEFAULT_IMAGE``); ``nodes``: ``kubectl get
        nodes``' items."""
        if self.image is not None:
            return self
        from cephbench.kube.image import held_fio_image

        held = held_fio_image(nodes, parse_node_selector(self.node_selector))
        return replace(self, image=held or DEFAULT_IMAGE)

    @property
    def pod_image(self) -> str:
        """The pods' image: ``--image``, or the one :meth:`with_image` chose."""
        if self.image is None:
            raise AssertionError("the pods' image is chosen (with_image) before pods are made")
        return self.image

    @property
    def count(self) -> int:
        """How many pods: ``--pods``, else one."""
        return self.pods or 1

    @property
    def toleration_specs(self) -> list[dict[str, str]]:
        """The tolerations as a pod takes them (ValueError for a malformed one)."""
        return [parse_toleration(t) for t in self.tolerations]

    @property
    def given(self) -> bool:
        """Whether any option differs from its default."""
        return self != KubeOptions()
