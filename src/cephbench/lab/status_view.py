"""``lab status``: the lab's daemons (pids, memory), health, OSD tree and pools, as one dict."""

from __future__ import annotations

import contextlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from cephbench.errors import CephbenchError
from cephbench.lab import ceph as parse
from cephbench.lab import faults as lab_faults
from cephbench.lab import k8s_down, mds, sshd
from cephbench.lab.ceph import ceph_json
from cephbench.lab.daemons import is_ours, rss_mib
from cephbench.lab.info import info_from_state
from cephbench.lab.paths import Layout, default_dir
from cephbench.lab.state import LabState, load


def status(dir: Path | str | None = None) -> dict[str, Any]:
    """Everything about the lab in ``dir``; ``{"running": False, ...}`` if there is none."""
    layout = Layout(Path(dir).expanduser().absolute() if dir else default_dir())
    state = load(layout)
    if state is None:
        return {"running": False, "dir": str(layout.dir)}
    procs = {
        name: {"pid": d.pid, "running": is_ours(d.pid, layout.conf), "rss_mib": rss_mib(d.pid)}
        for name, d in state.daemons.items()
    }
    cluster: dict[str, Any] = {}
    if procs.get("mon.a", {}).get("running"):
        cluster = _query(layout, state)
    ssh = {
        host: {"pid": pid, "running": sshd.is_ours(pid, sshd.sshd_conf(layout, host))}
        for host, pid in state.sshd.items()
    }
    fs_ls = cluster.pop("fs_ls", None)
    return assemble(state, layout, procs, **cluster, faults=lab_faults.entries(layout.dir)) | {
        "ssh": ssh_status(state, layout, ssh),
        "k8s": k8s_down.status(layout, state),
        "cephfs": mds.status_entry(cluster.get("ceph_status", {}), fs_ls)
        if state.spec.cephfs
        else None,
    }


def ssh_status(state: LabState, layout: Layout, procs: dict[str, dict]) -> dict[str, Any] | None:
    """The sshds of ``lab up --ssh`` and the files to reach them with; None without --ssh."""
    if not state.spec.ssh:
        return None
    addrs = dict(zip(sshd.host_names(state), state.host_addrs, strict=False))
    return {
        "config": str(sshd.config_path(layout)),
        "inventory": str(sshd.inventory_path(layout)),
        "sshd": [
            {"host": h, "address": addrs.get(h), **procs.get(h, {"pid": None, "running": False})}
            for h in sshd.host_names(state)
        ],
    }


def _query(layout: Layout, state: LabState) -> dict[str, Any]:
    """``ceph status``, ``osd dump`` and ``osd tree``, asked in parallel (empty on failure)."""
    info = info_from_state(layout, state)
    commands = {"ceph_status": ("status",), "dump": ("osd", "dump"), "tree": ("osd", "tree")}
    commands |= {"fs_ls": ("fs", "ls")} if state.spec.cephfs else {}
    with ThreadPoolExecutor(len(commands)) as pool:
        futures = {
            k: pool.submit(ceph_json, info, *args, timeout=10) for k, args in commands.items()
        }
    out = {}
    for key, future in futures.items():
        with contextlib.suppress(CephbenchError):
            out[key] = future.result()
    return out


def assemble(
    state: LabState,
    layout: Layout,
    procs: dict[str, dict],
    ceph_status: dict | None = None,
    dump: dict | None = None,
    tree: dict | None = None,
    faults: list[dict] | None = None,
) -> dict[str, Any]:
    """The status dict from the recorded state, process facts and ceph's answers (pure)."""
    ceph_status, dump, tree = ceph_status or {}, dump or {}, tree or {}
    hosts, states = parse.osd_hosts(tree), parse.osd_states(dump)
    mgrmap = ceph_status.get("mgrmap", {})

    def entry(name: str) -> dict[str, Any]:
        d = state.daemons[name]
        return {"name": d.ident, "host": d.host, **procs[name]}

    osds = [
        {
            "id": int(d.ident),
            "host": hosts.get(int(d.ident), d.host),
            **states.get(int(d.ident), {"up": False, "in": False}),
            **procs[d.name],
        }
        for d in state.osds()
    ]
    mons = [
        {
            **entry(d.name),
            "addr": f"{state.host_addrs[0]}:{state.mon_ports[0]}"
            if state.host_addrs and state.mon_ports
            else None,
        }
        for d in state.daemons.values()
        if d.kind == "mon"
    ]
    mdss = [{**entry(d.name)} for d in state.daemons.values() if d.kind == "mds"]
    mgrs = [
        {**entry(d.name), "active": mgrmap.get("available", False)}
        for d in state.daemons.values()
        if d.kind == "mgr"
    ]
    pools = [{**p, "created_by_cephbench": p["name"] in state.pools} for p in parse.pools(dump)]
    pgmap = ceph_status.get("pgmap", {})
    return {
        "running": state.phase == "running" and procs.get("mon.a", {}).get("running", False),
        "phase": state.phase,
        "health": ceph_status.get("health", {}).get("status"),
        "health_checks": parse.health_checks(ceph_status),
        "dir": str(layout.dir),
        "conf": str(layout.conf),
        "store": state.spec.store,
        "hosts": state.spec.hosts,
        "rate": state.spec.rate,
        "up_seconds": state.up_seconds,
        "osds": osds,
        "mons": mons,
        "mgrs": mgrs,
        "mdss": mdss,
        "pools": pools,
        "pgs": {
            "total": pgmap.get("num_pgs", 0),
            "states": {s["state_name"]: s["count"] for s in pgmap.get("pgs_by_state", [])},
        },
        "faults": faults if faults is not None else [lab_faults.entry(f) for f in state.faults],
    }
