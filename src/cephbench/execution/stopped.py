"""What a run stopped by Ctrl-C (or SIGTERM) says: the stage it was in, what it kept, what it
removed and what it could not.

Without it a user read ``Interrupted: interrupted`` and then an empty ``show``. The runner
marks each stage as it enters it (:class:`Stage`), its resource log remembers what this
process set up and undid (:class:`TrackedLog`), and the schedule knows which workload was
running; :func:`stopped` turns them into the message the CLI prints and the reason the run is
stored with (what ``show`` prints for an aborted run).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cephbench.errors import CephbenchError, Interrupted
from cephbench.store import ResourceLog
from cephbench.system.process import ProcessInterrupted

if TYPE_CHECKING:
    from cephbench.store import Store
    from cephbench.tools.schedule import Schedule

WORKLOADS = "running the workloads"
"""The stage whose words come from the schedule: which workload of how many was running."""


class TrackedLog(ResourceLog):
    """A run's resource log that also remembers, in order, what this process set up and what
    it undid: what a stopped run says it removed and left."""

    def __init__(self, store: Store, run_id: int | None):
        super().__init__(store, run_id)
        self.made: dict[int, str] = {}
        """Resource id -> "kind name", in the order they were recorded."""
        self.undone: set[int] = set()

    def add(self, kind: str, name: str, detail: dict | None = None) -> int:
        rid = super().add(kind, name, detail)
        self.made[rid] = f"{kind.replace('_', ' ')} {name}"
        return rid

    def removed(self, resource_id: int) -> None:
        super().removed(resource_id)
        self.undone.add(resource_id)

    def left(self) -> list[str]:
        return [what for rid, what in self.made.items() if rid not in self.undone]

    def gone(self) -> list[str]:
        return [what for rid, what in self.made.items() if rid in self.undone]


@dataclass
class Stage:
    """The stage a run is in, as a Ctrl-C message names it ("preparing the target")."""

    log: TrackedLog
    name: str = "starting"
    made_before: int = 0
    """How many resources were recorded when the stage began (what it set up comes after)."""

    def now(self, name: str) -> None:
        self.name, self.made_before = name, len(self.log.made)

    def words(self, schedule: Schedule, cause: BaseException | None) -> str:
        """How the stage reads after "stopped": "while preparing the target (setting up rbd
        image p/i: fio prefill was running)", "during workload 3 of 8 (rand_wr, repeat 1)"."""
        if self.name == WORKLOADS:
            return _workload(schedule)
        detail = _setting_up(list(self.log.made.values())[self.made_before :], cause)
        return f"while {self.name}" + (f" ({detail})" if detail else "")


def _workload(schedule: Schedule) -> str:
    """The first workload the schedule has no figures for: the one that was running."""
    names, total = schedule.names, len(schedule.names) * schedule.repeats
    for repeat in range(schedule.repeats):
        for name in schedule.pending(repeat):
            if name not in schedule.broken:
                index = repeat * len(names) + names.index(name) + 1
                again = f", repeat {repeat + 1}" if schedule.repeats > 1 else ""
                return f"during workload {index} of {total} ({name}{again})"
    return "during the workloads" if not names else "after the last workload"


def _setting_up(made: list[str], cause: BaseException | None) -> str:
    """What a stage was at: the last thing it set up, and the program that was running."""
    process = _process(cause)
    running = f"{process} was running" if process else ""
    if made:
        return f"setting up {made[-1]}" + (f": {running}" if running else "")
    return running


def _process(cause: BaseException | None) -> str | None:
    """The program a Ctrl-C stopped ("fio prefill": fio's job name, when it has one)."""
    while cause is not None and not isinstance(cause, ProcessInterrupted):
        cause = cause.__context__
    if cause is None or not cause.result.argv:
        return None
    argv = cause.result.argv
    job = next((a.split("=", 1)[1] for a in argv if a.startswith("--name=")), None)
    return Path(argv[0]).name + (f" {job}" if job else "")


class RunStopped(Interrupted):
    """A Ctrl-C once the run was stored: its message says what the run kept and removed."""


@dataclass(frozen=True)
class Stopped:
    """A run Ctrl-C stopped, once its clean-up ran: its stored reason, and the message."""

    run_id: int
    stage: str
    kept: int
    removed: list[str]
    left: list[str]
    failure: CephbenchError | None = None
    """What the clean-up raised, when it could not remove something."""

    @property
    def reason(self) -> str:
        """The run's stored status reason (what ``show`` prints when it has no figures)."""
        figures = f"{_figures(self.kept)} kept" if self.kept else "nothing finished, so no figures"
        left = self.not_removed()
        return f"aborted {self.stage}: interrupted; {figures}" + (
            f"; not removed: {left}" if left else ""
        )

    def not_removed(self) -> str | None:
        """What the clean-up left, with why when it failed; None when it left nothing."""
        why = self.failure.message if self.failure else ""
        left = ", ".join(self.left) + (f" ({why})" if self.left and why else "")
        return left or why or None

    def error(self) -> RunStopped:
        kept = (
            f"{_figures(self.kept)}, stored as run {self.run_id} (status aborted)"
            if self.kept
            else f"nothing finished, so no figures; run {self.run_id} is stored as aborted"
        )
        lines = [
            f"run {self.run_id} stopped {self.stage}.",
            f"Kept: {kept}.",
            f"Removed: {', '.join(self.removed) or 'nothing'}.",
        ]
        hint = None
        left = self.not_removed()
        if left:
            lines.append(f"Not removed: {left}.")
            hint = (self.failure.hint if self.failure else None) or (
                "`cephbench cleanup` removes what is left"
            )
        return RunStopped("\n  ".join(lines), hint=hint)


def _figures(n: int) -> str:
    return "1 workload's figures" if n == 1 else f"{n} workloads' figures"


def stopped(
    store: Store,
    run_id: int,
    stage: Stage,
    schedule: Schedule,
    cause: BaseException,
    failure: CephbenchError | None = None,
) -> Stopped:
    """What the run stopped by ``cause`` did, kept, removed and left (``failure``: the
    clean-up's error, when it could not remove everything)."""
    return Stopped(
        run_id,
        stage.words(schedule, cause),
        store.finished_workloads(run_id),
        stage.log.gone(),
        stage.log.left(),
        failure,
    )


def interrupt_of(e: BaseException) -> KeyboardInterrupt | None:
    """The Ctrl-C ``e`` came while handling (a clean-up step failing after it), if any."""
    cause: BaseException | None = e
    while cause is not None:
        if isinstance(cause, KeyboardInterrupt):
            return cause
        cause = cause.__context__
    return None


BEFORE = (
    "before the run began (while checking the tool, the target and the cluster); "
    "nothing was stored or set up"
)
"""A Ctrl-C before the run is stored: nothing to keep, nothing to remove."""
