"""What the lab tests share: the CLI, and what is on the machine (processes, netns, links)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result

from cephbench.cli import cli
from cephbench.lab.daemons import ours
from cephbench.system.process import run


def invoke(*args: str | Path, expect: int | None = 0) -> Result:
    """``cephbench ARGS`` in-process; asserts the exit status unless ``expect`` is None."""
    result = CliRunner().invoke(cli, [str(a) for a in args])
    if expect is not None:
        assert result.exit_code == expect, f"exit {result.exit_code}\n{result.output}"
    return result


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
