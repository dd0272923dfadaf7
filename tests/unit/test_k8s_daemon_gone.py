"""A Kubernetes daemon of the lab counts as dead only when it is not seen twice, half a second
apart: CI saw the kubelet "die" during ``lab up --k8s`` while it ran on, its node Ready."""

from __future__ import annotations

from pathlib import Path

from cephbench.lab import k8s
from cephbench.lab.k8s_conf import K8sLayout


def test_a_daemon_seen_again_is_not_gone(monkeypatch):
    looks = iter([False, True])
    monkeypatch.setattr(k8s, "is_ours", lambda pid, kl: next(looks))
    monkeypatch.setattr(k8s, "RECHECK", 0.0)
    assert k8s._gone(1234, K8sLayout(Path("/nowhere"))) is False


def test_a_daemon_not_seen_twice_is_gone(monkeypatch):
    monkeypatch.setattr(k8s, "is_ours", lambda pid, kl: False)
    monkeypatch.setattr(k8s, "RECHECK", 0.0)
    assert k8s._gone(1234, K8sLayout(Path("/nowhere"))) is True
