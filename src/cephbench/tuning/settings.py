"""The kinds of setting an A/B experiment can change, registered like plugins: a kind's name
mapped to ``module:Class``, imported only when used (``cephbench.registry``).

Each kind declares the undo functions of what it changes (``undo``), so ``cephbench cleanup``
finds them through this registry."""

from __future__ import annotations

from cephbench.registry import Registry

BUILTIN_SETTINGS: dict[str, str] = {
    "ceph-config": "cephbench.tuning.apply:Settings",
    "host-sysctl": "cephbench.tuning.host_sysctl:HostSysctls",
}
REGISTRY = Registry(BUILTIN_SETTINGS, group="cephbench.settings")
