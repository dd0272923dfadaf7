"""Setting kinds as registered classes (pure): each registered kind parses what it prints and
declares undo functions cleanup knows; a sysctl (under a stand-in /proc/sys) switched between
sides, restored, and a killed experiment's change put back by cleanup through the registry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cephbench.cli.cleanup import load_undo
from cephbench.resources import undo
from cephbench.store import ResourceLog, Store
from cephbench.tuning.apply import Settings
from cephbench.tuning.changes import Side, parse_change
from cephbench.tuning.kinds import sysctl
from cephbench.tuning.settings import REGISTRY, kind


def test_every_registered_kind_declares_undo_functions_cleanup_knows():
    load_undo()
    for name in REGISTRY:
        cls = kind(name)
        assert cls.undo and all(fn in undo.UNDO.values() for fn in cls.undo), name
        assert cls.form.split()[0] in ("ceph", "sysctl", "conf-set"), name


@pytest.fixture
def proc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proc"
    (root / "net/core").mkdir(parents=True)
    (root / "net/core/somaxconn").write_text("4096\n")
    monkeypatch.setattr(sysctl, "sysctl_path", lambda key: root / key.replace(".", "/"))
    return root / "net/core/somaxconn"


def test_a_sysctl_is_switched_restored_and_recorded_for_cleanup(tmp_path, proc):
    store = Store(tmp_path / "results.db")
    b = Side("B", (parse_change("sysctl -w net.core.somaxconn=1024"),))
    settings = Settings(None, ResourceLog(store, None), {}, None)
    settings.check((Side("A"), b))
    settings.switch(b)
    assert proc.read_text() == "1024\n"
    [resource] = store.open_resources()
    assert (resource.kind, resource.name) == ("ab_setting", "sysctl net.core.somaxconn")
    assert json.dumps(resource.detail) == json.dumps(
        {
            "family": "sysctl",
            "target": "",
            "key": "net.core.somaxconn",
            "type": "str",
            "original": {"value": "4096"},
            "conn": None,
            "lab_dir": None,
            "owner": {},
        }
    )
    settings.restore()
    assert proc.read_text() == "4096\n" and store.open_resources() == []
    assert settings.reverted == [
        {"setting": "sysctl net.core.somaxconn", "value": "4096", "verified": True}
    ]
    assert settings.applied_log() == [
        {"setting": "sysctl net.core.somaxconn", "original": "4096", "times_applied": 1}
    ]


def test_cleanup_puts_back_a_killed_experiments_sysctl(tmp_path, proc):
    store = Store(tmp_path / "results.db")
    b = Side("B", (parse_change("sysctl net.core.somaxconn=1024"),))
    settings = Settings(None, ResourceLog(store, None), {}, None)
    settings.check((Side("A"), b))
    settings.switch(b)  # and never restored: the experiment was killed
    load_undo()
    report = undo.cleanup(store)
    assert [(r.kind, r.name) for r in report.removed] == [
        ("ab_setting", "sysctl net.core.somaxconn")
    ]
    assert proc.read_text() == "4096\n" and not report.failed
