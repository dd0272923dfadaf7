"""``cephbench lab status`` as tables: what the lab's status document holds, printed (the
document itself is ``lab status --format json``)."""

from __future__ import annotations

from cephbench.cli.common import console


def print_status(data: dict) -> None:
    """The lab's daemons, hosts, CephFS, Kubernetes, faults and pools, as tables."""
    from rich.table import Table

    state = "running" if data["running"] else f"not running ({data['phase']})"
    console.print(f"Lab in {data['dir']}: {state}, health {data['health'] or 'unknown'}")
    for check in data["health_checks"]:
        console.print(f"  {check}")
    table = Table("daemon", "host", "pid", "process", "in map", "RSS MiB")
    for kind, entries in (("mon", data["mons"]), ("mgr", data["mgrs"]), ("mds", data["mdss"])):
        for d in entries:
            table.add_row(
                f"{kind}.{d['name']}",
                d["host"],
                str(d["pid"]),
                _alive(d["running"]),
                "",
                _mib(d["rss_mib"]),
            )
    for o in data["osds"]:
        in_map = ("up" if o["up"] else "down") + (", in" if o["in"] else ", out")
        table.add_row(
            f"osd.{o['id']}",
            o["host"],
            str(o["pid"]),
            _alive(o["running"]),
            in_map,
            _mib(o["rss_mib"]),
        )
    console.print(table)
    if data.get("ssh"):
        ssh = Table("sshd", "address", "pid", "process")
        for s in data["ssh"]["sshd"]:
            ssh.add_row(s["host"], s["address"] or "", str(s["pid"]), _alive(s["running"]))
        console.print(ssh)
        console.print(f"ssh: ssh -F {data['ssh']['config']} host0   inventory: --hosts lab")
    if data.get("cephfs"):
        fs = data["cephfs"]
        ranks = ", ".join(f"rank {r['rank']} {r['name']} {r['state']}" for r in fs["ranks"])
        console.print(
            f"CephFS {fs['name']}: metadata pool {fs['metadata_pool']}, data pools "
            f"{', '.join(fs['data_pools'])}; {ranks or 'no MDS rank'}; {fs['standby']} standby"
        )
    if data.get("k8s"):
        _print_k8s(data["k8s"])
    for f in data.get("faults", []):
        state = "" if f["active"] is not False else " [red](not active)[/]"
        console.print(f"[bold]fault[/] {f['kind']}: {f['summary']}{state}", markup=True)
    if data["pools"]:
        pools = Table("pool", "size", "pg_num", "applications", "by cephbench")
        for p in data["pools"]:
            pools.add_row(
                p["name"],
                str(p["size"]),
                str(p["pg_num"]),
                ",".join(p["applications"]),
                "yes" if p["created_by_cephbench"] else "",
            )
        console.print(pools)


def _print_k8s(k: dict) -> None:
    """The lab's Kubernetes: its daemons, server, StorageClass and volumes."""
    from rich.table import Table

    table = Table("Kubernetes daemon", "pid", "process", "RSS MiB")
    for d in k["daemons"]:
        table.add_row(d["name"], str(d["pid"]), _alive(d["running"]), _mib(d["rss_mib"]))
    console.print(table)
    console.print(
        f"Kubernetes {k['version']}, node {k['node']}, {k['server']}: KUBECONFIG={k['kubeconfig']}"
    )
    sc = k.get("storage_class")
    if sc:
        params = ", ".join(f"{key}={v}" for key, v in sc["parameters"].items())
        console.print(
            f"StorageClass {sc['name']}: {sc['provisioner']}, {sc['volume_binding_mode']}, "
            f"reclaim {sc['reclaim_policy']} ({params})"
        )
    for v in k.get("volumes", []):
        mode = "Block" if v["block"] else "Filesystem"
        console.print(
            f"  volume {v['pv']} for {v['claim']}: {v['pool']}/{v['image']} {v['size_mib']} MiB {mode}"
        )


def _alive(running: bool) -> str:
    return "[green]running[/]" if running else "[red]stopped[/]"


def _mib(value: float | None) -> str:
    return "" if value is None else f"{value:.0f}"
