"""The environment a run happened in: host, kernel, CPU, memory, tool versions, storage.

Everything here is best effort and cheap (no subprocess takes more than a few seconds); a
fact that cannot be read is left out, never guessed.
"""

from __future__ import annotations

import json
import os
import platform
import socket
import sys
from pathlib import Path
from typing import Any

from cephbench import __version__
from cephbench.errors import CephbenchError
from cephbench.system.process import run


def collect(tools: dict[str, str] | None = None) -> dict[str, Any]:
    """Host facts plus ``tools`` (name -> version string) already known to the caller."""
    env: dict[str, Any] = {
        "host": socket.gethostname(),
        "kernel": platform.release(),
        "os": _os_release(),
        "arch": platform.machine(),
        "cpu_model": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "memory_bytes": _mem_total(),
        "python": sys.version.split()[0],
        "cephbench": __version__,
    }
    env["tools"] = dict(tools or {})
    return {k: v for k, v in env.items() if v is not None}


def storage_of(path: str) -> dict[str, Any]:
    """Filesystem and device behind ``path``: type, source, model, rotational."""
    info: dict[str, Any] = {}
    mount = _json(["findmnt", "-J", "-T", path, "-o", "SOURCE,FSTYPE,TARGET"])
    if mount and mount.get("filesystems"):
        fs = mount["filesystems"][0]
        info.update(filesystem=fs.get("fstype"), mount=fs.get("target"), source=fs.get("source"))
    source = info.get("source") or path
    if str(source).startswith("/dev/"):
        info.update(device_info(str(source)))
    return info


def device_info(device: str) -> dict[str, Any]:
    """Model, size and rotational flag of a block device (of its disk, for a partition)."""
    tree = _json(["lsblk", "-J", "-b", "-s", "-o", "NAME,TYPE,MODEL,ROTA,SIZE", device])
    if not tree or not tree.get("blockdevices"):
        return {}
    node = tree["blockdevices"][0]
    while node.get("children"):  # -s walks from the partition up to its disk
        node = node["children"][0]
    return {
        "device": f"/dev/{node['name']}",
        "device_model": (node.get("model") or "").strip() or None,
        "rotational": bool(int(node["rota"])) if node.get("rota") is not None else None,
        "device_size_bytes": node.get("size"),
    }


def _json(argv: list[str]) -> dict | None:
    try:
        result = run(argv, timeout=10)
    except CephbenchError:
        return None
    if result.returncode != 0:
        return None
    try:
        return json.loads(result.stdout)
    except json.JSONDecodeError:
        return None


def _os_release() -> str | None:
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                return line.split("=", 1)[1].strip('"')
    except OSError:
        pass
    return None


def _cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def _mem_total() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None
