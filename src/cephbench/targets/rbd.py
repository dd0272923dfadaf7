"""``rbd:POOL/IMAGE``: fio's rbd engine on an RBD image; ``rbd:lab``, a fresh one in the lab.

An image that exists is used as it is: never resized, never removed, never prefilled. One
that does not is created with ``--size``, prefilled with sequential writes before any read
workload (reads of never-written RBD objects return zeros without touching a disk) unless
``--no-prefill``, and removed afterwards; so is a pool cephbench created for the run.
Everything is recorded in the resource log before it is created.

An image is removed only once no client holds it: fio's processes are gone by then (the
process helper waits for their whole group), and a client that closed the image has
unwatched it; a client that died while opening or using it (Ctrl-C during fio's start-up,
a kill) leaves a watch the OSDs keep for ``osd_client_watch_timeout`` (30 s). After a short,
bounded wait such a client is blocklisted (which ends its watch at once), the image removed,
and the blocklist entries lifted again, also those ``rbd rm`` adds itself when it breaks a
dead client's exclusive lock. Each entry is recorded before it is made.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from cephbench import lab as labapi
from cephbench.ceph import compat, pools
from cephbench.ceph.commands import ceph, failed
from cephbench.ceph.connection import Connection
from cephbench.ceph.tools import Outcome, classify
from cephbench.errors import TargetError, ToolFailed
from cephbench.kube import undo as kundo
from cephbench.model import RawOutput, now
from cephbench.resources.shield import deferred_interrupts
from cephbench.resources.undo import ResourceLeft, undoes
from cephbench.store import Resource, ResourceLog
from cephbench.system.process import ProcessResult
from cephbench.system.units import format_size
from cephbench.targets import FioTarget
from cephbench.targets.cluster import FRESH, CephTarget

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
PREFILL_TOOL = "fio-prefill"
WATCH_WAIT = 5.0
"""Seconds a client that is gone gets to lose its watch before it is blocklisted."""
BLOCKLIST_SECONDS = 600
"""Expiry of a blocklist entry cephbench adds: one a kill leaves lifts itself."""
RM_ATTEMPTS = 3


class RbdTarget(CephTarget):
    kind = "rbd"

    def __init__(self, location, options):
        super().__init__(location, options)
        self.size = 0
        self.asked = 0
        """The workloads' size the plan asked for (0: none, fio takes the image's)."""
        self.shared_image = False
        """With ``--pods``: every pod on the run's image (``--shared-image``)."""
        self.image_goes_with_pool = False
        """An image made in the pool made for the run is left to the pool's removal rather
        than removed first, object by object (the diagnosis': on a slow disk that took 2 s)."""
        self.prefill_outputs: list[RawOutput] = []
        """The prefill fio runs, once done (the runner stores them with the run): the
        image's, and those of the images :meth:`image` adds (one per client)."""
        if location != FRESH:
            pool, sep, image = location.partition("/")
            if not sep or not _NAME.match(pool) or not _NAME.match(image):
                raise TargetError(
                    f"'rbd:{location}' is not POOL/IMAGE", hint="e.g. rbd:rbd/bench-img"
                )

    def check(self, size: int) -> None:
        self.conn.tools.check("rbd")
        if self.ceph.prefill:
            self.conn.tools.check("fio")
        if self.pods is None:  # fio's rbd engine here: can its librbd read the key?
            compat.check(self.conn, "fio")
        super().check(size)
        self.asked = size
        self.size = size or 1 << 30

    def check_cluster(self) -> None:
        pools.check_usable(
            self.conn, None if self.location == FRESH else self.location.split("/")[0]
        )
        if self.pods is None:  # fio's rbd engine here: can its librbd read the OSD map?
            compat.check_features(self.conn, "fio")
        if self.location != FRESH and self.asked:
            pool, image = self.location.split("/")
            have = self._image_size(pool, image)
            if have is not None and self.asked > have:
                raise TargetError(
                    f"image {pool}/{image} is {format_size(have)}, less than the workloads' "
                    f"size {format_size(self.asked)}: fio's rbd engine fails every I/O past "
                    "its end (Invalid argument)",
                    hint=f"give --size {format_size(have)} or less; cephbench never resizes "
                    "an image it did not create",
                )

    @contextmanager
    def session(self, run_id: int, resources: ResourceLog) -> Iterator[FioTarget]:
        image = self.fresh_name(run_id) if self.location == FRESH else self.location.split("/")[1]
        with (
            self.pool_session(run_id, resources) as pool,
            self.image(pool, image, resources) as target,
        ):
            if self.pods is None:
                yield target
                return
            with ExitStack() as stack:  # fio in pods: each pod an image of its own
                options = [target.options]
                for n in range(2, self.pods.count + 1):
                    if self.shared_image:
                        options.append(target.options)
                        continue
                    own = stack.enter_context(self.image(pool, f"{image}-p{n}", resources))
                    options.append(own.options)
                podset = stack.enter_context(self.pods.session(run_id, resources, options))
                yield FioTarget(target.options, pods=podset)

    @contextmanager
    def image(self, pool: str, image: str, resources: ResourceLog) -> Iterator[FioTarget]:
        """``pool/image`` for fio: used as it is when it exists, else made (and prefilled),
        and removed afterwards. In the session's pool, for another image beside the run's
        own (``--clients``: one for each client), without checking the pool again."""
        with ExitStack() as undo:
            # a pool made for the run holds nothing it did not make: no image to look for
            if (self.pool_created and pool == self.pool) or not self._image_exists(pool, image):
                spec = f"{pool}/{image}"
                with deferred_interrupts():  # recorded and created; or not begun
                    rid = resources.add("rbd_image", spec, {"conn": self.conn.to_json()})
                    if self.image_goes_with_pool and self.pool_created and pool == self.pool:
                        undo.callback(resources.removed, rid)  # the pool's removal takes it
                    else:
                        undo.callback(_remove_recorded, self.conn, spec, resources, rid)
                    self._rbd("create", "--size", f"{max(1, self.size >> 20)}M", spec)
                if self.ceph.prefill:
                    self._prefill(pool, image)
            self.data_objects.append(self._objects(pool, image))
            yield FioTarget(
                {"ioengine": "rbd", **self.conn.fio_options(), "pool": pool, "rbdname": image},
                self.env,
                tools=self.conn.tools,
            )

    def describe(self) -> dict[str, Any]:
        info = super().describe()
        if self.conn.lab_dir:
            lab = labapi.find_running(self.conn.lab_dir)
            if lab:
                info.update(osds=len(lab.osds), hosts=len(lab.hosts))
        return info

    def prefill_args(self, pool: str, image: str, *more: str) -> list[str]:
        """fio's arguments writing ``pool/image`` from its start, as the workloads reach it
        (the connection's own rbd engine options: its client and cluster names)."""
        return [
            "--name=prefill",
            "--ioengine=rbd",
            *(f"--{k}={v}" for k, v in self.conn.fio_options().items()),
            f"--pool={pool}",
            f"--rbdname={image}",
            "--rw=write",
            *more,
            f"--size={format_size(self.size)}",
            "--output-format=json",
        ]

    def run_prefill(self, args: list[str], env: dict[str, str]) -> ProcessResult:
        """fio's rbd engine of the connection's tools, its output kept with the run's."""
        started = now()
        result = self.conn.tools.run("fio", *args, env=env, check=True, timeout=3600)
        self.prefill_outputs.append(result.as_raw(PREFILL_TOOL, started))
        return result

    def _prefill(self, pool: str, image: str) -> None:
        """Write the whole image once, sequentially, so reads hit real objects."""
        self.run_prefill(self.prefill_args(pool, image, "--bs=4M", "--iodepth=16"), self.env)

    def setup_outputs(self) -> list[RawOutput]:
        return list(self.prefill_outputs)

    def _image_exists(self, pool: str, image: str) -> bool:
        return self._image_size(pool, image) is not None

    def _objects(self, pool: str, image: str) -> dict[str, Any]:
        """The data objects of ``pool/image`` the workloads reach (``rbd_data.ID.N``, N in
        hex from 0): its prefix, object size, and how many cover the workloads' size (the
        image's, when the plan gave none)."""
        info = self._image_info(pool, image)
        if info is None:
            raise TargetError(f"image {pool}/{image} is gone")
        try:
            size, object_bytes = int(info["size"]), int(info["object_size"])
            prefix = str(info["block_name_prefix"])
        except (KeyError, TypeError, ValueError):
            raise TargetError(f"`rbd info {pool}/{image}` did not say its objects") from None
        reached = min(self.asked or size, size)
        return {
            "pool": pool,
            "prefix": prefix,
            "object_bytes": object_bytes,
            "count": -(-reached // object_bytes),
        }

    def _image_size(self, pool: str, image: str) -> int | None:
        """The image's size in bytes; None when it does not exist."""
        info = self._image_info(pool, image)
        if info is None:
            return None
        try:
            return int(info["size"])
        except (KeyError, TypeError, ValueError):
            raise TargetError(f"`rbd info {pool}/{image}` did not say its size") from None

    def _image_info(self, pool: str, image: str) -> dict[str, Any] | None:
        """``rbd info``'s JSON of the image; None when it does not exist."""
        result = self.conn.tools.run(
            "rbd",
            *self.conn.args(),
            "info",
            "--format",
            "json",
            f"{pool}/{image}",
            env=self.env,
            timeout=self.conn.timeout + 10,
        )
        if result.returncode != 0:
            if classify(result) is not Outcome.NOT_FOUND:
                raise failed(self.conn, result, f"rbd info {pool}/{image}")
            return None
        try:
            info = json.loads(result.stdout)
        except ValueError:
            raise failed(self.conn, result, f"rbd info {pool}/{image}") from None
        if not isinstance(info, dict):
            raise failed(self.conn, result, f"rbd info {pool}/{image}")
        return info

    def _rbd(self, *args: str) -> None:
        result = self.conn.tools.run(
            "rbd", *self.conn.args(), *args, env=self.env, timeout=self.conn.timeout + 30
        )
        if result.returncode != 0:
            raise failed(self.conn, result, f"rbd {' '.join(args)}")


def _remove_recorded(conn: Connection, spec: str, resources: ResourceLog, rid: int) -> None:
    """Remove the image, then mark its record removed: both, or neither, whatever Ctrl-C does."""
    with deferred_interrupts():
        try:
            remove_image(conn, spec, resources)
        except ResourceLeft:  # the image is gone; a blocklist entry is what was left
            resources.removed(rid)
            raise
        resources.removed(rid)


def remove_image(conn: Connection, spec: str, resources: ResourceLog | None = None) -> None:
    """Remove image ``spec`` (one cephbench created) once no client holds it; see the module doc."""
    with deferred_interrupts():
        listed_before: set[str] | None = None
        added: dict[str, int | None] = {}
        try:
            for attempt in range(RM_ATTEMPTS):
                stale = _wait_unwatched(conn, spec, WATCH_WAIT)
                holders = stale | _lockers(conn, spec)  # rbd rm blocklists a dead lock holder
                if holders and listed_before is None:
                    listed_before = _blocklist(conn)
                for addr in holders - (listed_before or set()) - set(added):
                    added[addr] = (
                        resources.add("ceph_blocklist", addr, {"conn": conn.to_json()})
                        if resources
                        else None
                    )
                for addr in stale - (listed_before or set()):
                    ceph(conn, "osd", "blocklist", "add", addr, str(BLOCKLIST_SECONDS))
                if stale and _wait_unwatched(conn, spec, WATCH_WAIT):
                    raise ToolFailed(
                        f"cannot remove RBD image {spec}: clients still watch it "
                        f"although blocklisted ({', '.join(sorted(stale))})",
                        hint="see `rbd status`; then run: cephbench cleanup",
                    )
                result = _rbd_rm(conn, spec)
                if result is None:
                    return
                if "watchers" not in result.stderr or attempt == RM_ATTEMPTS - 1:
                    raise ToolFailed(f"rbd rm {spec} failed: {result.last_error_line()}")
        finally:
            _lift(conn, added, resources)


def _rbd_rm(conn: Connection, spec: str) -> ProcessResult | None:
    """``rbd rm``; None when the image is gone (also when it already was)."""
    result = conn.tools.run(
        "rbd", *conn.args(), "rm", "--no-progress", spec, env=conn.env, timeout=600
    )
    if result.returncode == 0 or classify(result) is Outcome.NOT_FOUND:
        return None
    return result


def _wait_unwatched(conn: Connection, spec: str, seconds: float) -> set[str]:
    """Addresses of the clients still watching ``spec`` after up to ``seconds`` (backing off)."""
    deadline, delay = time.monotonic() + seconds, 0.1
    while True:
        watchers = _watchers(conn, spec)
        if not watchers or time.monotonic() + delay > deadline:
            return watchers
        time.sleep(delay)
        delay = min(delay * 2, 1.0)


def _watchers(conn: Connection, spec: str) -> set[str]:
    data = _rbd_json(conn, "status", spec)
    return {w["address"] for w in (data or {}).get("watchers", [])}


def _lockers(conn: Connection, spec: str) -> set[str]:
    data = _rbd_json(conn, "lock", "ls", spec)
    return {lk["address"] for lk in (data or [])}


def _rbd_json(conn: Connection, *args: str):
    """``rbd ARGS --format json`` parsed; None when the image (or its pool) does not exist."""
    result = conn.tools.run(
        "rbd", *conn.args(), *args, "--format", "json", env=conn.env, timeout=conn.timeout + 30
    )
    if result.returncode != 0:
        if classify(result) is Outcome.NOT_FOUND:
            return None
        raise failed(conn, result, f"rbd {' '.join(args)}")
    return json.loads(result.stdout or "null")


def _blocklist(conn: Connection) -> set[str]:
    """Addresses on the cluster's OSD blocklist now."""
    out, entries, decoder = (
        ceph(conn, "osd", "blocklist", "ls", "-f", "json").stdout,
        [],
        json.JSONDecoder(),
    )
    pos = 0
    while out[pos:].strip():  # Pacific prints two arrays: addresses, then address ranges
        pos += len(out[pos:]) - len(out[pos:].lstrip())
        value, pos = decoder.raw_decode(out, pos)
        entries += value if isinstance(value, list) else []
    return {e["addr"] for e in entries if "addr" in e}


def _blocklist_rm(conn: Connection, addr: str) -> None:
    """Lift ``addr``'s blocklist entry; ResourceLeft when the client may not (``profile rbd``
    may add entries, not remove them: they expire by themselves)."""
    result = ceph(conn, "osd", "blocklist", "rm", addr, check=False)
    if result.returncode == 0:
        return
    if "EACCES" in result.stderr or "access denied" in result.stderr.lower():
        raise ResourceLeft(
            f"blocklist entry {addr} (a dead client of an image cephbench removed) was left: "
            f"client.{conn.id} may not lift blocklist entries; it expires by itself",
            hint=f"or, as an admin: ceph osd blocklist rm {addr}",
        )
    raise ToolFailed(f"ceph osd blocklist rm {addr} failed: {result.last_error_line()}")


def _lift(conn: Connection, added: dict[str, int | None], resources: ResourceLog | None) -> None:
    """Lift the entries of ``added`` that are listed now, marking each record removed."""
    if not added:
        return
    listed, left = _blocklist(conn), None
    for addr, rid in added.items():
        if addr in listed:
            try:
                _blocklist_rm(conn, addr)
            except ResourceLeft as e:
                left = left or e
                continue
        if resources is not None and rid is not None:
            resources.removed(rid)
    if left is not None:
        raise left


@undoes("rbd_image", with_log=True)
def undo_image(resource: Resource, resources: ResourceLog | None = None) -> None:
    remove_image(Connection.from_json(resource.detail["conn"]), resource.name, resources)


@undoes("ceph_blocklist")
def undo_blocklist(resource: Resource) -> None:
    conn = Connection.from_json(resource.detail["conn"])
    if resource.name in _blocklist(conn):
        _blocklist_rm(conn, resource.name)


RbdTarget.undo = (*CephTarget.undo, pools.undo_pool, undo_image, undo_blocklist, *kundo.UNDO)
