"""Running fio: build the argv, run it through the process helper (the output is parsed by
parse.py, a pure function)."""

from __future__ import annotations

import signal
from collections.abc import Callable, Mapping
from pathlib import Path

from cephbench.system.process import ProcessResult, run, which

OUTPUT_FORMAT = "json+"  # json+ adds latency bins: exact percentiles when clones are merged


def fio_path() -> str:
    return which("fio")


def version() -> str:
    """``fio-3.33``, as fio prints it."""
    return run([fio_path(), "--version"], timeout=10, check=True).stdout.strip()


def argv(jobfile_path: str) -> list[str]:
    return [fio_path(), f"--output-format={OUTPUT_FORMAT}", jobfile_path]


def run_jobfile(
    text: str,
    workdir: Path,
    *,
    env: Mapping[str, str] | None = None,
    on_tick: Callable[[float], None] | None = None,
    timeout: float | None = None,
) -> ProcessResult:
    """Run a job file's text with fio in ``workdir`` (its cwd, where the job file is written).

    Ctrl-C reaches fio as SIGINT so it still prints results; fio stops if cephbench dies.
    """
    path = workdir / "job.fio"
    path.write_text(text)
    try:
        return run(
            argv(path.name),
            env=env,
            cwd=str(workdir),
            on_tick=on_tick,
            timeout=timeout,
            interrupt_signal=signal.SIGINT,
            grace=15.0,
            die_with_parent=True,
        )
    finally:
        path.unlink(missing_ok=True)
