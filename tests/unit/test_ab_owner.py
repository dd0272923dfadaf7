"""cleanup leaves a change alone while the experiment that recorded it still runs."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from cephbench.errors import CephbenchError
from cephbench.tuning.owner import owner, owner_running, refuse_while_running


def _detail(pid: int, host: str | None = None) -> dict:
    return {"owner": {"experiment": 7, "pid": pid, "host": host or socket.gethostname()}}


def test_a_live_experiment_on_this_host_is_refused_by_name():
    detail = _detail(os.getppid())  # pytest's parent: alive, and not us
    assert owner_running(detail)
    with pytest.raises(CephbenchError, match=rf"experiment 7 \(pid {os.getppid()}\) is still"):
        refuse_while_running(detail)


def test_gone_foreign_or_own_owners_do_not_block_cleanup():
    gone = int(Path("/proc/sys/kernel/pid_max").read_text()) + 1  # no process can have it
    for detail in (
        _detail(gone),
        _detail(os.getppid(), host="some-other-host"),
        {"owner": owner(7)},  # this process: the experiment cleaning up after itself
        {},
    ):
        assert not owner_running(detail)
        refuse_while_running(detail)
