"""Running fio: build the argv, run it through the process helper (the output is parsed by
parse.py, a pure function). fio on files and devices is this machine's; fio with a Ceph
engine is that of the target's Ceph tools (``ceph/tools.py``: a release root has its own)."""

from __future__ import annotations

import signal
from collections.abc import Callable, Mapping
from pathlib import Path

from cephbench.ceph.tools import CephTools
from cephbench.system.process import ProcessResult, run, which

OUTPUT_FORMAT = "json+"  # json+ adds latency bins: exact percentiles when clones are merged


def fio_path() -> str:
    return which("fio")


def version(tools: CephTools | None = None) -> str:
    """``fio-3.33``, as fio prints it (``tools``' fio when they reach it)."""
    if tools is not None and tools.reaches("fio"):
        return tools.run("fio", "--version", timeout=30, check=True).stdout.strip()
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
    tools: CephTools | None = None,
) -> ProcessResult:
    """Run a job file's text with fio in ``workdir`` (its cwd, where the job file is written);
    ``tools``' fio when they reach it (a Ceph engine's target), else this machine's.

    Ctrl-C reaches fio as SIGINT so it still prints results; fio stops if cephbench dies.
    """
    path = workdir / "job.fio"
    path.write_text(text)
    reached = tools if tools is not None and tools.reaches("fio") else None
    try:
        if reached is not None:
            return reached.run(
                "fio",
                f"--output-format={OUTPUT_FORMAT}",
                path.name,
                cwd=str(workdir),
                env=env,
                on_tick=on_tick,
                timeout=timeout,
                interrupt_signal=signal.SIGINT,
                grace=15.0,
                die_with_parent=True,
            )
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
