"""The remedies ``cephbench tune`` knows, registered like plugins: a name mapped to the
``module:attribute`` of its :class:`~cephbench.tuning.remedies.base.Remedy`, imported when
used; third-party packages add remedies through the ``cephbench.remedies`` entry-point group.

A remedy answers diagnose findings by their codes and makes its changes only in the setting
kinds of ``ab`` (:mod:`cephbench.tuning.settings`), on the keys it names: ``tune`` changes
nothing no remedy names (:meth:`Remedy.propose` refuses a change outside them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cephbench.registry import Registry

if TYPE_CHECKING:
    from cephbench.tuning.remedies.base import Remedy

REMEDIES: dict[str, str] = {
    "osd-debug-off": "cephbench.tuning.remedies.debug_off:REMEDY",
    "rbd-cache-on": "cephbench.tuning.remedies.rbd_cache:REMEDY",
    "pg-num-up": "cephbench.tuning.remedies.pg_num:REMEDY",
    "mclock-balanced": "cephbench.tuning.remedies.mclock_profile:REMEDY",
}
REGISTRY = Registry(REMEDIES, group="cephbench.remedies")


def remedies() -> dict[str, Remedy]:
    """Every registered remedy, by name, in registry order."""
    found: dict[str, Remedy] = REGISTRY.load_all()
    return found
