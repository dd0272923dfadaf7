"""``rbd:POOL/IMAGE``: fio's rbd engine on an RBD image; ``rbd:lab``, a fresh one in the lab.

An image that exists is used as it is: never resized, never removed. One that does not is
created with ``--size``, prefilled with sequential writes (reads of never-written RBD objects
return zeros without touching a disk), and removed afterwards; so is a pool the lab created
for the run. Everything is recorded in the resource log before it is created.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from .. import lab as labapi
from ..cleanup import undoes
from ..errors import CephbenchError, TargetError, ToolFailed
from ..process import run, which
from ..store import Resource, ResourceLog
from ..units import format_size
from . import FioTarget, Target

FRESH = "lab"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
TIMEOUT = 30.0


class RbdTarget(Target):
    kind = "rbd"

    def __init__(self, location, options):
        super().__init__(location, options)
        self.size = 0
        self.lab = labapi.find_running()
        if location != FRESH:
            pool, sep, image = location.partition("/")
            if not sep or not _NAME.match(pool) or not _NAME.match(image):
                raise TargetError(f"'rbd:{location}' is not POOL/IMAGE", hint="e.g. rbd:rbd/bench-img")

    @property
    def env(self) -> dict[str, str]:
        return dict(self.lab.env) if self.lab else {}

    def check(self, size: int) -> None:
        which("rbd", "ceph-common")
        if self.location == FRESH and self.lab is None:
            raise TargetError("no lab is running", hint="start one with: cephbench lab up")
        if self.lab is None:
            raise TargetError(
                "only the lab's cluster is supported as an RBD target in this version",
                hint="start one with: cephbench lab up",
            )
        try:
            self._ceph("health")
        except CephbenchError as e:
            raise TargetError(f"cannot reach the Ceph cluster: {e}",
                              hint="is it running? `cephbench lab status` shows the lab") from None
        self.size = size or 1 << 30

    @contextmanager
    def session(self, run_id: int, resources: ResourceLog) -> Iterator[FioTarget]:
        pool, image = (f"cb-{run_id}", f"cb-{run_id}") if self.location == FRESH else self.location.split("/")
        with ExitStack() as undo:
            if pool not in self._ceph_json("osd", "pool", "ls"):
                if self.location != FRESH:
                    raise TargetError(f"pool {pool} does not exist", hint="create it, or use rbd:lab")
                rid = resources.add("pool", pool, {"lab_dir": str(self.lab.dir)})
                undo.callback(resources.removed, rid)
                undo.callback(labapi.remove_pool, self.lab, pool)
                labapi.ensure_pool(self.lab, pool)
            if not self._image_exists(pool, image):
                rid = resources.add("rbd_image", f"{pool}/{image}", {"env": self.env})
                undo.callback(resources.removed, rid)
                undo.callback(_remove_image, self.env, f"{pool}/{image}")
                self._rbd("create", "--size", f"{max(1, self.size >> 20)}M", f"{pool}/{image}")
                self._prefill(pool, image)
            yield FioTarget(
                {"ioengine": "rbd", "clientname": self.lab.client_name, "pool": pool, "rbdname": image},
                self.env,
            )

    def describe(self) -> dict[str, Any]:
        info = {"spec": self.spec}
        if self.lab:
            info.update(lab_dir=str(self.lab.dir), osds=len(self.lab.osds), hosts=len(self.lab.hosts))
        return info

    def _prefill(self, pool: str, image: str) -> None:
        """Write the whole benchmark region once, so reads hit real objects."""
        run([which("fio"), "--name=prefill", "--ioengine=rbd", f"--clientname={self.lab.client_name}",
             f"--pool={pool}", f"--rbdname={image}", "--rw=write", "--bs=4M", "--iodepth=16",
             f"--size={format_size(self.size)}", "--output-format=json"],
            env=self.env, check=True, timeout=3600)

    def _image_exists(self, pool: str, image: str) -> bool:
        result = run(["rbd", "info", f"{pool}/{image}"], env=self.env, timeout=TIMEOUT)
        return result.returncode == 0

    def _rbd(self, *args: str) -> None:
        run(["rbd", *args], env=self.env, timeout=TIMEOUT, check=True)

    def _ceph(self, *args: str) -> str:
        return run(["ceph", "--connect-timeout", str(int(TIMEOUT)), *args], env=self.env,
                   timeout=TIMEOUT + 5, check=True).stdout

    def _ceph_json(self, *args: str) -> Any:
        return labapi.ceph_json(self.lab, *args)


def _remove_image(env: dict[str, str], spec: str) -> None:
    result = run(["rbd", "rm", "--no-progress", spec], env=env, timeout=120)
    if result.returncode != 0 and "No such file" not in result.stderr:
        raise ToolFailed(f"rbd rm {spec} failed: {result.last_error_line()}")


@undoes("rbd_image")
def _undo_image(resource: Resource) -> None:
    _remove_image(resource.detail.get("env", {}), resource.name)


@undoes("pool")
def _undo_pool(resource: Resource) -> None:
    info = labapi.find_running(resource.detail.get("lab_dir"))
    if info is not None:  # a lab that is gone took its pools with it
        labapi.remove_pool(info, resource.name)
