"""A ``--hosts`` / ``--clients`` value to an inventory: ``lab`` (what ``lab up --ssh``
wrote), ``ceph`` (the cluster's metadata), a file, or ``h1,h2,...``. The one place an
inventory source is read."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from cephbench.errors import UsageError

if TYPE_CHECKING:
    from cephbench.ceph.connection import Connection
from cephbench.hosts.discovery import discover_ceph
from cephbench.hosts.formats import parse_file, parse_list
from cephbench.hosts.inventory import Inventory


def load_inventory(spec: str, conn: Connection | None = None) -> Inventory:
    """--hosts/--clients value: "lab" | "ceph" | a file (YAML, Ansible INI/YAML, host per
    line) | "h1,h2,..."; "lab" reads the inventory `lab up --ssh` wrote."""
    spec = spec.strip()
    if not spec:
        raise UsageError("--hosts is empty", hint="give lab, ceph, a file, or h1,h2,...")
    if spec == "lab":
        return load_lab()
    if spec == "ceph":
        return discover_ceph(conn)
    path = Path(spec).expanduser()
    if path.is_file():
        try:
            text = path.read_text()
        except OSError as e:
            raise UsageError(f"cannot read {path}: {e.strerror}") from None
        return parse_file(text, str(path))
    if "/" in spec or path.suffix in (".yaml", ".yml", ".ini", ".txt", ".list", ".hosts"):
        raise UsageError(
            f"no inventory file {spec}", hint="give an existing file, lab, ceph, or h1,h2,..."
        )
    return parse_list(spec)


def load_lab(lab_dir: Path | None = None) -> Inventory:
    """The inventory `cephbench lab up --ssh` wrote in the lab directory."""
    from cephbench.lab.info import find_running
    from cephbench.lab.paths import default_dir

    d = lab_dir or default_dir()
    path = d / "inventory.yaml"
    if not path.is_file():
        if find_running(d) is None:  # the usual cause: no lab at all, not one without ssh
            raise UsageError(
                f"no lab is running (in {d})",
                hint="start one whose hosts answer ssh: cephbench lab up --hosts 3 --ssh",
            )
        raise UsageError(
            f"the lab in {d} has no ssh inventory",
            hint="start it with ssh: cephbench lab up --hosts 3 --ssh",
        )
    inv = parse_file(path.read_text(), "lab")
    if inv.ssh_config is None:
        inv = replace(inv, ssh_config=d / "ssh" / "config")
    return inv
