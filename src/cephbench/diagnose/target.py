"""The diagnosis' own pool and RBD image, on the lab or on any cluster: always fresh
(``cb-<run>-<hex>``, tagged), prefilled so reads touch the OSDs, removed with its pool
afterwards.

The prefill is bounded by time: a slow part of the cluster (a disk held to 150 IOPS took 3 s
for the 16 MiB, a healthy lab 0.4 s at most) ends it early, and the load then runs on the part it
wrote (:attr:`DiagnoseTarget.region`), whole objects each on every OSD that holds a copy."""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cephbench.ceph import pools
from cephbench.targets import FioTarget, TargetOptions
from cephbench.targets.cluster import FRESH
from cephbench.targets.rbd import RbdTarget

if TYPE_CHECKING:
    from cephbench.hosts.ssh import Ssh
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
PREFILL_DEPTH = 8
"""Object writes in flight: what a bounded prefill waits for once its time is up."""


class DiagnoseTarget(RbdTarget):
    """An ``rbd:`` target whose pool and image are always the run's own."""

    def __init__(self, image_bytes: int):
        super().__init__(FRESH, TargetOptions())
        self.image_bytes = image_bytes
        self.image_goes_with_pool = True  # its pool is always its own, removed afterwards
        self.region = image_bytes
        """The bytes from the image's start that the prefill wrote: where the load runs."""
        self.lab_ssh: tuple[Ssh, Future[Any]] | None = None
        """The ssh connections to the lab's hosts (``lab up --ssh``), being made while the pool
        and the image are (each host's first connection takes most of a second, a busy
        machine's two); the network probe takes them. None: no lab with ssh."""

    @contextmanager
    def session(self, run_id: int, resources: ResourceLog) -> Iterator[FioTarget]:
        with ExitStack() as stack:
            inventory = Path(self.conn.lab_dir or "") / "inventory.yaml"
            if self.conn.lab_dir is not None and inventory.is_file():
                self.lab_ssh = _connect(stack, Path(self.conn.lab_dir))
            with super().session(run_id, resources) as target:
                yield target

    @property
    def spec(self) -> str:
        return "ceph:diagnose"

    def _rbd(self, *args: str) -> None:
        if args and args[0] == "create":
            args = (*args[:-1], "--object-size", OBJECT_SIZE, args[-1])
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


def _connect(stack: ExitStack, lab_dir: Path) -> tuple[Ssh, Future[Any]]:
    """An ssh connection to each of the lab's hosts, made in a thread of its own; closed by
    ``stack`` once that thread has ended (Ctrl-C too). An unreachable host is met and said by
    the network probe, as without this."""
    from cephbench.hosts.load import load_lab
    from cephbench.hosts.ssh import Ssh

    inv = load_lab(lab_dir)
    ssh = Ssh(inv)
    pool = ThreadPoolExecutor(1, thread_name_prefix="diagnose-ssh")
    ready = pool.submit(ssh.each, inv.hosts, lambda h: ssh.run(h, ["true"], timeout=10))
    pool.shutdown(wait=False)

    def close() -> None:
        while True:
            try:
                ready.exception()  # waits for the connections, whatever they came to
                break
            except KeyboardInterrupt:
                continue
        ssh.close()

    stack.callback(close)
    return ssh, ready
