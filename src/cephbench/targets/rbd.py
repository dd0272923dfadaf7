"""``rbd:POOL/IMAGE``: fio's rbd engine on an RBD image; ``rbd:lab``, a fresh one in the lab.

An image that exists is used as it is: never resized, never removed, never prefilled. One
that does not is created with ``--size``, prefilled with sequential writes before any read
workload (reads of never-written RBD objects return zeros without touching a disk) unless
``--no-prefill``, and removed afterwards; so is a pool cephbench created for the run.
Everything is recorded in the resource log before it is created.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from cephbench import lab as labapi
from cephbench.errors import TargetError, ToolFailed
from cephbench.execution.cleanup import undoes
from cephbench.model import RawOutput, now
from cephbench.store import Resource, ResourceLog
from cephbench.system.process import ProcessResult, run, which
from cephbench.system.units import format_size
from cephbench.targets import FioTarget
from cephbench.targets.cluster import FRESH, CephTarget

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
PREFILL_TOOL = "fio-prefill"


class RbdTarget(CephTarget):
    kind = "rbd"

    def __init__(self, location, options):
        super().__init__(location, options)
        self.size = 0
        self.prefill_output: RawOutput | None = None
        """The prefill fio run, once done (the runner stores it with the run)."""
        if location != FRESH:
            pool, sep, image = location.partition("/")
            if not sep or not _NAME.match(pool) or not _NAME.match(image):
                raise TargetError(f"'rbd:{location}' is not POOL/IMAGE", hint="e.g. rbd:rbd/bench-img")

    def check(self, size: int) -> None:
        which("rbd", "ceph-common")
        super().check(size)
        self.size = size or 1 << 30

    @contextmanager
    def session(self, run_id: int, resources: ResourceLog) -> Iterator[FioTarget]:
        image = self.fresh_name(run_id) if self.location == FRESH else self.location.split("/")[1]
        with self.pool_session(run_id, resources) as pool, ExitStack() as undo:
            if not self._image_exists(pool, image):
                rid = resources.add("rbd_image", f"{pool}/{image}", {"conn": self.conn.to_json()})
                undo.callback(resources.removed, rid)
                undo.callback(_remove_image, self.conn.args(), self.env, f"{pool}/{image}")
                self._rbd("create", "--size", f"{max(1, self.size >> 20)}M", f"{pool}/{image}")
                if self.ceph.prefill:
                    self._prefill(pool, image)
            yield FioTarget({"ioengine": "rbd", **self.conn.fio_options(), "pool": pool, "rbdname": image},
                            self.env)

    def describe(self) -> dict[str, Any]:
        info = super().describe()
        if self.conn.lab_dir:
            lab = labapi.find_running(self.conn.lab_dir)
            if lab:
                info.update(osds=len(lab.osds), hosts=len(lab.hosts))
        return info

    def _prefill(self, pool: str, image: str) -> None:
        """Write the whole image once, sequentially, so reads hit real objects."""
        argv = [which("fio"), "--name=prefill", "--ioengine=rbd", f"--clientname={self.conn.id}",
                f"--pool={pool}", f"--rbdname={image}", "--rw=write", "--bs=4M", "--iodepth=16",
                f"--size={format_size(self.size)}", "--output-format=json"]
        started = now()
        result: ProcessResult = run(argv, env=self.env, check=True, timeout=3600)
        self.prefill_output = RawOutput(PREFILL_TOOL, result.argv, None, result.stdout, result.stderr,
                                        result.returncode, started, result.seconds)

    def setup_outputs(self) -> list[RawOutput]:
        return [self.prefill_output] if self.prefill_output is not None else []

    def _image_exists(self, pool: str, image: str) -> bool:
        result = run(["rbd", *self.conn.args(), "info", f"{pool}/{image}"], env=self.env,
                     timeout=self.conn.timeout + 10)
        if result.returncode != 0 and "No such file" not in result.stderr:
            raise ToolFailed(f"rbd info {pool}/{image} failed: {result.last_error_line()}")
        return result.returncode == 0

    def _rbd(self, *args: str) -> None:
        run(["rbd", *self.conn.args(), *args], env=self.env, timeout=self.conn.timeout + 30, check=True)


def _remove_image(args: list[str], env: dict[str, str], spec: str) -> None:
    result = run(["rbd", *args, "rm", "--no-progress", spec], env=env, timeout=600)
    if result.returncode != 0 and "No such file" not in result.stderr:
        raise ToolFailed(f"rbd rm {spec} failed: {result.last_error_line()}")


@undoes("rbd_image")
def _undo_image(resource: Resource) -> None:
    from cephbench.ceph.connection import Connection

    conn = Connection.from_json(resource.detail["conn"])
    _remove_image(conn.args(), conn.env, resource.name)
