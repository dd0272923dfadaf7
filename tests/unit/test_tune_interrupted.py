"""A tune whose process died (SIGKILL, a crash) is marked aborted by the next command that
opens the store, as runs, A/B experiments and capacity searches are; it stayed ``running``
for ever before. A live one is left alone. (The settings its attempts changed are their
experiments' records: tests/unit/test_ab_hosts.py, tests/lab/test_ab_lab.py.)"""

from __future__ import annotations

from pathlib import Path

from cephbench.store import Store, tunings
from tests.helpers import invoke


def test_a_tune_whose_process_died_is_marked_aborted_by_the_next_command(db: Path):
    with Store(db) as store:
        tune_id = tunings.start(store)
        with store.transaction():  # as a SIGKILLed `cephbench tune` leaves it: a dead pid
            store.conn.execute("UPDATE tunings SET pid = 2147483646 WHERE id = ?", (tune_id,))
    assert f"tune {tune_id} was interrupted; marked aborted" in invoke("runs", db=db).output
    with Store(db) as store:
        tune = tunings.get(store, tune_id)
    assert tune.status == "aborted" and tune.error == "the process running it stopped unexpectedly"
    assert "was interrupted" not in invoke("runs", db=db).output  # said once


def test_a_running_tune_is_left_running(db: Path):
    with Store(db) as store:
        tune_id = tunings.start(store)  # this process: alive
    assert "was interrupted" not in invoke("runs", db=db).output
    with Store(db) as store:
        assert tunings.get(store, tune_id).status == "running"
