"""``cephbench run``'s option bundles, one per concern (the target and label, overrides,
sweeps, steady state, adaptive repeats, capture, devices, the Ceph connection, pools, health,
rados bench, clients, the network suite), each building its part of a
:class:`~cephbench.planning.request.RunRequest`. ``ab`` and ``diagnose`` reuse some.

``run --help`` imports this module and click alone: each bundle's build function imports the
dataclass it builds when the command runs, and the defaults the help shows are copies of
their sources' (``tests/unit/test_cli_startup.py`` holds them equal and guards the imports).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from cephbench.cli.complete import complete_column, complete_run_ref
from cephbench.cli.options import Bundle, opt

# Copies of the defaults --help shows, so that it imports none of their modules (the Ceph
# session, the store, the planner...): each equals its source's (a test says so).
DEFAULT_TIMEOUT = 30.0
"""cephbench.ceph.connection.DEFAULT_TIMEOUT"""
DEFAULT_INTERVAL = 5.0
"""cephbench.ceph.health.DEFAULT_INTERVAL"""
DEFAULT_IMAGE = "ghcr.io/kastenhq/kubestr:latest"
"""cephbench.kube.objects.DEFAULT_IMAGE"""
DEFAULT_MAX_REPEATS = 10
"""cephbench.planning.request.DEFAULT_MAX_REPEATS"""
DEFAULT_PG_NUM = 32
"""cephbench.planning.request.DEFAULT_PG_NUM"""


def _overrides(**values: Any) -> Any:
    from cephbench.tools.plan import Overrides

    return Overrides(**values)


def _axes(**values: Any) -> Any:
    from cephbench.planning.request import axes

    return axes(**values)


def _steady(steady_state, steady_window, steady_ramp, max_runtime) -> Any:
    from cephbench.planning.request import steady_state as build

    return build(steady_state, steady_window, steady_ramp, max_runtime)


def _adaptive(**values: Any) -> Any:
    from cephbench.planning.request import AdaptiveOptions

    return AdaptiveOptions.parse(**values)


def _capture(no_logs: bool, per_io_log: bool) -> Any:
    from cephbench.planning.request import CaptureOptions

    return CaptureOptions(not no_logs, per_io_log)


def _device(**values: Any) -> Any:
    from cephbench.planning.request import DeviceOptions

    return DeviceOptions(**values)


def _ceph(**values: Any) -> Any:
    from cephbench.planning.request import CephConnectionOptions

    return CephConnectionOptions(**values)


def _pool(pool_size, pg_num, no_prefill: bool) -> Any:
    from cephbench.planning.request import PoolOptions

    return PoolOptions(pool_size, pg_num, not no_prefill)


def _health(allow_unhealthy: bool, quiesce: bool, health_interval: float) -> Any:
    from cephbench.ceph.session import HealthOptions

    return HealthOptions(allow_unhealthy, quiesce, health_interval)


def _rados_bench(**values: Any) -> Any:
    from cephbench.tools.rados_bench.options import RadosBenchOptions

    return RadosBenchOptions(**values)


def _clients(clients_spec, shared_image: bool, shared_dir: bool) -> Any:
    from cephbench.planning.request import ClientsOptions

    return ClientsOptions(clients_spec, shared_image, shared_dir)


def _kube(**values: Any) -> Any:
    from cephbench.kube.options import KubeOptions

    return KubeOptions(**values)


def _network(all_pairs_at_once: bool, streams_procs: int) -> Any:
    from cephbench.tools.iperf3.options import NetworkOptions

    return NetworkOptions(all_pairs_at_once, streams_procs)


run_basics = Bundle(
    "Run",
    [
        opt(
            "--target",
            "-t",
            "target",
            metavar="KIND:LOCATION",
            help="Where the I/O goes: file:DIR_OR_NEW_FILE, device:/dev/X, rbd:POOL/IMAGE, rbd:lab "
            "(a fresh pool and image in the lab; the default while a lab is running), "
            "rados:POOL or rados:lab (the rados suite), pvc:STORAGECLASS or pvc:claim/NAME "
            "(fio in Kubernetes pods), "
            "ceph:cluster (the osd and network suites), "
            "cephfs:FSNAME[/PATH] or cephfs:lab (CephFS, mounted for the run).",
        ),
        opt(
            "--label",
            "-l",
            shell_complete=complete_column("label"),
            help="A name for this run in tables and comparisons.",
        ),
        opt(
            "--repeat",
            "-r",
            type=click.IntRange(1, 1000),
            default=1,
            show_default=True,
            help="Run the whole suite N times; each repeat is stored separately.",
        ),
        opt(
            "--resume",
            "resume_ref",
            metavar="RUN",
            shell_complete=complete_run_ref,
            help="Continue a stored run that was interrupted: run only its workloads without "
            "figures, with the options it was started with.",
        ),
    ],
)

RUNTIME = opt(
    "--runtime",
    metavar="DURATION",
    help="How long each workload runs, replacing the suite's: seconds, or with a unit "
    "(e.g. 30, 500ms, 2m).",
)
"""``--runtime`` of ``run`` and ``ab``: one spelling (fio's, as the suites write it), one text."""

overrides = Bundle(
    "Workload overrides",
    [
        RUNTIME,
        opt("--size", help="Data size per workload (e.g. 4G), replacing the suite's."),
        opt(
            "--ramp-time",
            help="Run each workload this long before measuring (fio's ramp_time; "
            "excluded from every figure).",
        ),
    ],
    "overrides",
    _overrides,
)

axes = Bundle(
    "Sweeps (one value replaces the suite's, a list sweeps)",
    [
        opt("--iodepth", metavar="N[,N...]", help="I/Os in flight per job; a list sweeps them."),
        opt("--numjobs", metavar="N[,N...]", help="Jobs per workload; a list sweeps them."),
        opt("--bs", metavar="SIZE[,SIZE...]", help="Block size (e.g. 4k, 1M); a list sweeps them."),
        opt(
            "--rw",
            metavar="RW[,RW...]",
            help="fio's rw (randread, randwrite, randrw, ...); a list sweeps them.",
        ),
        opt(
            "--rwmixread",
            metavar="PCT[,PCT...]",
            help="Read share of mixed workloads, %; a list sweeps them.",
        ),
    ],
    "axes",
    _axes,
)

steady = Bundle(
    "Steady state",
    [
        opt(
            "--steady-state",
            metavar="METRIC:LIMIT",
            help="End each workload once fio judges it steady, e.g. iops:0.3% or bw_slope:0.1% "
            "(fio's steadystate); workloads that never get there are flagged.",
        ),
        opt(
            "--steady-window",
            metavar="SECONDS",
            help="Seconds of data the steady-state criterion is judged over (default: a quarter "
            "of the runtime, 2 to 60 s).",
        ),
        opt("--steady-ramp", metavar="SECONDS", help="Seconds before steady-state judging starts."),
        opt(
            "--max-runtime",
            help="With --steady-state: the most each workload runs (default: its runtime).",
        ),
    ],
    "steady",
    _steady,
)

adaptive = Bundle(
    "Adaptive repeats",
    [
        opt(
            "--target-ci",
            metavar="PCT%",
            help="Repeat each workload until the 95 % confidence interval of its IOPS is within "
            "PCT % of the mean (3 repeats at least); workloads that stop short are flagged.",
        ),
        opt(
            "--max-repeats",
            type=click.IntRange(3, 1000),
            default=DEFAULT_MAX_REPEATS,
            show_default=True,
            help="With --target-ci: the most repeats of a workload.",
        ),
        opt("--max-time", help="With --target-ci: start no new repeat after this long (e.g. 30m)."),
    ],
    "adaptive",
    _adaptive,
)

capture = Bundle(
    "Time series",
    [
        opt(
            "--no-logs", is_flag=True, help="Do not capture fio's per-interval logs as time series."
        ),
        opt(
            "--per-io-log",
            is_flag=True,
            help="Log every I/O's latency (exact p99 and max per second; ~21 bytes of temporary "
            "disk an I/O) instead of fio's interval averages.",
        ),
    ],
    "capture",
    _capture,
)

device = Bundle(
    "Devices and page cache",
    [
        opt(
            "--destroy-data",
            metavar="DEVICE",
            help="Allow writing to this device even though it holds data. Names the exact device.",
        ),
        opt(
            "--drop-caches",
            is_flag=True,
            help="Drop the page cache (sync; 3 > /proc/sys/vm/drop_caches) before each workload.",
        ),
        opt(
            "--hosts",
            metavar="SPEC",
            help="Hosts to fingerprint with the run (and drop caches on, with --drop-caches): "
            "lab, ceph, an inventory file, or h1,h2; the network suite measures between them "
            "(default: the running lab's).",
        ),
        opt(
            "--client",
            "cephfs_client",
            type=click.Choice(["ceph-fuse", "kernel"]),
            default="ceph-fuse",
            show_default=True,
            help="What mounts a cephfs: target: ceph-fuse, or the kernel (where it has ceph).",
        ),
    ],
    "device",
    _device,
)

ceph_connection = Bundle(
    "Ceph connection",
    [
        opt(
            "--conf",
            "-c",
            metavar="PATH",
            help="ceph.conf of the cluster (default: the lab's, else /etc/ceph/ceph.conf).",
        ),
        opt(
            "--id",
            "--user",
            "-n",
            "client_id",
            metavar="NAME",
            help="cephx client name, e.g. bench or client.bench (default: admin).",
        ),
        opt("--keyring", "-k", metavar="PATH", help="Keyring of that client."),
        opt("--cluster", metavar="NAME", help="Cluster name (reads /etc/ceph/NAME.conf)."),
        opt(
            "--connect-timeout",
            type=click.FloatRange(1, 3600),
            default=DEFAULT_TIMEOUT,
            show_default=True,
            help="Seconds to reach the cluster before giving up.",
        ),
        opt(
            "--ceph-cli",
            metavar="PREFIX",
            help="How to reach the cluster's own ceph, rados and rbd, e.g. "
            '"cephadm shell --" or "kubectl -n rook-ceph exec deploy/rook-ceph-tools --".',
        ),
    ],
    "ceph",
    _ceph,
)

pool = Bundle(
    "Ceph pools and images",
    [
        opt(
            "--pool-size",
            type=click.IntRange(1, 10),
            help="Replicas of a pool cephbench creates (default: 3, fewer with fewer OSDs).",
        ),
        opt(
            "--pg-num",
            type=click.IntRange(1, 65536),
            default=DEFAULT_PG_NUM,
            show_default=True,
            help="PGs of a pool cephbench creates.",
        ),
        opt(
            "--no-prefill",
            is_flag=True,
            help="Do not write a new RBD image once before read workloads.",
        ),
    ],
    "pool",
    _pool,
)

health = Bundle(
    "Ceph health",
    [
        opt(
            "--allow-unhealthy",
            is_flag=True,
            help="Run even on a cluster in HEALTH_ERR or with PGs not active+clean.",
        ),
        opt(
            "--quiesce",
            is_flag=True,
            help="Set noscrub and nodeep-scrub for the run (always unset afterwards).",
        ),
        opt(
            "--health-interval",
            type=click.FloatRange(0.5, 600),
            default=DEFAULT_INTERVAL,
            show_default=True,
            help="Seconds between `ceph status` samples during the run.",
        ),
    ],
    "health",
    _health,
)

rados_bench = Bundle(
    "rados bench",
    [
        opt(
            "--concurrent-ios",
            type=click.IntRange(1, 4096),
            help="rados bench -t: operations in flight (default 16).",
        ),
        opt("--object-size", help="rados bench -b: object size (default 4M); --bs says the same."),
        opt("--run-name", help="rados bench --run-name: the name of its benchmark objects."),
    ],
    "rados_bench",
    _rados_bench,
)

clients = Bundle(
    "Many clients",
    [
        opt(
            "--clients",
            "clients_spec",
            metavar="SPEC",
            help="Run fio from these hosts at once over ssh (fio --server on each): lab, ceph, "
            "an inventory FILE or h1,h2,... Each client's figures are stored with the aggregate.",
        ),
        opt(
            "--shared-image",
            is_flag=True,
            help="With --clients: every client on the run's RBD image (default: one image each).",
        ),
        opt(
            "--shared-dir",
            is_flag=True,
            help="With --clients on cephfs: every client in the run's directory (default: "
            "a directory each).",
        ),
    ],
    "clients",
    _clients,
)

kube = Bundle(
    "Kubernetes (pvc: targets; rbd: with --pods)",
    [
        opt(
            "--pods",
            type=click.IntRange(1, 256),
            default=None,
            help="fio in N pods at once (default 1 for pvc:), each on a claim of its own "
            "(pvc:) or its own RBD image (rbd:), starting together; each pod's figures are "
            "stored with the exact aggregate.",
        ),
        opt(
            "--volume-mode",
            type=click.Choice(["Filesystem", "Block"]),
            default="Filesystem",
            show_default=True,
            help="Block: fio on the claim's raw device in the pod (a claim cephbench made).",
        ),
        opt(
            "--image",
            default=None,
            help="The pods' image: it needs fio, sh, date and sleep (`cephbench k8s image` "
            "builds one from this machine's fio). Default: cephbench's fio image when the "
            f"nodes hold it (the lab's do), else {DEFAULT_IMAGE}.",
        ),
        opt("--kubeconfig", metavar="FILE", help="kubectl's --kubeconfig (default: KUBECONFIG)."),
        opt("--context", help="kubectl's --context (default: the current context)."),
        opt(
            "--namespace",
            metavar="NS",
            help="An existing namespace to work in (only cephbench's labelled objects are made "
            "and deleted there); default: a fresh namespace for the run.",
        ),
        opt("--node-selector", metavar="K=V,...", help="The pods' nodeSelector."),
        opt("--spread", is_flag=True, help="At most one of the run's pods per node."),
        opt(
            "--toleration",
            "tolerations",
            multiple=True,
            metavar="KEY[=VALUE]:EFFECT",
            help="A toleration on every pod, in kubectl taint's syntax (repeatable), e.g. "
            "dedicated=storage:NoSchedule or node-role.kubernetes.io/control-plane:NoSchedule.",
        ),
        opt("--pod-cpu", metavar="CPU", help="Each pod's CPU request and limit (e.g. 2)."),
        opt("--pod-memory", metavar="MEM", help="Each pod's memory request and limit (e.g. 1Gi)."),
    ],
    "kube",
    _kube,
)

network = Bundle(
    "Network suite (iperf3 between the --hosts)",
    [
        opt(
            "--all-pairs-at-once",
            is_flag=True,
            help="Run every directed pair at the same time (a mesh load) instead of one pair "
            "after the other.",
        ),
        opt(
            "--streams-procs",
            type=click.IntRange(1, 64),
            default=1,
            show_default=True,
            help="iperf3 client processes per pair, each to its own server, figures summed: "
            "iperf3 before 3.16 runs all its streams on one CPU core, which may not fill a "
            "link of 10 Gbit/s or more.",
        ),
    ],
    "network",
    _network,
)

RUN_BUNDLES = (
    run_basics,
    overrides,
    axes,
    steady,
    adaptive,
    capture,
    device,
    ceph_connection,
    pool,
    health,
    rados_bench,
    clients,
    kube,
    network,
)
"""Every option of ``cephbench run`` but output and store, in the order ``--help`` shows them."""


def run_request_options(f: Callable) -> Callable:
    """All of ``RUN_BUNDLES``: the command receives ``target``, ``label``, ``repeat``,
    ``resume_ref`` and one keyword argument per part of a RunRequest."""
    for bundle in reversed(RUN_BUNDLES):
        f = bundle(f)
    return f
