"""What ``hosts check`` learns about each host, and what spoils a benchmark across hosts.

One small read-only shell script per host (constant text; the host's address is its only
argument) prints sections headed ``== name``; pure functions parse them and compare hosts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from cephbench.hosts.inventory import Host
from cephbench.hosts.ssh import HostUnreachable, Ssh

SCRIPT = r"""
export LC_ALL=C
s() { echo "== $1"; }
s uid; id -u
s sudo; if [ "$(id -u)" = 0 ]; then echo root; elif sudo -n true 2>/dev/null; then echo yes; else echo no; fi
s fio; fio --version 2>/dev/null
s iperf3; iperf3 --version 2>/dev/null | head -n 1
s kernel; uname -r
s cpu; grep -m 1 '^model name' /proc/cpuinfo; grep -c '^processor' /proc/cpuinfo
s governor; cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor 2>/dev/null
s nics
for d in /sys/class/net/*; do
  n=${d##*/}
  echo "$n $(cat "$d/mtu" 2>/dev/null) $(cat "$d/speed" 2>/dev/null || echo -) $(cat "$d/operstate" 2>/dev/null)"
done
s addr; ip -o addr show 2>/dev/null
s resolve; getent hosts "$1" 2>/dev/null | head -n 1
s disks; lsblk -d -b -J -o NAME,MODEL,ROTA,SIZE,TYPE 2>/dev/null
"""


def gather(ssh: Ssh, host: Host, timeout: float = 30) -> dict[str, Any]:
    """The facts of ``host`` (``reachable`` False and ``error`` set when ssh could not log in)."""
    try:
        result = ssh.run(host, ["sh", "-c", SCRIPT, "sh", host.address], timeout=timeout)
    except HostUnreachable as e:
        return {**_base(host), "reachable": False, "error": e.message, "hint": e.hint}
    return {**_base(host), "reachable": True, "error": None, **parse_facts(result.stdout, host)}


def _base(host: Host) -> dict[str, Any]:
    return {"name": host.name, "address": host.address, "roles": sorted(host.roles)}


def sections(text: str) -> dict[str, list[str]]:
    """``== name`` headed sections of the script's output -> their non-empty lines."""
    out: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("== "):
            current = out.setdefault(line[3:].strip(), [])
        elif current is not None and line.strip():
            current.append(line.rstrip())
    return out


def parse_facts(text: str, host: Host) -> dict[str, Any]:
    """The facts the script printed on ``host`` (pure)."""
    sec = sections(text)
    first = {k: (v[0].strip() if v else None) for k, v in sec.items()}
    sudo = first.get("sudo")
    cpu = sec.get("cpu", [])
    model = next((ln.split(":", 1)[1].strip() for ln in cpu if ln.startswith("model name")), None)
    count = next((int(ln) for ln in cpu if ln.strip().isdigit()), None)
    nics = parse_nics(sec.get("nics", []))
    addrs = parse_addrs(sec.get("addr", []))
    resolved = (first.get("resolve") or "").split()[:1]
    wanted = {host.address, *resolved}
    primary = next((n for n, ips in addrs.items() if wanted & set(ips)), None)
    for nic in nics:
        nic["addresses"] = addrs.get(nic["name"], [])
        nic["primary"] = nic["name"] == primary
    return {
        "root": first.get("uid") == "0",
        "sudo": sudo == "yes",
        "fio": first.get("fio"),
        "iperf3": parse_iperf3_version(first.get("iperf3")),
        "kernel": first.get("kernel"),
        "cpu_model": model,
        "cpus": count,
        "governor": first.get("governor"),
        "nics": nics,
        "disks": parse_disks("\n".join(sec.get("disks", []))),
    }


def parse_iperf3_version(line: str | None) -> str | None:
    """``iperf 3.12 (cJSON 1.7.15)`` -> ``3.12``."""
    m = re.match(r"iperf (\S+)", line or "")
    return m.group(1) if m else None


def parse_nics(lines: Sequence[str]) -> list[dict[str, Any]]:
    """``name mtu speed state`` lines (loopback left out); speed in Mbit/s, None if unknown."""
    nics = []
    for line in lines:
        parts = line.split()
        if len(parts) < 4 or parts[0] == "lo":
            continue
        name, mtu, speed, state = parts[0], parts[1], parts[2], parts[3]
        nics.append(
            {
                "name": name,
                "mtu": int(mtu) if mtu.isdigit() else None,
                "speed_mbps": int(speed) if speed.isdigit() and int(speed) > 0 else None,
                "state": state,
            }
        )
    return nics


def parse_addrs(lines: Sequence[str]) -> dict[str, list[str]]:
    """``ip -o addr show`` -> interface -> its addresses (without prefix lengths)."""
    out: dict[str, list[str]] = {}
    for line in lines:
        m = re.match(r"\d+:\s+(\S+)\s+inet6?\s+(\S+)", line)
        if m:
            name = m.group(1).split("@", 1)[0]
            out.setdefault(name, []).append(m.group(2).split("/", 1)[0])
    return out


def parse_disks(text: str) -> list[dict[str, Any]]:
    """``lsblk -d -b -J -o NAME,MODEL,ROTA,SIZE,TYPE``: whole disks with model and rotation."""
    if not text.strip():
        return []
    try:
        devices = json.loads(text).get("blockdevices", [])
    except (ValueError, AttributeError):
        return []
    return [
        {
            "name": d.get("name"),
            "model": (d.get("model") or "").strip() or None,
            "rotational": d.get("rota") in (True, "1", 1),
            "size_bytes": int(d["size"]) if str(d.get("size", "")).isdigit() else None,
        }
        for d in devices
        if d.get("type") == "disk"
    ]


def primary_nic(facts: Mapping[str, Any]) -> dict[str, Any] | None:
    """The NIC holding the host's inventory address (what benchmark traffic uses)."""
    return next((n for n in facts.get("nics", []) if n.get("primary")), None)


def warnings(hosts: Sequence[Mapping[str, Any]]) -> list[str]:
    """Differences between hosts that spoil a benchmark, each naming the fix (pure)."""
    up = [h for h in hosts if h.get("reachable")]
    out = []
    for key, fix in (
        ("fio", "install the same fio version everywhere: fio --client needs it"),
        ("iperf3", "install the same iperf3 everywhere"),
    ):
        missing = [h["name"] for h in up if not h.get(key)]
        if missing:
            out.append(f"{key} is not installed on {', '.join(missing)} (apt-get install {key})")
        if len(by := _group(up, key)) > 1:
            out.append(f"{key} versions differ: {_spread(by)} ({fix})")
    mtus = _group([{**h, "mtu": (primary_nic(h) or {}).get("mtu")} for h in up], "mtu")
    if len(mtus) > 1:
        out.append(
            f"MTU differs on the benchmark network: {_spread(mtus)} (set one MTU on every "
            "host and switch port, e.g. ip link set dev NIC mtu 9000; check with ping -M do)"
        )
    slow = [h["name"] for h in up if h.get("governor") not in (None, "performance")]
    if slow:
        govs = _group([h for h in up if h["name"] in slow], "governor")
        out.append(
            f"CPU frequency governor is not performance: {_spread(govs)} "
            "(cpupower frequency-set -g performance, for steady latencies)"
        )
    if len(kernels := _group(up, "kernel")) > 1:
        out.append(f"kernels differ: {_spread(kernels)} (results may differ by host for it)")
    noroot = [h["name"] for h in up if not h.get("root") and not h.get("sudo")]
    if noroot:
        out.append(
            f"neither root nor passwordless sudo on {', '.join(noroot)} "
            "(--drop-caches needs it: log in as root, or allow sudo -n)"
        )
    return out


def _group(hosts: Sequence[Mapping[str, Any]], key: str) -> dict[Any, list[str]]:
    by: dict[Any, list[str]] = {}
    for h in hosts:
        if h.get(key) is not None:
            by.setdefault(h[key], []).append(h["name"])
    return by


def _spread(by: Mapping[Any, list[str]]) -> str:
    return "; ".join(f"{value} on {', '.join(names)}" for value, names in by.items())
