"""``lab up --ssh``: an sshd in each host namespace, so the lab is a cluster of hosts that
cephbench reaches the way it reaches real ones (``--hosts lab``).

Everything lives in ``<lab>/ssh``: a host key per host, a client key, ``authorized_keys``,
``known_hosts`` (so ssh checks host keys strictly), and ``config`` (``ssh -F``), plus
``<lab>/inventory.yaml``. Each sshd listens only on its host's address on the lab's bridge.
sshd pids are recorded in the lab state and stopped, by pid after a cmdline check, by ``down``.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

from cephbench.errors import ToolMissing
from cephbench.lab.daemons import signal_until_gone
from cephbench.lab.errors import LabError
from cephbench.lab.paths import Layout
from cephbench.lab.state import LabState
from cephbench.system.pids import running
from cephbench.system.process import run, which

SSHD = "/usr/sbin/sshd"
PRIVSEP_DIR = Path("/run/sshd")
START_SECONDS = 10.0


def ssh_dir(layout: Layout) -> Path:
    return layout.dir / "ssh"


def config_path(layout: Layout) -> Path:
    return ssh_dir(layout) / "config"


def inventory_path(layout: Layout) -> Path:
    return layout.dir / "inventory.yaml"


def sshd_conf(layout: Layout, host: str) -> Path:
    return ssh_dir(layout) / f"sshd-{host}.conf"


def pid_file(layout: Layout, host: str) -> Path:
    return layout.run / f"sshd.{host}.pid"


def render_sshd_conf(layout: Layout, host: str, addr: str) -> str:
    """The sshd configuration of one lab host: keys only, root allowed, its address only."""
    d = ssh_dir(layout)
    return "\n".join(
        [
            "# written by cephbench lab up --ssh",
            f"ListenAddress {addr}:22",
            f"HostKey {d / f'host-{host}_ed25519_key'}",
            f"PidFile {pid_file(layout, host)}",
            f"AuthorizedKeysFile {d / 'authorized_keys'}",
            "PermitRootLogin prohibit-password",
            "PubkeyAuthentication yes",
            "PasswordAuthentication no",
            "KbdInteractiveAuthentication no",
            "UsePAM no",
            "StrictModes no",
            "MaxStartups 64",
            "MaxSessions 64",
            "X11Forwarding no",
            "PrintMotd no",
            "AcceptEnv LANG",
            "",
        ]
    )


def render_client_config(layout: Layout, hosts: list[tuple[str, str]]) -> str:
    """``ssh -F`` file: each lab host by name and address, root, the lab's key and known_hosts."""
    d = ssh_dir(layout)
    names = " ".join(f"{name} {addr}" for name, addr in hosts)
    lines = ["# written by cephbench lab up --ssh: ssh -F THIS_FILE host0"]
    for name, addr in hosts:
        lines += [f"Host {name}", f"    HostName {addr}"]
    lines += [
        f"Host {names}",
        "    User root",
        f"    IdentityFile {d / 'id_ed25519'}",
        "    IdentitiesOnly yes",
        "    IdentityAgent none",
        f"    UserKnownHostsFile {d / 'known_hosts'}",
        "    GlobalKnownHostsFile /dev/null",
        "    StrictHostKeyChecking yes",
        "    PasswordAuthentication no",
        "    LogLevel ERROR",
        "",
    ]
    return "\n".join(lines)


def render_inventory(layout: Layout, hosts: list[tuple[str, str, list[str]]]) -> str:
    """``inventory.yaml`` in cephbench's own hosts format (see the README)."""
    lines = [
        "# written by cephbench lab up --ssh; cephbench --hosts lab reads it",
        f"ssh_config: {config_path(layout)}",
        "user: root",
        "hosts:",
    ]
    for name, addr, roles in hosts:
        lines.append(f"  - {{name: {name}, address: {addr}, roles: [{', '.join(roles)}]}}")
    return "\n".join(lines) + "\n"


def setup(layout: Layout, state: LabState) -> None:
    """Keys, configs and inventory for every host (no process started)."""
    if not Path(SSHD).exists():
        raise ToolMissing(
            f"{SSHD} is not installed (lab up --ssh runs one per host)",
            hint="install it with: apt-get install openssh-server",
        )
    keygen = which("ssh-keygen", "openssh-client")
    d = ssh_dir(layout)
    d.mkdir(mode=0o700)
    hosts = list(zip(host_names(state), state.host_addrs, strict=True))
    run([keygen, "-q", "-t", "ed25519", "-N", "", "-C", "cephbench-lab", "-f",
         str(d / "id_ed25519")], check=True, timeout=30)  # fmt: skip
    (d / "authorized_keys").write_text((d / "id_ed25519.pub").read_text())
    known = []
    for name, addr in hosts:
        key = d / f"host-{name}_ed25519_key"
        run([keygen, "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(key)],
            check=True, timeout=30)  # fmt: skip
        pub = key.with_suffix(".pub").read_text().split()
        known.append(f"{addr} {pub[0]} {pub[1]}")
        sshd_conf(layout, name).write_text(render_sshd_conf(layout, name, addr))
    (d / "known_hosts").write_text("\n".join(known) + "\n")
    config_path(layout).write_text(render_client_config(layout, hosts))
    roles = host_roles(state)
    inventory_path(layout).write_text(
        render_inventory(layout, [(n, a, roles[n]) for n, a in hosts])
    )


def host_names(state: LabState) -> list[str]:
    return [f"host{h}" for h in range(state.spec.hosts)]


def host_roles(state: LabState) -> dict[str, list[str]]:
    """Every lab host is a client; osd/mon/mgr where those daemons run."""
    roles = {h: ["client"] for h in host_names(state)}
    for d in sorted(state.daemons.values(), key=lambda d: d.name):
        if d.kind not in roles[d.host]:
            roles[d.host].append(d.kind)
    return roles


def start(layout: Layout, state: LabState, host: str) -> int:
    """Start the sshd of ``host`` in its namespace; its pid once it listens."""
    ns = state.namespaces[int(host.removeprefix("host"))]
    pidf = pid_file(layout, host)
    pidf.unlink(missing_ok=True)
    conf = sshd_conf(layout, host)
    log = layout.log_file(f"sshd.{host}")
    argv = [SSHD, "-f", str(conf), "-E", str(log)]
    privsep = PRIVSEP_DIR
    if state.view:  # a release lab's host runs the release's programs: sshd in its root's view
        argv = ["chroot", state.view, *argv]
        privsep = Path(state.view) / PRIVSEP_DIR.relative_to("/")
    privsep.mkdir(mode=0o755, exist_ok=True)  # sshd refuses to start without it
    result = run(["ip", "netns", "exec", ns, *argv], timeout=30)
    if result.returncode != 0:
        raise LabError(
            f"sshd of {host} did not start: {result.last_error_line()}", hint=f"its log: {log}"
        )
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:  # sshd writes its pid file once it listens
        with contextlib.suppress(FileNotFoundError, ValueError):
            pid = int(pidf.read_text().strip())
            if is_ours(pid, conf):
                return pid
        time.sleep(0.05)
    raise LabError(f"sshd of {host} exited right after starting", hint=f"its log: {log}")


def is_ours(pid: int | None, conf: Path) -> bool:
    """A live sshd started with ``conf`` (sshd rewrites its title: the path is in its text)."""
    if not pid:
        return False
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return str(conf).encode() in cmdline


def stop(layout: Layout, host: str, pid: int | None, grace: float = 5.0) -> None:
    """Stop one sshd by pid (if it is still ours), and the sessions left in its namespace."""
    conf = sshd_conf(layout, host)
    pids = {p for p in (pid, _pidfile_pid(layout, host)) if p and is_ours(p, conf)}
    left = signal_until_gone(pids, lambda p: is_ours(p, conf), grace=grace)
    if left:
        raise LabError(f"sshd of {host} (pids {left}) survived SIGKILL")


def _pidfile_pid(layout: Layout, host: str) -> int | None:
    with contextlib.suppress(OSError, ValueError):
        return int(pid_file(layout, host).read_text().strip())
    return None


def namespace_pids(netns: str) -> list[int]:
    """Processes still in a lab namespace (ssh sessions, what they started)."""
    result = run(["ip", "netns", "pids", netns], timeout=30)
    return [int(p) for p in result.stdout.split() if p.isdigit()] if result.returncode == 0 else []


def stop_namespace_processes(namespaces: list[str], grace: float = 3.0) -> None:
    """End what is left in the lab's own namespaces (nothing else lives there)."""
    pids = {p for ns in namespaces for p in namespace_pids(ns)}
    pids.discard(os.getpid())
    signal_until_gone(pids, running, grace=grace, kill_wait=5.0)
