"""An interrupted run keeps only the groups that ran to their end (the real runs: Ctrl-C,
SIGTERM and SIGKILL, in tests/fio/test_interrupt.py)."""

from __future__ import annotations

from cephbench.planning.plan import make_plan
from cephbench.tools.fio.parse import parse
from cephbench.tools.fio.steps import _finished
from cephbench.tools.plan import Overrides
from tests.helpers import FIO_DATA


def test_only_groups_that_ran_to_their_end_are_kept():
    """fio's own report of a run stopped by SIGINT 3 s into four 1 s groups."""
    jobs = parse((FIO_DATA / "groups4_interrupted.json").read_text())
    plan = make_plan(str(FIO_DATA / "groups4.fio"), Overrides())
    assert [j.name for j in _finished(jobs, plan.jobfile)] == ["seq_wr", "seq_rd"]
