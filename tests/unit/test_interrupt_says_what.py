"""Ctrl-C says what it stopped and what was kept (issue 25, item 9): the stage (preparing the
target, workload i of n, cleaning up), the figures kept as which run, what the clean-up
removed and what it could not; the aborted run's stored reason says the same, and `show`
prints it. Through the real runner with a stand-in tool and target; a real fio run stopped
by a real SIGINT: tests/fio/test_interrupt_says_what.py."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

from cephbench import tools
from cephbench.errors import Interrupted, TargetError
from cephbench.execution.runner import execute, run_request
from cephbench.execution.stopped import BEFORE
from cephbench.model import WorkloadOutcome
from cephbench.store import ResourceLog, Store
from cephbench.system.process import ProcessInterrupted, ProcessResult
from cephbench.targets import FioTarget, Target, TargetOptions
from cephbench.tools.base import RunContext, Step, Tool
from cephbench.tools.plan import PlannedWorkload, ToolPlan
from tests.helpers import result

NAMES = ("a", "b", "c")


@pytest.fixture(autouse=True)
def ctrl_c_raises():
    """SIGINT raises KeyboardInterrupt here, as `cephbench`'s main makes it (a test run in
    the background inherits SIGINT ignored)."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


class StandIn(Tool):
    """A tool whose steps are the test's; no program runs."""

    name = "stand-in"
    target_kinds = ("stand-in",)

    def __init__(self, steps: Callable[[RunContext], Iterator[Step]]):
        self.script = steps

    def versions(self, tools=None) -> dict[str, str]:
        return {}

    def steps(self, ctx: RunContext) -> Iterator[Step]:
        yield from self.script(ctx)


def undone(log: ResourceLog, rid: int) -> None:
    log.removed(rid)


class Place(Target):
    """A target that records one thing it sets up (``kind name``), runs ``during`` while
    setting up, and undoes it after with ``undo``."""

    kind = "stand-in"

    def __init__(self, made=("file", "/bench/data"), during=None, undo=undone):
        super().__init__("here", TargetOptions())
        self.made, self.during, self.undo = made, during, undo

    def check(self, size: int) -> None:
        pass

    @contextmanager
    def session(self, run_id: int, resources: ResourceLog) -> Iterator[FioTarget]:
        rid = resources.add(*self.made)
        try:
            if self.during:
                self.during()
            yield FioTarget({})
        finally:
            self.undo(resources, rid)


def ok(name: str, repeat: int = 0) -> WorkloadOutcome:
    return WorkloadOutcome(name, (result(name, "read", 4096, repeat, 1000.0, 100.0),))


@pytest.fixture
def use(monkeypatch):
    """Make ``tools.get`` return the given tool (the runner finds tools through it)."""
    return lambda tool: monkeypatch.setattr(tools, "get", lambda name: tool)


def _run(db, use, steps, target: Place | None = None, repeats: int = 1) -> Interrupted:
    """Run the stand-in tool; the Interrupted it ends with."""
    tool = StandIn(steps)
    use(tool)
    plan = ToolPlan("stand", tool.name, "stand-in:here", [PlannedWorkload(n, 1.0) for n in NAMES])
    with Store(db) as store, pytest.raises(Interrupted) as stopped:
        execute(store, plan, target or Place(), repeats=repeats)
    return stopped.value


def _stored(db) -> tuple[str, str | None, int]:
    with Store(db) as s:
        run = s.get_run("last")
        return run.status, run.error, len(run.results)


def test_ctrl_c_while_preparing_the_target_names_what_it_was_setting_up(db, use):
    def prefill():
        argv = ("/usr/bin/fio", "--name=prefill", "--rbdname=cb-1-img")
        raise ProcessInterrupted(ProcessResult(argv, -2, "", "", 0.5))

    stopped = _run(db, use, lambda ctx: iter(()), Place(("rbd_image", "cb-1/cb-1-img"), prefill))
    lines = stopped.message.splitlines()
    stage = (
        "while preparing the target (setting up rbd image cb-1/cb-1-img: fio prefill was running)"
    )
    assert lines[0] == f"run 1 stopped {stage}."
    assert lines[1] == "  Kept: nothing finished, so no figures; run 1 is stored as aborted."
    assert lines[2].startswith("  Removed: dir ") and lines[2].endswith(
        ", rbd image cb-1/cb-1-img."
    )
    assert len(lines) == 3 and stopped.hint is None  # nothing was left
    assert _stored(db) == (
        "aborted",
        f"aborted {stage}: interrupted; nothing finished, so no figures",
        0,
    )


def test_ctrl_c_during_a_workload_says_which_of_how_many_and_what_was_kept(db, use):
    def steps(ctx):
        yield Step(0, None, [ok("a")])
        yield Step(0, None, [ok("b")])
        yield Step(0, None, [ok("c")])
        yield Step(1, None, [], interrupted=True)  # Ctrl-C while fio ran a, repeat 2

    stopped = _run(db, use, steps, repeats=2)
    lines = stopped.message.splitlines()
    assert lines[0] == "run 1 stopped during workload 4 of 6 (a, repeat 2)."
    assert lines[1] == "  Kept: 3 workloads' figures, stored as run 1 (status aborted)."
    assert lines[2].endswith(", file /bench/data.")
    assert _stored(db) == (
        "aborted",
        "aborted during workload 4 of 6 (a, repeat 2): interrupted; 3 workloads' figures kept",
        3,
    )


def test_a_failed_workload_is_not_the_one_that_was_running(db, use):
    def steps(ctx):
        yield Step(0, None, [ok("a"), WorkloadOutcome("b", error="fio failed")])
        yield Step(0, None, [], interrupted=True)

    stopped = _run(db, use, steps)
    assert stopped.message.startswith("run 1 stopped during workload 3 of 3 (c).\n")
    assert "Kept: 1 workload's figures, stored as run 1" in stopped.message


def test_ctrl_c_while_cleaning_up_says_so_and_keeps_every_workload(db, use):
    def steps(ctx):
        yield Step(0, None, [ok(n) for n in NAMES])

    def ctrl_c_then_undo(log, rid):  # the clean-up runs to its end; the Ctrl-C comes after
        os.kill(os.getpid(), signal.SIGINT)
        log.removed(rid)

    stopped = _run(db, use, steps, Place(("file", "/f"), undo=ctrl_c_then_undo))
    lines = stopped.message.splitlines()
    assert lines[0] == "run 1 stopped while cleaning up."
    assert lines[1] == "  Kept: 3 workloads' figures, stored as run 1 (status aborted)."
    assert lines[2].endswith(", file /f.")
    assert _stored(db)[1] == "aborted while cleaning up: interrupted; 3 workloads' figures kept"


def test_what_the_clean_up_could_not_remove_is_named_with_cleanup(db, use):
    def cannot(log, rid):
        raise TargetError("rbd rm cb-1/img failed: device busy")

    def steps(ctx):
        yield Step(0, None, [], interrupted=True)

    stopped = _run(db, use, steps, Place(("rbd_image", "cb-1/img"), undo=cannot))
    lines = stopped.message.splitlines()
    assert lines[0] == "run 1 stopped during workload 1 of 3 (a)."
    assert lines[-1] == "  Not removed: rbd image cb-1/img (rbd rm cb-1/img failed: device busy)."
    assert stopped.hint == "`cephbench cleanup` removes what is left"
    with Store(db) as s:
        assert [r.name for r in s.open_resources()] == ["cb-1/img"]
        run = s.get_run("last")
    assert run.status == "aborted"
    assert run.error == (
        "aborted during workload 1 of 3 (a): interrupted; nothing finished, so no figures; "
        "not removed: rbd image cb-1/img (rbd rm cb-1/img failed: device busy)"
    )


def test_ctrl_c_before_the_run_began_says_nothing_was_stored(db):
    class Resolving:  # a run request stopped while it is resolved (a lab looked up...)
        def resolve(self, resume, note):
            raise KeyboardInterrupt

    with Store(db) as store, pytest.raises(Interrupted) as stopped:
        run_request(store, Resolving())  # type: ignore[arg-type]
    with Store(db) as store:
        assert store.runs() == []
    assert stopped.value.message == BEFORE
    assert "nothing was stored or set up" in BEFORE


def test_show_of_an_aborted_run_says_why_it_is_empty_or_short(invoke, db):
    reason = "aborted during workload 1 of 4 (seq_wr): interrupted; nothing finished, so no figures"
    with Store(db) as s:
        empty = s.start_run(label=None, suite="quick", target="file:/x", environment={}, params={})
        s.finish_run(empty, "aborted", reason)
    out = invoke("show", str(empty), "--format", "md").stdout
    assert f"No results: {reason}" in out

    with Store(db) as s:
        short = s.start_run(label=None, suite="quick", target="file:/x", environment={}, params={})
        s.record_batch(short, 0, None, [ok("seq_wr")])
        s.finish_run(short, "aborted", "aborted during workload 2 of 4 (seq_rd): interrupted; ...")
    shown = invoke("show", str(short))
    assert "No results" not in shown.stdout
    assert f"Run {short} aborted during workload 2 of 4 (seq_rd)" in shown.stderr


@pytest.mark.parametrize("tool, suite", [("osd-bench", "osd"), ("iperf3", "network")])
def test_show_of_an_empty_aborted_run_of_a_tool_with_its_own_table_says_why(
    invoke, db, tool, suite
):
    reason = "aborted during workload 1 of 3 (osd.0): interrupted; nothing finished, so no figures"
    with Store(db) as s:
        empty = s.start_run(
            label=None, suite=suite, target="ceph:cluster", environment={}, params={"tool": tool}
        )
        s.finish_run(empty, "aborted", reason)
    shown = invoke("show", str(empty))
    assert f"No results: {reason}" in shown.stdout + shown.stderr
    assert (shown.stdout + shown.stderr).count("No results:") == 1
