"""What ``cephbench run`` was asked to do, as typed values, and the versioned JSON it is
stored as (``params["request"]``) so ``--resume`` can run the rest of a run later.

The request is the command line's options grouped as they are shown in ``run --help``
(overrides, sweep axes, steady state, adaptive repeats, capture, Ceph connection, pools,
health, devices, rados bench), each validated once when it is built. A group that a lower
layer takes as it is (the overrides, health rules, steady state, sweep axes, rados bench's
and the network suite's options) is that layer's own type; ``planning/resolve.py`` turns a
request into what runs. It records what the
user asked, not what it resolved to: fio values keep the user's spelling (``2m``, ``4k``),
and a missing ``--target`` stays missing (resolved again when the run starts).

This module owns the stored format, ``cephbench.run-request/N``: renaming a flag changes
the command line only. A request stored by cephbench before the format existed (the raw
keyword arguments of the click command, keyed by option names) is migrated when read
(``request_legacy.py``); a request from a newer cephbench (a later version) is refused with
a clear message.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from cephbench.ceph.connection import DEFAULT_TIMEOUT
from cephbench.ceph.session import HealthOptions
from cephbench.errors import UsageError
from cephbench.kube.options import KubeOptions
from cephbench.system.units import parse_seconds
from cephbench.tools.fio.steady_criterion import SteadyState
from cephbench.tools.fio.sweep import AXES, Axes
from cephbench.tools.iperf3.options import NetworkOptions
from cephbench.tools.plan import OWN, Overrides
from cephbench.tools.rados_bench.options import RadosBenchOptions

if TYPE_CHECKING:
    from cephbench.ceph.connection import Connection
    from cephbench.planning.resolve import ResolvedRun

SCHEMA_NAME = "cephbench.run-request"
VERSION = 1
SCHEMA = f"{SCHEMA_NAME}/{VERSION}"
DEFAULT_MAX_REPEATS = 10
DEFAULT_PG_NUM = 32


@dataclass(frozen=True)
class AdaptiveOptions:
    """Repeat each workload until its 95 % CI half-width is within ``target_ci`` of the
    mean (a fraction), ``max_repeats`` times at most, no new repeat after ``max_time`` s."""

    target_ci: float | None = None
    max_repeats: int = DEFAULT_MAX_REPEATS
    max_time: float | None = None

    @classmethod
    def parse(
        cls,
        target_ci: str | None,
        max_repeats: int = DEFAULT_MAX_REPEATS,
        max_time: str | None = None,
    ) -> AdaptiveOptions:
        """From ``--target-ci 2%``, ``--max-repeats`` and ``--max-time 30m``."""
        if target_ci is None:
            if max_time:
                raise UsageError(
                    "--max-time goes with --target-ci", hint="e.g. --target-ci 2% --max-time 30m"
                )
            return cls(None, max_repeats, None)
        try:
            pct = float(target_ci.strip().removesuffix("%"))
        except ValueError:
            pct = -1.0
        if not 0 < pct <= 1000:
            raise UsageError(f"--target-ci {target_ci}: a percentage above 0, e.g. 2%")
        return cls(pct / 100, max_repeats, parse_seconds(max_time) if max_time else None)


@dataclass(frozen=True)
class CaptureOptions:
    """fio's per-interval logs as time series; ``per_io_log``: every I/O's latency."""

    logs: bool = True
    per_io_log: bool = False


IF_SET = {"stored": "if_set"}
"""Field metadata: an option added after run requests were first stored is stored only when
set, so the requests of runs that do not use it stay as they were, byte for byte."""


@dataclass(frozen=True)
class CephConnectionOptions:
    """How to reach the cluster; unset values come from the lab or /etc/ceph."""

    conf: str | None = None
    client_id: str | None = None
    keyring: str | None = None
    cluster: str | None = None
    connect_timeout: float = DEFAULT_TIMEOUT
    ceph_cli: str | None = field(default=None, metadata=IF_SET)
    """``--ceph-cli PREFIX``: how the cluster's own ceph, rados and rbd are reached."""

    @property
    def given(self) -> bool:
        """Whether any connection detail was given (only Ceph targets take them)."""
        return any((self.conf, self.client_id, self.keyring, self.cluster, self.ceph_cli))

    def connect(self) -> Connection:
        """The connection these options ask for (``lab/connect.py`` resolves them), with the
        tools ``--ceph-cli`` names."""
        from cephbench.ceph.tools import CephTools
        from cephbench.lab.connect import resolve

        tools = CephTools.from_cli(self.ceph_cli) if self.ceph_cli else None
        return resolve(
            self.conf, self.client_id, self.keyring, self.cluster, self.connect_timeout, tools
        )


@dataclass(frozen=True)
class PoolOptions:
    """Pools and images cephbench creates on a Ceph target."""

    size: int | None = None
    pg_num: int = DEFAULT_PG_NUM
    prefill: bool = True


@dataclass(frozen=True)
class DeviceOptions:
    """What may be overwritten, and the page cache before each workload."""

    destroy_data: str | None = None
    drop_caches: bool = False
    hosts: str | None = None
    """``--hosts``: an inventory (lab, ceph, a file, h1,h2) to drop caches on and fingerprint."""
    cephfs_client: str = field(default="ceph-fuse", metadata=IF_SET)
    """``--client``: what mounts a ``cephfs:`` target, ceph-fuse or the kernel."""


@dataclass(frozen=True)
class ClientsOptions:
    """``--clients``: fio from these hosts at once (an inventory spec), and whether they share
    the run's RBD image."""

    spec: str | None = None
    shared_image: bool = False
    shared_dir: bool = field(default=False, metadata=IF_SET)
    """``--shared-dir``: on a ``cephfs:`` target, every client in the run's one directory."""


@dataclass(frozen=True)
class RunRequest:
    """Everything ``cephbench run SUITE`` was asked to do."""

    suite: str
    target: str | None = None
    """``KIND:LOCATION`` as given; None: the suite's default or the running lab."""
    label: str | None = None
    repeat: int = 1
    overrides: Overrides = field(default_factory=Overrides)
    """``--runtime``, ``--size``, ``--ramp-time`` (fio's spelling); one-value axes join them
    when the request is resolved."""
    axes: Axes = field(default_factory=Axes)
    steady: SteadyState | None = None
    adaptive: AdaptiveOptions = field(default_factory=AdaptiveOptions)
    capture: CaptureOptions = field(default_factory=CaptureOptions)
    ceph: CephConnectionOptions = field(default_factory=CephConnectionOptions)
    pool: PoolOptions = field(default_factory=PoolOptions)
    health: HealthOptions = field(default_factory=HealthOptions)
    device: DeviceOptions = field(default_factory=DeviceOptions)
    rados_bench: RadosBenchOptions = field(default_factory=RadosBenchOptions)
    clients: ClientsOptions = field(default_factory=ClientsOptions)
    network: NetworkOptions = field(default_factory=NetworkOptions)
    kube: KubeOptions = field(default_factory=KubeOptions)
    """``pvc:`` targets: pods, image, kubeconfig... (kube/options.py)."""

    def __post_init__(self) -> None:
        if self.overrides != Overrides(**self.overrides.own()):
            raise ValueError("a run request's --iodepth, --bs... are its axes, not overrides")

    @property
    def repeats(self) -> int:
        """How often each workload runs at most: ``--max-repeats`` with ``--target-ci``."""
        return self.adaptive.max_repeats if self.adaptive.target_ci is not None else self.repeat

    def resolve(
        self, resume: int | None = None, note: Callable[[str], None] = lambda _: None
    ) -> ResolvedRun:
        """The plan, target and run options of this request, every part checked; nothing
        runs and nothing is created (``resume``: a run of it to finish; ``note``: told what
        the user should know, e.g. that a job file runs as written)."""
        from cephbench.planning import resolve as r

        plan = r.plan(self.suite, self.overrides, self.axes, self.steady, self.rados_bench, note)
        r.check(plan, self.network, resume)
        target = r.target(self.target, plan, self.device, self.ceph, self.pool, self.kube)
        r.check_shared(target, self.clients)
        options = r.run_options(
            self.health, self.adaptive, self.capture, self.device, self.clients, self.network
        )
        return r.ResolvedRun(plan, target, options, self.label, self.repeats, self.to_json())

    def to_json(self) -> dict[str, Any]:
        """The stored form: ``{"schema": "cephbench.run-request/1", ...}``. A part added after
        requests were first stored (``kube``) is stored only when set, as :data:`IF_SET`
        fields are: the requests of runs that do not use it stay as they were, byte for byte."""
        kube = {"kube": _plain(self.kube)} if self.kube != KubeOptions() else {}
        return {
            "schema": SCHEMA,
            "suite": self.suite,
            "target": self.target,
            "label": self.label,
            "repeat": self.repeat,
            "overrides": self.overrides.own(),
            "axes": {a: list(getattr(self.axes, a)) for a in AXES},
            "steady_state": _plain(self.steady) if self.steady is not None else None,
            "adaptive": _plain(self.adaptive),
            "capture": _plain(self.capture),
            "ceph": _plain(self.ceph),
            "pool": _plain(self.pool),
            "health": _plain(self.health),
            "device": _plain(self.device),
            "rados_bench": _plain(self.rados_bench),
            "clients": _plain(self.clients),
            "network": _plain(self.network),
            **kube,
        }

    @classmethod
    def from_json(cls, data: Any, suite: str | None = None) -> RunRequest:
        """A stored request of any version this cephbench knows, migrated to the current one.

        ``suite`` is the run's suite: requests stored before the versioned format did not
        record it. A request of an unknown or newer version raises UsageError.
        """
        if not isinstance(data, dict):
            raise UsageError("the stored run request is not a JSON object")
        if "schema" not in data:
            if suite is None:
                raise UsageError("a run request stored by an older cephbench needs its run's suite")
            from cephbench.planning.request_legacy import from_legacy

            return from_legacy(data, suite)
        version = _version(data["schema"])
        try:
            return _from_v1(data)
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise UsageError(
                f"the stored run request ({SCHEMA_NAME}/{version}) is malformed: "
                f"{type(e).__name__}: {e}"
            ) from None


def _plain(obj: Any) -> dict[str, Any]:
    return {
        f.name: getattr(obj, f.name)
        for f in fields(obj)
        if not (f.metadata.get("stored") == "if_set" and getattr(obj, f.name) == f.default)
    }


def _version(schema: Any) -> int:
    """The version of a ``cephbench.run-request/N`` schema this cephbench can read."""
    name, _, number = str(schema).rpartition("/")
    if name != SCHEMA_NAME or not number.isdigit():
        raise UsageError(f"the stored run request is a {schema!r} document, not {SCHEMA_NAME}/N")
    if int(number) > VERSION:
        raise UsageError(
            f"the run was stored by a newer cephbench ({schema}); this one reads "
            f"{SCHEMA_NAME} up to version {VERSION}",
            hint="resume it with the cephbench version that started it, or newer",
        )
    if int(number) < 1:
        raise UsageError(f"the stored run request has an unknown version: {schema}")
    return int(number)


def _part(cls: type, data: dict[str, Any], key: str, names: tuple[str, ...] = ()) -> Any:
    """A part of the request (of its fields ``names`` only, when given); keys it does not
    know are ignored, missing ones default."""
    values = data.get(key) or {}
    known = set(names or (f.name for f in fields(cls)))
    return cls(**{k: v for k, v in values.items() if k in known})


def _from_v1(data: dict[str, Any]) -> RunRequest:
    axes = data.get("axes") or {}
    steady = data.get("steady_state")
    return RunRequest(
        suite=str(data["suite"]),
        target=data.get("target"),
        label=data.get("label"),
        repeat=int(data.get("repeat", 1)),
        overrides=_part(Overrides, data, "overrides", OWN),
        axes=Axes(**{a: tuple(axes[a]) for a in AXES if axes.get(a)}),
        steady=SteadyState(**steady) if steady else None,
        adaptive=_part(AdaptiveOptions, data, "adaptive"),
        capture=_part(CaptureOptions, data, "capture"),
        ceph=_part(CephConnectionOptions, data, "ceph"),
        pool=_part(PoolOptions, data, "pool"),
        health=_part(HealthOptions, data, "health"),
        device=_part(DeviceOptions, data, "device"),
        rados_bench=_part(RadosBenchOptions, data, "rados_bench"),
        clients=_part(ClientsOptions, data, "clients"),
        network=_part(NetworkOptions, data, "network"),
        kube=_part(KubeOptions, data, "kube"),
    )


def steady_state(
    criterion: str | None,
    window: str | None = None,
    ramp: str | None = None,
    max_runtime: str | None = None,
) -> SteadyState | None:
    """From ``--steady-state``, ``--steady-window``, ``--steady-ramp`` and ``--max-runtime``."""
    if criterion:
        return SteadyState.parse(criterion, window, ramp, max_runtime)
    if max_runtime or window or ramp:
        raise UsageError(
            "--max-runtime, --steady-window and --steady-ramp go with --steady-state",
            hint="for a fixed duration use --runtime",
        )
    return None


def axes(
    rw: str | None = None,
    rwmixread: str | None = None,
    bs: str | None = None,
    iodepth: str | None = None,
    numjobs: str | None = None,
) -> Axes:
    """From the comma lists of ``--rw``, ``--rwmixread``, ``--bs``, ``--iodepth``, ``--numjobs``."""
    return Axes.parse(rw=rw, rwmixread=rwmixread, bs=bs, iodepth=iodepth, numjobs=numjobs)
