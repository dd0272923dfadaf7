"""What a running benchmark shows on the terminal (``run``, and each round of ``ab``): one
progress bar, and the notes the planner has for the user."""

from __future__ import annotations

from cephbench.cli.common import console_err


class RichProgress:
    """One bar for the whole run: current repeat and workload, elapsed, ETA. Silent off a TTY."""

    def __init__(self, repeats: int):
        from rich.progress import (
            BarColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.repeats = repeats
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console_err.get(),
            transient=True,
            disable=not console_err.is_terminal,
        )
        self.task = self.progress.add_task("starting fio", start=False)

    def start(self, total_seconds: float | None) -> None:
        self.progress.start()
        self.progress.update(self.task, total=total_seconds)
        self.progress.start_task(self.task)

    def update(self, repeat: int, workload: str, elapsed: float) -> None:
        rep = f"repeat {repeat + 1}/{self.repeats} " if self.repeats > 1 else ""
        self.progress.update(self.task, description=f"{rep}{workload}", completed=elapsed)

    def stop(self) -> None:
        self.progress.stop()


def print_note(text: str) -> None:
    """A note of the planner's, on stderr."""
    from rich.markup import escape

    console_err.print(f"[yellow]note:[/] {escape(text)}")
