"""The kinds of setting an A/B experiment can change, registered like plugins: a kind's name
(a change's ``kind`` in the stored JSON) mapped to its :class:`~cephbench.tuning.setting.Setting`
subclass as ``module:Class``, imported only when used (``cephbench.registry``).

Each kind declares the undo functions of what it changes (``undo``), so ``cephbench cleanup``
finds them through this registry."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cephbench.registry import Registry

if TYPE_CHECKING:
    from cephbench.tuning.setting import Setting

BUILTIN_SETTINGS: dict[str, str] = {
    "config": "cephbench.tuning.kinds.ceph_config:CephConfig",
    "config_rm": "cephbench.tuning.kinds.ceph_config_rm:CephConfigRm",
    "pool": "cephbench.tuning.kinds.pool:PoolSetting",
    "sysctl": "cephbench.tuning.kinds.sysctl:Sysctl",
    "conf_set": "cephbench.tuning.kinds.conf_set:ConfSet",
}
REGISTRY = Registry(BUILTIN_SETTINGS, group="cephbench.settings")


def kind(name: str) -> type[Setting]:
    """The class of the setting kind ``name``."""
    cls: type[Setting] = REGISTRY.load(name)
    return cls
