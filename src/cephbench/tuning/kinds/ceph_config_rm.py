"""``ceph config rm WHO KEY``: the section's own entry removed, so it gets the option from a
broader section (or the default). The same setting as ``ceph config set``'s, which makes,
checks and restores it (a change's value None is the removal)."""

from __future__ import annotations

import shlex

from cephbench.tuning.changes import Change, bad, option_key
from cephbench.tuning.kinds.ceph_config import CephConfig, who_of
from cephbench.tuning.setting import Fields


class CephConfigRm(CephConfig):
    form = "ceph config rm WHO KEY"
    same_setting_as = "config"

    @classmethod
    def parse(cls, words: list[str], text: str) -> Fields | None:
        if words[:3] != ["ceph", "config", "rm"]:
            return None
        if len(words) != 5:
            raise bad(text, "it needs WHO and KEY")
        return option_key(text, words[4]), None, who_of(text, words[3])

    @classmethod
    def describe(cls, change: Change) -> str:
        return shlex.join(["ceph", "config", "rm", change.target, change.key])
