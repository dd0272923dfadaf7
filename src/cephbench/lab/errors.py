"""The lab's own failures: CephbenchErrors, so the CLI shows one line and a hint."""

from __future__ import annotations

from cephbench.errors import CephbenchError


class LabError(CephbenchError):
    """The lab cannot do what was asked: a clash, leftovers, a daemon that died...

    ``log_lines`` are the last lines of the failing daemon's log, the lines that say why.
    """

    def __init__(self, message: str, hint: str | None = None, log_lines: tuple[str, ...] = ()):
        super().__init__(message, hint)
        self.log_lines = tuple(log_lines)
