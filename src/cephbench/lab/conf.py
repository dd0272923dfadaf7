"""ceph.conf for a lab, rendered from a spec and the addresses and ports chosen for it (pure)."""

from __future__ import annotations

from dataclasses import dataclass

from cephbench.lab import mds
from cephbench.lab.paths import Layout
from cephbench.lab.spec import LabSpec

MON = "mon.a"
MGR = "mgr.x"


@dataclass(frozen=True)
class Endpoints:
    """Addresses and ports a lab listens on: one address per host, mon on host 0."""

    host_addrs: tuple[str, ...]
    mon_ports: tuple[int, int]  # msgr v2, v1
    bind_ports: tuple[int, int]  # ms_bind_port_min, ms_bind_port_max

    @property
    def mon_addr(self) -> str:
        return self.host_addrs[0]

    @property
    def mon_host(self) -> str:
        v2, v1 = self.mon_ports
        return f"[v2:{self.mon_addr}:{v2},v1:{self.mon_addr}:{v1}]"


def _global(spec: LabSpec, layout: Layout, fsid: str, ep: Endpoints) -> dict[str, object]:
    return {
        "fsid": fsid,
        "mon_host": ep.mon_host,
        "run_dir": layout.run,
        "crash_dir": layout.crash,
        "pid_file": f"{layout.run}/$name.pid",
        "log_file": f"{layout.log}/$name.log",
        "auth_cluster_required": spec.auth,
        "auth_service_required": spec.auth,
        "auth_client_required": spec.auth,
        "auth_allow_insecure_global_id_reclaim": "false",
        "ms_bind_port_min": ep.bind_ports[0],
        "ms_bind_port_max": ep.bind_ports[1],
        # the default CRUSH rule's failure domain: 0 = osd, 1 = host
        "osd_crush_chooseleaf_type": 1 if spec.failure_domain == "host" else 0,
        "osd_pool_default_size": spec.pool_size,
        "osd_pool_default_pg_autoscale_mode": "off",
        "mon_allow_pool_size_one": "true",
        "mon_allow_pool_delete": "true",
        "mon_warn_on_pool_no_redundancy": "false",
        "mon_pg_warn_min_per_osd": 0,
        # a hung OSD on a single host must still be reported down by its peers
        "mon_osd_reporter_subtree_level": "osd",
        # the lab shares the machine's filesystem: do not warn about its free space
        "mon_data_avail_warn": 2,
        "mon_data_avail_crit": 1,
        # speed: commit map changes quickly and report PG states every second
        "paxos_propose_interval": 0.1,
        "mon_mgr_digest_period": 1,
        "mgr_stats_period": 1,
        "mgr_tick_period": 1,
    }


def _osd(spec: LabSpec, layout: Layout) -> dict[str, object]:
    return {
        "osd_data": f"{layout.dir}/osd.$id",
        "keyring": "$osd_data/keyring",
        "osd_objectstore": spec.store,
        "osd_memory_target": 1024**3,
        # must not be $osd_data/block itself: mkfs symlinks block to it (ELOOP otherwise)
        "bluestore_block_path": f"{layout.disk}/osd.$id.img",
        "bluestore_block_create": "true",
        "bluestore_block_size": spec.osd_size,
        "bluestore_block_db_create": "false",
        "bluestore_block_wal_create": "false",
        "bluestore_fsck_on_mkfs": "false",
        "memstore_device_bytes": spec.osd_size,
        # files inherit "rotational" from the disk: no sleeping between recovery ops
        "osd_recovery_sleep_hdd": 0,
        "osd_mon_shutdown_timeout": 2,
    }


def conf_sections(spec: LabSpec, layout: Layout, fsid: str, ep: Endpoints) -> dict[str, dict]:
    """Every section of the lab's ceph.conf; ``spec.conf_set`` overrides the lab's choices."""
    sections: dict[str, dict[str, object]] = {
        "global": _global(spec, layout, fsid, ep),
        "mon": {"mon_data": f"{layout.dir}/mon.$id", "mgr_initial_modules": "iostat"},
        MON: {"public_addr": ep.mon_addr},
        "mgr": {"mgr_data": f"{layout.dir}/mgr.$id", "keyring": "$mgr_data/keyring"},
        MGR: {"public_addr": ep.mon_addr},
        "osd": _osd(spec, layout),
        "client": {"keyring": layout.admin_keyring, "rbd_cache": "true"},
    }
    if spec.cephfs:
        sections["mds"] = mds.conf_section(layout)
        sections[mds.MDS] = {"public_addr": ep.mon_addr}
    for osd in range(spec.osds):
        addr = ep.host_addrs[spec.host_of(osd)]
        sections[f"osd.{osd}"] = {
            "public_addr": addr,
            "cluster_addr": addr,
            "crush_location": f"root=default host=host{spec.host_of(osd)}",
        }
    for key, value in spec.conf_set.items():
        for options in sections.values():
            options.pop(key, None)
        sections["global"][key] = value
    return sections


def render_conf(spec: LabSpec, layout: Layout, fsid: str, ep: Endpoints) -> str:
    """The ceph.conf text."""
    out = []
    for name, options in conf_sections(spec, layout, fsid, ep).items():
        out.append(f"[{name}]")
        out.extend(f"{key} = {value}" for key, value in options.items())
        out.append("")
    return "\n".join(out)
