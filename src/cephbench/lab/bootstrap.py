"""``lab up``: a monitor, a manager and OSDs started as plain processes, up to HEALTH_OK.

The slow steps overlap: OSD mkfs runs (without the monitor) while the monitor and manager
start; all OSDs start in parallel; readiness is polled every 0.2 s. Anything that fails
or is interrupted takes down what was started (see :mod:`.teardown`).
"""

from __future__ import annotations

import contextlib
import secrets
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from cephbench.errors import ToolFailed
from cephbench.lab import (
    k8s,
    k8s_build,
    keys,
    mds,
    net,
    preflight,
    release_view,
    releases,
    sshd,
    teardown,
)
from cephbench.lab.ceph import ceph, ceph_json, not_ready
from cephbench.lab.conf import MGR, MON, Endpoints, render_conf
from cephbench.lab.daemons import failure, is_ours, run_tool, start
from cephbench.lab.errors import LabError
from cephbench.lab.info import LabInfo, find_running, info_from_state
from cephbench.lab.paths import Layout
from cephbench.lab.spec import LabSpec
from cephbench.lab.state import Daemon, LabState, save
from cephbench.system.process import run

Progress = Callable[[str], None]
POLL = 0.2


def _quiet(message: str) -> None:
    pass


@dataclass(frozen=True)
class UpResult:
    """A lab that is up: its coordinates, and how long ``up`` took (0 if it was running)."""

    info: LabInfo
    seconds: float
    already_running: bool = False


class _Recorder:
    """The state being built, saved to disk after every change (from any thread)."""

    def __init__(self, layout: Layout, state: LabState):
        self.layout, self.state = layout, state
        self._lock = threading.Lock()
        save(layout, state)

    def __call__(self, change: Callable[[LabState], None]) -> None:
        with self._lock:
            change(self.state)
            save(self.layout, self.state)

    def set(self, **fields: object) -> None:
        """Record new values of top-level state fields."""

        def change(state: LabState) -> None:
            for k, v in fields.items():
                setattr(state, k, v)

        self(change)


def up(spec: LabSpec, progress: Progress = _quiet, timeout: float = 300) -> UpResult:
    """Bring up the lab ``spec`` describes, or return the one already running there."""
    running = find_running(spec.dir)
    if running is not None:
        if spec.k8s and running.k8s is None:
            raise LabError(
                f"the lab running in {spec.dir} has no Kubernetes",
                hint=f"take it down, then: cephbench lab up --k8s --dir {spec.dir}",
            )
        return UpResult(running, 0.0, already_running=True)
    layout = Layout(spec.dir)
    if layout.state.exists():
        raise LabError(
            f"{spec.dir} holds a lab that is not running (being started, or left by a crash)",
            hint=f"take it down first: cephbench lab down --dir {spec.dir}",
        )
    preflight.check(spec)
    if spec.dir.exists() and any(spec.dir.iterdir()):
        raise LabError(f"{spec.dir} is not empty", hint="choose a new or empty --dir")
    if spec.k8s:  # before anything is created: the first build takes minutes
        k8s.preflight()
        k8s_build.ensure_binaries(k8s_build.VERSION, progress)
    root = releases.ensure(releases.get(spec.release), progress)  # the first build: a minute
    start_time = time.monotonic()
    spec.dir.mkdir(parents=True, exist_ok=True)
    rec = _Recorder(
        layout, LabState(lab_id=secrets.token_hex(2), spec=spec, started_at=time.time())
    )
    stop = threading.Event()
    kube: Future | None = None
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lab-k8s")
    try:
        if spec.k8s:  # Kubernetes starts while Ceph does; its pool and class come after
            kube = pool.submit(k8s.start, rec, progress, start_time + timeout, stop)
        _bootstrap(rec, root, progress, start_time + timeout)
        if kube is not None:
            k8s.create_pool(rec)
            kube.result()
            k8s.finish(rec, progress)
    except BaseException as e:
        stop.set()
        if kube is not None:
            with contextlib.suppress(BaseException):
                kube.result()  # it stops at its next step; teardown must not race it
        progress("up did not finish: taking down what it started")
        result = teardown.down(spec.dir)
        if isinstance(e, LabError) and result is not None and result.archive is not None:
            e.hint = f"logs kept in {result.archive}"
        raise
    finally:
        pool.shutdown(wait=True)
    seconds = time.monotonic() - start_time
    rec.set(phase="running", up_seconds=round(seconds, 2))
    return UpResult(info_from_state(layout, rec.state), seconds)


def _bootstrap(rec: _Recorder, root: Path | None, progress: Progress, deadline: float) -> None:
    spec, layout = rec.state.spec, rec.layout
    for d in (layout.run, layout.log, layout.crash, layout.disk):
        d.mkdir(exist_ok=True)  # the log directory may be Kubernetes' already
    if root is not None:
        view = release_view.path_for(rec.state.lab_id, layout.dir)
        made = [str(p) for p in release_view.made_in_root(root, layout.dir)]
        rec.set(view=str(view), root_dirs=made)
        release_view.create(view, root, layout.dir)
        release_view.write_shims(view, layout.bin)
    ep = _plan_daemons(rec, _network(rec, progress))
    if spec.ssh:
        _start_sshd(rec, progress)
    fsid = str(uuid.uuid4())
    rec.set(fsid=fsid)
    layout.conf.write_text(render_conf(spec, layout, fsid, ep))
    osd_uuids = {i: str(uuid.uuid4()) for i in range(spec.osds)}
    _write_keys(rec)
    tools = info_from_state(layout, rec.state).tools
    monmap = ["--create", "--fsid", fsid, "--addv", "a", ep.mon_host, str(layout.monmap)]
    run(
        tools.argv("monmaptool", *monmap),
        env={"CEPH_CONF": "/dev/null"},
        check=True,
        timeout=30,
    )
    pool = ThreadPoolExecutor(max_workers=spec.osds + 1, thread_name_prefix="lab-up")
    try:
        progress(f"creating {spec.osds} OSDs ({spec.store}) while the monitor starts")
        mkfs = [pool.submit(_mkfs_osd, rec, i, osd_uuids[i]) for i in range(spec.osds)]
        _start(
            rec, MON, "--mkfs", "--monmap", str(layout.monmap), "--keyring", str(layout.mon_keyring)
        )
        _start(rec, MGR)
        _register_osds(rec, osd_uuids)
        _all(mkfs)
        progress(f"starting {spec.osds} OSDs")
        more = [mds.MDS] if spec.cephfs else []
        _all(
            [pool.submit(_start, rec, n) for n in [*(f"osd.{i}" for i in range(spec.osds)), *more]]
        )
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    _wait_ready(rec, progress, deadline)


def _all(futures: list[Future]) -> None:
    for f in futures:
        f.result()


def _network(rec: _Recorder, progress: Progress) -> list[str]:
    """The hosts' addresses; with 2+ hosts, their namespaces, links and bridge (recorded first)."""
    spec, lab_id = rec.state.spec, rec.state.lab_id
    if spec.hosts == 1:
        return net.host_addrs(None, 1)
    bridge = net.bridge_name(lab_id)
    namespaces = [net.netns_name(lab_id, h) for h in range(spec.hosts)]
    veths = [net.veth_name(lab_id, h) for h in range(spec.hosts)]
    with net.subnet_lock():  # another lab coming up now must see this one's subnet taken
        subnet = net.choose_subnet(net.used_networks())
        progress(f"creating {spec.hosts} hosts (network namespaces) on {subnet}.0/24")
        addrs = net.host_addrs(subnet, spec.hosts)
        rec.set(bridge=bridge, namespaces=namespaces, links=veths)
        net.create_bridge(bridge, subnet)
    for ns, veth, addr in zip(namespaces, veths, addrs, strict=True):
        net.create_netns(ns)
        net.create_host_link(veth, ns, bridge, addr, spec.rate)
    return addrs


def _start_sshd(rec: _Recorder, progress: Progress) -> None:
    """Keys, configs and the inventory, then an sshd per host (each recorded first)."""
    progress(f"starting sshd on {rec.state.spec.hosts} hosts")
    sshd.setup(rec.layout, rec.state)
    for host in sshd.host_names(rec.state):
        rec.set(sshd={**rec.state.sshd, host: None})
        pid = sshd.start(rec.layout, rec.state, host)
        rec.set(sshd={**rec.state.sshd, host: pid})


def _plan_daemons(rec: _Recorder, addrs: list[str]) -> Endpoints:
    """Free ports, and which host (and namespace) runs each daemon; mon and mgr on host 0."""
    spec, namespaces = rec.state.spec, rec.state.namespaces
    count = 2 + 16 + 10 * spec.osds  # mon v2+v1, then the bind range (~8 ports per OSD)
    first = net.free_port_block(net.LOOPBACK, count)
    ep = Endpoints(tuple(addrs), (first, first + 1), (first + 2, first + count - 1))
    placement = {MON: 0, MGR: 0} | {f"osd.{i}": spec.host_of(i) for i in range(spec.osds)}
    placement |= {mds.MDS: 0} if spec.cephfs else {}
    daemons = {
        name: Daemon(
            name=name,
            host=f"host{h}",
            netns=namespaces[h] if namespaces else None,
            chroot=rec.state.view,
            env=_stand_ins(rec) if name == MGR else {},
        )
        for name, h in placement.items()
    }
    rec.set(host_addrs=addrs, mon_ports=ep.mon_ports, bind_ports=ep.bind_ports, daemons=daemons)
    return ep


def _stand_ins(rec: _Recorder) -> dict[str, str]:
    """The manager's environment: a folder of stand-in modules first on its Python path."""
    modules = releases.get(rec.state.spec.release).mgr_stand_ins
    if not modules:
        return {}
    folder = rec.layout.dir / "mgr-python"
    folder.mkdir(exist_ok=True)
    for name in modules:
        (folder / f"{name}.py").write_text(releases.MGR_STAND_IN)
    return {"PYTHONPATH": str(folder)}


def _write_keys(rec: _Recorder) -> None:
    """Every key up front, all imported by the monitor's mkfs: no ``ceph auth`` round trips."""
    layout, daemons = rec.layout, rec.state.daemons
    kind = releases.get(rec.state.spec.release).key_type  # the type its own tools would make

    def key() -> str:
        return keys.gen_key(kind=kind)

    entries = {
        "mon.": (key(), keys.MON_CAPS),
        "client.admin": (key(), keys.ADMIN_CAPS),
        MGR: (key(), keys.MGR_CAPS),
    }
    for d in daemons.values():
        if d.kind in ("osd", "mds"):
            entries[d.name] = (key(), keys.OSD_CAPS if d.kind == "osd" else mds.MDS_CAPS)
    layout.mon_keyring.write_text(keys.render_keyring(entries))
    layout.admin_keyring.write_text(keys.render_keyring({"client.admin": entries["client.admin"]}))
    for d in daemons.values():
        if d.kind in ("mgr", "osd", "mds"):
            layout.data(d.name).mkdir()
            (layout.data(d.name) / "keyring").write_text(
                keys.render_keyring({d.name: entries[d.name]})
            )


def _mkfs_osd(rec: _Recorder, osd: int, osd_uuid: str) -> None:
    run_tool(
        rec.layout,
        rec.state.daemons[f"osd.{osd}"],
        "--mkfs",
        "--no-mon-config",
        "--osd-uuid",
        osd_uuid,
        what="mkfs failed",
    )


def _start(rec: _Recorder, name: str, *mkfs_args: str) -> None:
    """Start a daemon (running its mkfs first if given) and record its pid."""
    daemon = rec.state.daemons[name]
    if mkfs_args:
        run_tool(rec.layout, daemon, *mkfs_args, what="mkfs failed")
    pid = start(rec.layout, daemon)
    rec(lambda s: setattr(s.daemons[name], "pid", pid))


def _register_osds(rec: _Recorder, osd_uuids: dict[int, str]) -> None:
    """One ``ceph`` session: add every OSD to the map; no device-health pool nobody asked for."""
    lines = [f"osd new {u} {i}" for i, u in osd_uuids.items()]
    lines.append("config set mgr mgr/devicehealth/enable_monitoring false --force")
    lines += mds.setup_commands() if rec.state.spec.cephfs else []
    info = info_from_state(rec.layout, rec.state)
    try:
        ceph(info, timeout=60, stdin="\n".join(lines) + "\n")
    except ToolFailed as e:
        raise failure(rec.layout, MON, f"did not answer ({e.message})") from None


def _wait_ready(rec: _Recorder, progress: Progress, deadline: float) -> None:
    """Poll ``ceph status`` until :func:`not_ready` says nothing; fail fast if a daemon dies."""
    layout, state = rec.layout, rec.state
    info = info_from_state(layout, state)
    said = ""
    while True:
        for d in state.daemons.values():
            if not is_ours(d.pid, layout.conf):
                raise failure(layout, d.name, "died")
        try:
            st = ceph_json(info, "status", timeout=10)
            waiting = not_ready(st, state.spec.osds) or (
                mds.not_ready(st) if state.spec.cephfs else None
            )
        except ToolFailed as e:
            waiting = f"the monitor ({e.message})"
        if waiting is None:
            return
        if waiting != said:
            progress(f"waiting for {waiting}")
            said = waiting
        if time.monotonic() > deadline:
            raise LabError(
                f"the lab was not ready in time; still waiting for {waiting}",
                hint=f"daemon logs are in {layout.log}",
            )
        time.sleep(POLL)
