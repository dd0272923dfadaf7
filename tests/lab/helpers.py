"""What the lab tests share: what is on the machine (processes, netns, links)."""

from __future__ import annotations

import json
from pathlib import Path

from cephbench.lab.daemons import ours
from cephbench.system.process import run
from tests.helpers import invoke


def status_json(lab_dir: Path) -> dict:
    return json.loads(invoke("lab", "status", "--format", "json", "--dir", lab_dir).stdout)


def netns_names() -> set[str]:
    out = run(["ip", "netns", "list"], check=True).stdout
    return {line.split()[0] for line in out.splitlines() if line.strip()}


def link_names() -> set[str]:
    links = json.loads(run(["ip", "-j", "link"], check=True).stdout)
    return {link["ifname"] for link in links}


def assert_nothing_left(lab_dir: Path, namespaces: list[str], links: list[str]) -> None:
    """No process of the lab (/proc), none of its namespaces or links, no directory."""
    assert ours(lab_dir / "ceph.conf") == []
    assert not set(namespaces) & netns_names()
    assert not set(links) & link_names()
    assert not lab_dir.exists()
