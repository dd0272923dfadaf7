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


def test_a_read_made_in_the_first_batch_is_not_asked_again():
    s, asked = session(), []

    def ceph_many(*commands):
        asked.append(commands)
        return [(f"step {' '.join(c)}", {"of": c}) for c in commands]

    s.ceph_many = ceph_many  # type: ignore[method-assign]
    s.early = {("fs", "dump"): ("step fs dump", {"early": True}), ("status",): None}
    got = s.read(("fs", "dump"), ("status",), ("osd", "perf"))
    assert got[0] == (None, {"early": True})  # recorded with the first batch: no step
    assert got[1] == ("step status", {"of": ("status",)})  # not made early: asked now
    assert got[2] == ("step osd perf", {"of": ("osd", "perf")})
    assert asked == [(("status",), ("osd", "perf"))]  # the rest at once, in one batch
    assert s.read(("fs", "dump"))[0][0] == "step fs dump"  # taken once; then asked again
