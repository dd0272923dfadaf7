"""``cephbench hosts``: the machines of an inventory (``--hosts``), checked over ssh."""

from __future__ import annotations

import time
from typing import Any

import click

from cephbench.cli.common import console, console_err, debug_option, format_option, print_json
from cephbench.errors import CephbenchError

HOSTS_HELP = (
    "The hosts: lab (lab up --ssh), ceph (discovered from the cluster), an inventory file "
    "(cephbench YAML, Ansible INI/YAML, one host per line) or h1,h2,..."
)


@click.group()
def hosts() -> None:
    """The machines a benchmark runs from and across, reached over ssh.

    `cephbench hosts check --hosts ceph` shows what each host runs and warns about
    differences that spoil a benchmark (fio versions, MTU).
    """


@hosts.command()
@click.option("--hosts", "spec", required=True, metavar="SPEC", help=HOSTS_HELP)
@click.option(
    "--connect-timeout", default=10.0, show_default=True, help="Seconds to reach each host."
)
@click.option(
    "--fanout", default=16, show_default=True, help="Hosts contacted at once (sshd limits)."
)
@format_option("table", "json")
@debug_option
def check(spec: str, connect_timeout: float, fanout: int, fmt: str) -> None:
    """Reach every host and show its fio, iperf3, kernel, CPU, NICs and disks."""
    from rich.markup import escape

    from cephbench import contracts
    from cephbench.hosts.facts import gather, warnings
    from cephbench.hosts.load import load_inventory
    from cephbench.hosts.ssh import Ssh

    inv = load_inventory(spec)
    start = time.monotonic()
    with Ssh(inv, connect_timeout=connect_timeout, fanout=fanout) as ssh:
        facts = ssh.each(list(inv.hosts), lambda h: gather(ssh, h))
    seconds = time.monotonic() - start
    rows = [facts[h.name] for h in inv.hosts]
    warned = warnings(rows)
    if fmt == "json":
        print_json(
            contracts.document(
                contracts.HOSTS,
                source=inv.source,
                hosts=rows,
                warnings=warned,
                seconds=round(seconds, 3),
            )
        )
    else:
        _print(rows, warned, inv.source, seconds)
    down = [r for r in rows if not r["reachable"]]
    for r in down[1:]:
        console_err.print(f"[bold red]Error:[/] {escape(r['error'])}", soft_wrap=True)
    if down:
        raise CephbenchError(down[0]["error"], hint=down[0].get("hint"))


def _print(rows: list[dict[str, Any]], warned: list[str], source: str, seconds: float) -> None:
    from rich.table import Table

    from cephbench.hosts.facts import primary_nic

    table = Table("host", "login", "fio", "iperf3", "kernel", "CPUs", "governor",
                  "NIC MTU Mbit/s", "disks")  # fmt: skip
    for r in rows:
        if not r["reachable"]:
            table.add_row(r["name"], "[red]unreachable[/]", *[""] * 7)
            continue
        nic = primary_nic(r)
        nic_text = (
            f"{nic['name']} {nic['mtu']} {nic['speed_mbps'] or '?'}" if nic is not None else "?"
        )
        disks = ", ".join(
            f"{d['name']} {'HDD' if d['rotational'] else 'SSD'}"
            + (f" {d['model']}" if d["model"] else "")
            for d in r["disks"]
        )
        table.add_row(
            r["name"],
            "root" if r["root"] else ("sudo" if r["sudo"] else "[yellow]no root[/]"),
            r["fio"] or "[yellow]missing[/]",
            r["iperf3"] or "[yellow]missing[/]",
            r["kernel"] or "?",
            str(r["cpus"] or "?"),
            r["governor"] or "-",
            nic_text,
            disks or "-",
        )
    reached = sum(r["reachable"] for r in rows)
    console.print(table)
    for r in rows:
        if r["reachable"]:
            console.print(f"{r['name']}: {r['address']}, {r['cpu_model'] or 'CPU model unknown'}")
    console.print(f"{reached} of {len(rows)} hosts reached in {seconds:.2f} s ({source})")
    for w in warned:
        console.print(f"[yellow]warning:[/] {w}", soft_wrap=True)
