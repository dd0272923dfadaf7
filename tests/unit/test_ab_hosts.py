"""`cephbench ab` pieces that need no lab: how hosts' sysctl values are shown and checked,
and a killed experiment marked aborted by the next command, as runs are."""

from __future__ import annotations

from pathlib import Path

import pytest

from cephbench.errors import CephbenchError
from cephbench.store import Store, experiments
from cephbench.tuning.host_sysctl import proc_path, shown
from cephbench.tuning.kinds.sysctl import check_hosts, sysctl_value_error
from tests.helpers import invoke


def test_hosts_values_are_one_value_when_they_agree_else_each_hosts():
    assert shown({"h1": "4096\t87380\t6291456", "h2": "4096 87380 6291456"}) == (
        "4096 87380 6291456"
    )
    assert shown({"h1": "4096", "h2": "128"}) == "h1: 4096; h2: 128"


def test_a_sysctl_of_n_integers_takes_n_integers():
    assert sysctl_value_error("net.ipv4.tcp_rmem", "4096\t87380\t6291456", "1 2 3") is None
    assert "takes 3 integer(s), like '4096 87380 6291456'" in str(
        sysctl_value_error("net.ipv4.tcp_rmem", "4096\t87380\t6291456", "4096 87380")
    )
    assert sysctl_value_error("net.core.somaxconn", "4096", "lots") is not None
    assert sysctl_value_error("kernel.hostname", "host0", "other") is None  # not numeric


def test_a_host_showing_another_value_is_named():
    check_hosts("k", {"h1": "1\t2", "h2": "3"}, {"h1": "1 2", "h2": "3"})
    with pytest.raises(CephbenchError, match=r"sysctl k is not as cephbench set it: h2 shows '4'"):
        check_hosts("k", {"h1": "1", "h2": "4"}, {"h1": "1", "h2": "3"})
    assert proc_path("net.core.somaxconn") == "/proc/sys/net/core/somaxconn"


def test_an_experiment_whose_process_died_is_marked_aborted_by_the_next_command(db: Path):
    with Store(db) as store:
        exp_id = experiments.start(store, "quick", {})
        with store.transaction():  # as a SIGKILLed `cephbench ab` leaves it: a dead pid
            store.conn.execute("UPDATE ab_experiments SET pid = 2147483646 WHERE id = ?", (exp_id,))
        store.add_resource(
            None, "ab_setting", "config client rbd_cache", {"owner": {"experiment": exp_id}}
        )
    out = invoke("runs", db=db)
    assert (
        f"A/B experiment {exp_id} was interrupted; marked aborted; `cephbench cleanup` puts "
        in out.output
    )
    with Store(db) as store:
        exp = experiments.get(store, exp_id)
    assert exp.status == "aborted" and exp.error == "the process running it stopped unexpectedly"
    assert "A/B experiment" not in invoke("runs", db=db).output  # said once


def test_a_running_experiment_is_left_running(db: Path):
    with Store(db) as store:
        exp_id = experiments.start(store, "quick", {})  # this process: alive
    invoke("runs", db=db)
    with Store(db) as store:
        assert experiments.get(store, exp_id).status == "running"
