"""A run whose fio runs in pods does not need this machine's fio: its version is kept when
this machine has one, and a machine without fio runs such a run all the same."""

from __future__ import annotations

import pytest

from cephbench import tools
from cephbench.errors import ToolMissing
from cephbench.execution.runner import this_machines_versions
from cephbench.targets import TargetOptions
from cephbench.targets.pvc import PvcTarget
from cephbench.tools.fio import command


def test_a_pod_targets_tool_runs_elsewhere():
    assert PvcTarget("cephbench-lab", TargetOptions()).tool_elsewhere


def test_this_machines_fio_is_kept_when_there_and_not_needed_when_not(monkeypatch):
    fio, target = tools.get("fio"), PvcTarget("cephbench-lab", TargetOptions())
    found = this_machines_versions(fio, target)
    assert found["fio"].startswith("fio-")  # this machine's, as fio prints it

    def missing() -> str:
        raise ToolMissing("fio is not installed")

    monkeypatch.setattr(command, "fio_path", missing)
    assert this_machines_versions(fio, target) == {}
    with pytest.raises(ToolMissing):  # a run of fio here still says so
        fio.versions(None)
