"""Ctrl-C (a real SIGINT to this process) in a shielded block: an exception leaving the block
wins, and the whole clean-up runs (with child processes: tests/fio/test_shield.py)."""

from __future__ import annotations

import os
import signal

import pytest

from cephbench.errors import Interrupted
from cephbench.resources.shield import deferred_interrupts, recorded, shielded_exit
from cephbench.store import ResourceLog, Store


@pytest.fixture(autouse=True)
def ctrl_c_raises():
    """SIGINT raises KeyboardInterrupt here, as `cephbench`'s main makes it: a test run
    started in the background (``make test &``, nohup) inherits SIGINT ignored, and Python
    then leaves it ignored."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def test_an_exception_leaving_the_block_wins_over_a_held_ctrl_c():
    with pytest.raises(ValueError), deferred_interrupts():
        os.kill(os.getpid(), signal.SIGINT)
        raise ValueError("boom")


def test_shielded_exit_runs_the_whole_cleanup():
    steps = []

    class Cleanup:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            os.kill(os.getpid(), signal.SIGINT)
            steps.append("cleaned")

    with pytest.raises(Interrupted), shielded_exit(Cleanup()):
        steps.append("body")
    assert steps == ["body", "cleaned"]


class CtrlCWhileRecording(ResourceLog):
    """A Ctrl-C that comes while the record is written (its commit, an fsync), as an A/B
    experiment's did once in CI: the record stayed open with nothing left to undo it."""

    def add(self, kind: str, name: str, detail: dict | None = None) -> int:
        rid = super().add(kind, name, detail)
        os.kill(os.getpid(), signal.SIGINT)  # raised here, after the commit, when unshielded
        return rid


def _open(store: Store) -> list[str]:
    return [r.name for r in store.open_resources()]


def test_a_ctrl_c_while_a_record_is_written_leaves_it_closed(tmp_path):
    store = Store(tmp_path / "cb.db")
    body = []
    with pytest.raises(Interrupted), recorded(CtrlCWhileRecording(store, None), "file", "/x"):
        body.append("ran")  # the interrupt waits for the block to be armed, then stops it
    assert body == [] and _open(store) == []


def test_a_recorded_block_ends_with_its_record_closed(tmp_path):
    store = Store(tmp_path / "cb.db")
    with recorded(ResourceLog(store, None), "file", "/x") as rid:
        assert _open(store) == ["/x"] and rid > 0
    assert _open(store) == []
