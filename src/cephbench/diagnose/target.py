"""The diagnosis' own pool and RBD image, on the lab or on any cluster: always fresh
(``cb-<run>-<hex>``, tagged), prefilled so reads touch the OSDs, removed with its pool
afterwards. On a lab whose hosts answer ssh, the network between them is measured while the
pool is made and its PGs peer (a second or two of waiting, and light traffic), rather than after
the load; the prefill waits for it.

The prefill is bounded by time: a slow part of the cluster (a disk held to 150 IOPS took 3 s
for the 16 MiB, a healthy lab 0.4 s at most) ends it early, and the load then runs on the part it
wrote (:attr:`DiagnoseTarget.region`), whole objects each on every OSD that holds a copy."""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from cephbench.ceph import pools
from cephbench.targets import FioTarget, TargetOptions
from cephbench.targets.cluster import FRESH
from cephbench.targets.rbd import RbdTarget

if TYPE_CHECKING:
    from cephbench.diagnose.netprobe import Measured
    from cephbench.diagnose.session import DiagnoseOptions
    from cephbench.store import ResourceLog

QUICK_IMAGE = 16 << 20
"""Prefilled (a new object's first writes cost the OSDs 3x more than later ones, which would
blur the figures); small, as a slow disk's share of the prefill takes seconds."""
IMAGE = 256 << 20
OBJECT_SIZE = "256K"
"""Small objects spread the image over the pool's PGs (16 MiB in 4 MiB objects would touch
4 PGs of 32, and an OSD could be primary of none of them: no signal from it)."""
OBJECT_BYTES = 256 << 10
PREFILL_RATE = 20 << 20
"""Bytes/s: the prefill's time bound is its image at this rate (0.8 s for 16 MiB; a busy
healthy lab wrote them in 0.4 s, a disk held to 150 IOPS 4.25 MiB in 0.5 s); a cluster
slower than this is slow enough for the load to run on what it wrote by then."""
FEATURES = ("--image-feature", "layering")
"""The image's only feature: no exclusive lock for each fio to take and give back, no object
map to update on each object's first write. Those are writes to the image's header and map
objects, librbd's cost rather than the cluster's; a disk held to 150 IOPS made each fio's start
and end 0.2-0.3 s longer with them (and nothing healthy)."""
PREFILL_DEPTH = 8
"""Object writes in flight: what a bounded prefill waits for once its time is up."""


class EarlyNetwork(NamedTuple):
    measured: Future[Measured]
    """The figures, told once the last iperf3 pair has ended."""
    ended: Future[None]
    """The thread's end: its iperf3 servers stopped (the load waits for it)."""


class DiagnoseTarget(RbdTarget):
    """An ``rbd:`` target whose pool and image are always the run's own."""

    def __init__(self, image_bytes: int, options: DiagnoseOptions):
        super().__init__(FRESH, TargetOptions())
        self.image_bytes = image_bytes
        self.diagnose_options = options
        self.image_goes_with_pool = True  # its pool is always its own, removed afterwards
        self.region = image_bytes
        """The bytes from the image's start that the prefill wrote: where the load runs."""
        self.early_network: EarlyNetwork | None = None
        """The network between the lab's hosts (``lab up --ssh``, two hosts or more), being
        measured while the pool and the image are made; the network probe takes it. None: no
        such lab."""

    @contextmanager
    def session(self, run_id: int, resources: ResourceLog) -> Iterator[FioTarget]:
        with ExitStack() as stack:
            lab_dir = Path(self.conn.lab_dir or "")
            if self.conn.lab_dir is not None and (lab_dir / "inventory.yaml").is_file():
                self.early_network = _measure_network(
                    stack, lab_dir, self.diagnose_options, run_id, resources
                )
            with super().session(run_id, resources) as target:
                self._network_measured()
                yield target

    def _network_measured(self) -> None:
        """Wait until the network's measurement has ended, however (its error is the network
        probe's to meet): nothing of it runs beside the load."""
        if self.early_network is not None:
            while wait([self.early_network.measured], timeout=0.2).not_done:
                pass

    @property
    def spec(self) -> str:
        return "ceph:diagnose"

    def _rbd(self, *args: str) -> None:
        if args and args[0] == "create":
            args = (*args[:-1], "--object-size", OBJECT_SIZE, *FEATURES, args[-1])
        super()._rbd(*args)

    def check(self, size: int) -> None:
        self.conn.tools.check("rbd")
        self.conn.tools.check("fio")
        self.size = self.image_bytes

    def check_cluster(self) -> None:
        pools.check_usable(self.conn, None)

    def _prefill(self, pool: str, image: str) -> None:
        """Write the image from its start, an object per write, until it is whole or the
        time bound (:data:`PREFILL_RATE`) has passed; with librbd's cache off, so fio's
        end is the writes' (a cache would take them at once and flush them for seconds
        on closing)."""
        self._network_measured()
        seconds = self.size / PREFILL_RATE
        args = self.prefill_args(
            pool,
            image,
            f"--bs={OBJECT_SIZE}",
            f"--iodepth={PREFILL_DEPTH}",
            f"--runtime={int(seconds * 1000)}ms",
        )
        result = self.run_prefill(args, {**self.env, "CEPH_ARGS": "--rbd_cache=false"})
        self.region = prefilled(result.stdout, self.size)


def prefilled(stdout: str, size: int) -> int:
    """The bytes a sequential prefill wrote from the image's start (fio's JSON: every write
    it began has ended when it exits, so they are one run from offset 0), in whole objects;
    the whole image when fio's output says nothing (the load then runs as it always did)."""
    try:
        text = stdout[stdout.index("{") :]
        done = int(json.loads(text)["jobs"][0]["write"]["io_bytes"])
    except (ValueError, KeyError, IndexError, TypeError):
        return size
    whole = min(done, size) // OBJECT_BYTES * OBJECT_BYTES
    return whole if whole > 0 else size


def _measure_network(
    stack: ExitStack, lab_dir: Path, options: DiagnoseOptions, run_id: int, resources: ResourceLog
) -> EarlyNetwork | None:
    """The network between the lab's hosts, measured over ssh in a thread of its own (its
    connections first: each host's takes most of a second); its iperf3 servers recorded in the
    store through a connection of the thread's own. ``stack`` waits for the thread (Ctrl-C
    too), then closes the connections. None for a lab of one host."""
    from cephbench.diagnose.netprobe import host_pairs, lab_hosts, over_ssh
    from cephbench.hosts.load import load_lab
    from cephbench.hosts.ssh import Ssh

    lab = lab_hosts(lab_dir)
    if lab is None:
        return None
    hosts, port, _ = lab
    inv = load_lab(lab_dir)
    ssh = Ssh(inv)
    pairs = host_pairs(hosts, ring=options.quick)

    measured: Future[Measured] = Future()

    def measure() -> None:
        try:
            # an unreachable host is met (and said) by the measurement itself
            ssh.each(inv.hosts, lambda h: ssh.run(h, ["true"], timeout=10, check=False))
            with resources.elsewhere() as log:
                args = (pairs, port, options.iperf_seconds, run_id, log)
                over_ssh(ssh, lab_dir, *args, measured=measured.set_result)
        except BaseException as e:
            if not measured.done():
                measured.set_exception(e)
            raise

    pool = ThreadPoolExecutor(1, thread_name_prefix="diagnose-network")
    ended = pool.submit(measure)
    pool.shutdown(wait=False)

    def close() -> None:
        while True:
            try:
                ended.exception()  # waits for the thread (its servers stopped), however it ended
                break
            except KeyboardInterrupt:
                continue
        ssh.close()

    stack.callback(close)
    return EarlyNetwork(measured, ended)
