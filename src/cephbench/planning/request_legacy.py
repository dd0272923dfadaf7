"""Run requests stored before ``cephbench.run-request/N`` existed: the raw keyword arguments
of the click command, keyed by option names, read as the typed request (``--resume`` of an
old run). Kept apart from the request itself: this is a migration, and nothing new is ever
written in this form."""

from __future__ import annotations

from typing import Any

from cephbench.ceph.connection import DEFAULT_TIMEOUT
from cephbench.ceph.health import DEFAULT_INTERVAL
from cephbench.ceph.session import HealthOptions
from cephbench.errors import UsageError
from cephbench.planning.request import (
    DEFAULT_MAX_REPEATS,
    DEFAULT_PG_NUM,
    AdaptiveOptions,
    CaptureOptions,
    CephConnectionOptions,
    DeviceOptions,
    PoolOptions,
    RunRequest,
    axes,
    steady_state,
)
from cephbench.tools.plan import Overrides
from cephbench.tools.rados_bench.options import RadosBenchOptions

LEGACY_KEYS = frozenset(
    {
        "target_spec",
        "label",
        "repeat",
        "runtime",
        "size",
        "iodepth",
        "numjobs",
        "bs",
        "rw",
        "rwmixread",
        "ramp_time",
        "steady_state",
        "steady_window",
        "steady_ramp",
        "max_runtime",
        "target_ci",
        "max_repeats",
        "max_time",
        "no_logs",
        "per_io_log",
        "destroy_data",
        "conf",
        "client_id",
        "keyring",
        "cluster",
        "connect_timeout",
        "pool_size",
        "pg_num",
        "no_prefill",
        "allow_unhealthy",
        "quiesce",
        "health_interval",
        "drop_caches",
        "concurrent_ios",
        "object_size",
        "run_name",
    }
)
"""The keys ``cephbench run`` stored (its click keyword arguments) before the versioned
request, from the first run with ``--resume`` on; ``per_io_log`` came later and may be missing."""


def from_legacy(old: dict[str, Any], suite: str) -> RunRequest:
    """A request stored as the raw click keyword arguments, as the typed request.

    Old names are mapped here once and for all (``target_spec`` -> ``target``, ``no_logs``
    -> ``capture.logs``...); the values go through the same validation as the options'.
    """
    unknown = sorted(set(old) - LEGACY_KEYS)
    if unknown:
        raise UsageError(
            f"the stored run request has options this cephbench does not know: "
            f"{', '.join(unknown)}",
            hint="resume it with the cephbench that started it",
        )

    def get(key: str, default: Any = None) -> Any:
        value = old.get(key)
        return default if value is None else value

    return RunRequest(
        suite=suite,
        target=get("target_spec"),
        label=get("label"),
        repeat=get("repeat", 1),
        overrides=Overrides(runtime=get("runtime"), size=get("size"), ramp_time=get("ramp_time")),
        axes=axes(get("rw"), get("rwmixread"), get("bs"), get("iodepth"), get("numjobs")),
        steady=steady_state(
            get("steady_state"), get("steady_window"), get("steady_ramp"), get("max_runtime")
        ),
        adaptive=AdaptiveOptions.parse(
            get("target_ci"), get("max_repeats", DEFAULT_MAX_REPEATS), get("max_time")
        ),
        capture=CaptureOptions(logs=not get("no_logs", False), per_io_log=get("per_io_log", False)),
        ceph=CephConnectionOptions(
            get("conf"),
            get("client_id"),
            get("keyring"),
            get("cluster"),
            get("connect_timeout", DEFAULT_TIMEOUT),
        ),
        pool=PoolOptions(
            get("pool_size"), get("pg_num", DEFAULT_PG_NUM), not get("no_prefill", False)
        ),
        health=HealthOptions(
            get("allow_unhealthy", False),
            get("quiesce", False),
            get("health_interval", DEFAULT_INTERVAL),
        ),
        device=DeviceOptions(get("destroy_data"), get("drop_caches", False)),
        rados_bench=RadosBenchOptions(get("concurrent_ios"), get("object_size"), get("run_name")),
    )
