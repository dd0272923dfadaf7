"""What a probe begins before the others run (``Probe.begin``: the network's ssh connections)
runs beside them, and ``Session.settle`` waits for it: the load starts with nothing of ours
running; an error there waits for the probe that uses what failed to get ready."""

from __future__ import annotations

import threading
from contextlib import ExitStack
from types import SimpleNamespace

from cephbench.diagnose.session import DiagnoseOptions, Session


def session() -> Session:
    return Session(SimpleNamespace(), DiagnoseOptions(quick=True), ExitStack())  # type: ignore[arg-type]


def test_settle_waits_for_what_was_begun():
    s, go, done = session(), threading.Event(), []

    def slow() -> None:
        go.wait(5)
        done.append(True)

    s.background(slow)
    assert not done
    threading.Timer(0.2, go.set).start()
    s.settle()
    assert done == [True]
    s.settle()  # nothing left: returns at once


def test_an_error_in_the_background_is_not_raised_by_settle():
    s = session()

    def fails() -> None:
        raise OSError("host unreachable")

    s.background(fails)
    s.settle()  # the probe that needs it meets the error itself
