"""Errors every layer raises, and the exit status each one maps to.

Only the CLI turns them into a message and an exit code; everything below it raises.
Every message says what is wrong; ``hint`` says what to do about it.
"""

from __future__ import annotations

from enum import IntEnum


class ExitStatus(IntEnum):
    """Process exit codes (httpie-style): scripts and CI can tell the failures apart."""

    OK = 0
    ERROR = 1
    USAGE = 2
    REGRESSION = 3
    INTERRUPTED = 130


class CephbenchError(Exception):
    """An expected failure: shown as one line (plus an optional hint), never as a traceback."""

    exit_status = ExitStatus.ERROR

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message


class UsageError(CephbenchError):
    """The command line or a configuration file asks for something invalid."""

    exit_status = ExitStatus.USAGE


class ToolMissing(CephbenchError):
    """An external program (fio, ceph, iperf3...) is not installed."""


class ToolFailed(CephbenchError):
    """An external program ran and failed."""


class AccessDenied(ToolFailed):
    """The cluster refused the client: its key, a keyring it cannot read, or its caps."""


class TargetError(CephbenchError):
    """The target cannot be used (not writable, too small, holds data, ...)."""


class StoreError(CephbenchError):
    """The result store cannot be opened or does not hold what was asked for."""


class ParseError(CephbenchError):
    """A tool's output could not be read."""


class Interrupted(KeyboardInterrupt):
    """The user pressed Ctrl-C (or the process got SIGTERM), with what was kept, in words
    (``hint``: what to do about what could not be removed).

    A KeyboardInterrupt, not a CephbenchError, on purpose: no ``except CephbenchError`` that
    tolerates a failed side task (a probe, a health sample) may swallow a Ctrl-C.
    """

    exit_status = ExitStatus.INTERRUPTED

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint
