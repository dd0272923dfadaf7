"""Faults on demand in the lab: a slow disk, a CPU-starved OSD, a slow link to one host.

They are the proof for ``cephbench diagnose``: inject a known fault, check that the
diagnosis names it. Each fault is recorded in the lab's state *before* it is applied,
checked after (the cgroup files and qdiscs are read back), and undone completely by
:func:`clear` and by ``lab down``: cgroups removed once their processes are moved back,
the lab's own link rate restored. ``lab restart-osd`` re-applies an OSD's faults to the
new process (:func:`follow`).

Use::

    fault = inject(info, "slow-disk", "osd.1", iops=150)
    ...
    clear(info)                  # or clear(info, "osd.1")

or ``with injected(info, "cpu", "osd.2", percent=15): ...``.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from pathlib import Path

from cephbench.errors import CephbenchError, UsageError
from cephbench.lab import cgroups, misconfig, net
from cephbench.lab.daemons import is_ours
from cephbench.lab.errors import LabError
from cephbench.lab.info import LabInfo
from cephbench.lab.paths import Layout
from cephbench.lab.spec import rate_bits
from cephbench.lab.state import Fault, FaultKind, LabState, load, locked, save
from cephbench.system.process import run

KINDS: tuple[FaultKind, ...] = (
    "slow-disk",
    "cpu",
    "slow-link",
    "debug-logging",
    "rbd-cache-off",
    "mclock",
    "too-few-pgs",
)
_CONTROLLER = {"slow-disk": "blkio", "cpu": "cpu"}


def osd_target(text: str) -> str:
    """ "osd.1" (or "1") as "osd.1"; a UsageError otherwise."""
    ident = text.strip().removeprefix("osd.")
    if not ident.isdigit():
        raise UsageError(f"not an OSD: {text!r} (examples: osd.1, 1)")
    return f"osd.{int(ident)}"


def host_target(text: str) -> str:
    """ "host2" (or "2") as "host2"; a UsageError otherwise."""
    ident = text.strip().removeprefix("host")
    if not ident.isdigit():
        raise UsageError(f"not a lab host: {text!r} (examples: host2, 2)")
    return f"host{int(ident)}"


def cgroup_name(lab_id: str, target: str) -> str:
    """The cgroup a fault on ``target`` creates in its controller's hierarchy."""
    return f"cephbench-{lab_id}-{target}"


def plan(
    state: LabState,
    kind: str,
    target: str,
    *,
    iops: int | None = None,
    bps: int | None = None,
    percent: float | None = None,
    rate: str | None = None,
) -> Fault:
    """The fault to record for this request, validated against the lab (pure)."""
    if kind not in KINDS:
        raise UsageError(f"unknown fault {kind!r}", hint=f"one of: {', '.join(KINDS)}")
    if kind == "slow-link":
        return _plan_link(state, host_target(target), rate)
    if kind in misconfig.PER_OSD:
        return misconfig.plan(state, kind, osd_target(target))
    if kind in misconfig.PER_POOL:
        return misconfig.plan(state, kind, pool=target)
    if kind in misconfig.KINDS:
        return misconfig.plan(state, kind)
    target = osd_target(target)
    if target not in state.daemons:
        raise UsageError(f"the lab has no {target} (it has {len(state.osds())} OSDs)")
    if any(f.kind == kind and f.target == target for f in state.faults):
        raise UsageError(
            f"{target} already has a {kind} fault", hint="clear it first: cephbench lab fault clear"
        )
    if kind == "slow-disk":
        if state.spec.store != "bluestore":
            raise UsageError("a slow disk needs BlueStore OSDs (this lab runs memstore, in RAM)")
        if iops is None and bps is None:
            raise UsageError("a slow disk needs a cap: --iops and/or --bps")
        for name, value in (("--iops", iops), ("--bps", bps)):
            if value is not None and value < 1:
                raise UsageError(f"{name} must be at least 1, got {value}")
        return Fault(kind="slow-disk", target=target, iops=iops, bps=bps)
    if percent is None or percent <= 0:
        raise UsageError("a CPU fault needs --percent above 0 (15 = 15 % of one core)")
    try:
        cgroups.quota_us(percent)
    except ValueError as e:
        raise UsageError(str(e)) from None
    return Fault(kind="cpu", target=target, percent=percent)


def _plan_link(state: LabState, target: str, rate: str | None) -> Fault:
    if state.spec.hosts < 2:
        raise UsageError(
            "a slow link needs a lab with several hosts; this one has a single host on loopback",
            hint="cephbench lab up --hosts 3",
        )
    host = int(target.removeprefix("host"))
    if host >= state.spec.hosts:
        raise UsageError(f"the lab has no {target} (host0 to host{state.spec.hosts - 1})")
    if rate is None:
        raise UsageError("a slow link needs --rate (e.g. 100mbit)")
    try:
        rate_bits(rate.strip().lower())
    except ValueError as e:
        raise UsageError(str(e)) from None
    if any(f.kind == "slow-link" and f.target == target for f in state.faults):
        raise UsageError(
            f"{target} already has a slow-link fault",
            hint="clear it first: cephbench lab fault clear",
        )
    links = [("", net.veth_name(state.lab_id, host)), (state.namespaces[host], "eth0")]
    return Fault(
        kind="slow-link",
        target=target,
        rate=rate.strip().lower(),
        links=links,
        restore_rate=state.spec.rate,
    )


def tc_replace_argv(netns: str, dev: str, rate: str | None) -> list[str]:
    """tc argv setting ``dev``'s root qdisc to a tbf at ``rate``; deleting it when None."""
    prefix = ["tc", *(["-n", netns] if netns else [])]
    if rate is None:
        return [*prefix, "qdisc", "del", "dev", dev, "root"]
    return [*prefix, "qdisc", "replace", "dev", dev, "root", *net.tbf_args(rate)]


def _dir(lab: LabInfo | Path | str) -> Layout:
    return Layout(Path(lab.dir if isinstance(lab, LabInfo) else lab).expanduser().absolute())


def inject(
    lab: LabInfo | Path | str,
    kind: str,
    target: str,
    *,
    iops: int | None = None,
    bps: int | None = None,
    percent: float | None = None,
    rate: str | None = None,
) -> Fault:
    """Inject one fault into the running lab and check it took; returns what was recorded."""
    layout = _dir(lab)
    with locked(layout) as state:
        if state.phase != "running":
            raise LabError(f"the lab in {layout.dir} is not running ({state.phase})")
        fault = plan(state, kind, target, iops=iops, bps=bps, percent=percent, rate=rate)
        fault.injected_at = time.time()
        try:
            _prepare(layout, state, fault)
            state.faults.append(fault)
            save(layout, state)  # recorded before anything changes on the machine
            _apply(layout, state, fault)
        except BaseException:
            if fault in state.faults:
                # if even the undo fails, the record stays: `lab fault clear` / `down` retry
                with contextlib.suppress(CephbenchError):
                    undo(fault)
                    state.faults.remove(fault)
                save(layout, state)
            raise
    return fault


@contextlib.contextmanager
def injected(
    lab: LabInfo | Path | str, kind: str, target: str, **params: object
) -> Iterator[Fault]:
    """The fault, for the length of a ``with`` block; cleared however the block ends."""
    fault = inject(lab, kind, target, **params)  # type: ignore[arg-type]
    try:
        yield fault
    finally:
        clear(lab, fault.target, fault.kind)


def _prepare(layout: Layout, state: LabState, fault: Fault) -> None:
    """Decide the cgroup paths and the device (reading only): what the record must name."""
    if fault.kind == "slow-link":
        return
    if fault.kind in misconfig.KINDS:
        return misconfig.prepare(layout, state, fault)
    controller = _CONTROLLER[fault.kind]
    daemon = state.daemons[fault.target]
    if not is_ours(daemon.pid, layout.conf):
        raise LabError(
            f"{fault.target} is not running",
            hint=f"start it: cephbench lab restart-osd {daemon.ident}",
        )
    root = cgroups.root_of(controller)
    here = cgroups.origin(daemon.pid or 0, controller)
    path = root / cgroup_name(state.lab_id, fault.target)
    if path.exists():
        raise LabError(
            f"cgroup {path} already exists (a leftover?)", hint=f"remove it: rmdir {path}"
        )
    fault.cgroups = {str(path): str(root / here.lstrip("/"))}
    if fault.kind == "slow-disk":
        fault.device = cgroups.device_of(_block_file(layout, fault.target))


def _block_file(layout: Layout, target: str) -> Path:
    """The file (or device) under an OSD's BlueStore: ``block`` in its data directory."""
    block = layout.data(target) / "block"
    if not block.exists():
        raise LabError(f"{target} has no BlueStore block file ({block} is missing)")
    return block.resolve()


def _apply(layout: Layout, state: LabState, fault: Fault) -> None:
    if fault.kind in misconfig.KINDS:
        return misconfig.apply(fault)
    if fault.kind == "slow-link":
        for netns, dev in fault.links:
            run(tc_replace_argv(netns, dev, fault.rate), check=True, timeout=30)
        _check_link(fault)
        return
    [(path_text, _)] = fault.cgroups.items()
    path = Path(path_text)
    cgroups.create(path)
    if fault.kind == "slow-disk":
        assert fault.device is not None
        values = cgroups.throttle_values(fault.device, fault.iops, fault.bps)
    else:
        period = int((path / "cpu.cfs_period_us").read_text())
        values = {"cpu.cfs_quota_us": str(cgroups.quota_us(fault.percent or 0, period))}
    for name, value in values.items():
        cgroups.write(path / name, value)
    pid = state.daemons[fault.target].pid or 0
    cgroups.move(pid, path)
    for name, value in values.items():
        if value not in cgroups.read_lines(path / name):
            raise LabError(f"{path / name} does not hold {value!r} after writing it")
    if pid not in cgroups.procs(path):
        raise LabError(f"{fault.target} (pid {pid}) is not in {path} after moving it there")


def _qdisc(netns: str, dev: str) -> dict:
    argv = ["tc", *(["-n", netns] if netns else []), "-j", "qdisc", "show", "dev", dev]
    shown = json.loads(run(argv, check=True, timeout=30).stdout or "[]")
    return next((q for q in shown if q.get("root")), {})


def _check_link(fault: Fault) -> None:
    want = rate_bits(fault.rate or "") // 8
    for netns, dev in fault.links:
        q = _qdisc(netns, dev)
        got = q.get("options", {}).get("rate")
        if q.get("kind") != "tbf" or got is None or abs(got - want) > want * 0.01:
            raise LabError(f"{dev} has no tbf at {fault.rate} after setting it (tc shows {q})")


def active(layout: Layout, state: LabState, fault: Fault) -> bool:
    """True if the fault is in force: its cgroup holds the daemon, or tc shows its rate."""
    if fault.kind in misconfig.KINDS:
        return misconfig.active(fault)
    if fault.kind == "slow-link":
        try:
            _check_link(fault)
        except LabError:
            return False
        return True
    pid = state.daemons[fault.target].pid
    return all(pid in cgroups.procs(Path(p)) for p in fault.cgroups) and is_ours(pid, layout.conf)


def undo(fault: Fault) -> None:
    """Undo what the fault changed; idempotent, tolerates half-made faults and gone links."""
    if fault.kind in misconfig.KINDS:
        return misconfig.undo(fault)
    for path, back_to in fault.cgroups.items():
        cgroups.remove(Path(path), Path(back_to))
    for netns, dev in fault.links:
        if (netns and not net.netns_exists(netns)) or (not netns and not net.link_exists(dev)):
            continue
        result = run(tc_replace_argv(netns, dev, fault.restore_rate), timeout=30)
        if result.returncode != 0 and fault.restore_rate is not None:
            raise LabError(f"cannot restore the rate of {dev}: {result.last_error_line()}")


def list_faults(lab: LabInfo | Path | str) -> list[Fault]:
    """The faults recorded in the lab (empty when there is no lab)."""
    state = load(_dir(lab))
    return list(state.faults) if state else []


def clear(
    lab: LabInfo | Path | str, target: str | None = None, kind: str | None = None
) -> list[Fault]:
    """Undo the lab's faults (those on ``target`` / of ``kind`` only if given); the cleared."""
    layout = _dir(lab)
    if load(layout) is None:
        return []
    with locked(layout) as state:
        return clear_state(layout, state, target, kind)


def clear_state(
    layout: Layout, state: LabState, target: str | None = None, kind: str | None = None
) -> list[Fault]:
    """:func:`clear` on a state the caller holds (``lab down``); saves it after each fault."""
    wanted = [
        f
        for f in state.faults
        if (target is None or f.target == _normal(target)) and (kind is None or f.kind == kind)
    ]
    for fault in wanted:
        undo(fault)
        state.faults.remove(fault)
        save(layout, state)
    return wanted


def _normal(target: str) -> str:
    target = target.strip()
    if target == "cluster" or target.startswith(misconfig.POOL):
        return target
    return host_target(target) if target.startswith("host") else osd_target(target)


def follow(layout: Layout, name: str, pid: int) -> list[Fault]:
    """Re-apply ``name``'s cgroup faults to its new process ``pid`` (after a restart)."""
    state = load(layout)
    moved = []
    for fault in state.faults if state else []:
        if fault.target == name and fault.cgroups:
            for path in fault.cgroups:
                cgroups.move(pid, Path(path))
                if pid not in cgroups.procs(Path(path)):
                    raise LabError(f"{name} (pid {pid}) did not go back into {path}")
            moved.append(fault)
    return moved


def leftovers(faults: list[Fault]) -> list[str]:
    """Cgroups of these faults that still exist (``lab down`` proves there are none)."""
    return [f"cgroup {p}" for f in faults for p in f.cgroups if Path(p).exists()]


def entry(fault: Fault, in_force: bool | None = None) -> dict:
    """A fault as a dict for ``lab status`` and ``lab fault list`` (pure): the record, a
    one-line ``summary`` and ``active`` (None when not checked)."""
    return {
        **fault.model_dump(mode="json", exclude={"cgroups", "links", "restore_rate", "ceph"}),
        "summary": fault.describe(),
        "active": in_force,
        "cgroups": sorted(fault.cgroups),
        "links": [f"{ns}:{dev}" if ns else dev for ns, dev in fault.links],
    }


def entries(lab: LabInfo | Path | str) -> list[dict]:
    """The recorded faults as :func:`entry` dicts, ``active`` checked on the machine now."""
    layout = _dir(lab)
    state = load(layout)
    out = []
    for fault in state.faults if state else []:
        try:
            in_force = active(layout, state, fault)  # type: ignore[arg-type]
        except CephbenchError:
            in_force = False
        out.append(entry(fault, in_force))
    return out
