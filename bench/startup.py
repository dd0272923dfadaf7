"""Start-up cost: `cephbench --help` and every `cephbench CMD --help` against a bare interpreter.

    .venv/bin/python bench/startup.py [--repeat 10] [--limit 3]

Each command line runs ``--repeat`` times; the table shows the median wall time, its ratio to
``python -c pass`` on the same interpreter (the one cephbench's console script uses), and the
peak RSS (GNU time). ``python -c 'import click'`` is shown for reference: the part of every
figure that is click's own. Exits 1 when any cephbench ratio exceeds ``--limit``: usable as a
check, but it is a benchmark (timings depend on the machine's load), not a test.

Children are started here with ``subprocess.Popen`` and waited for directly rather than
through ``cephbench.system.process.run``: that one waits by polling (steps of up to 50 ms),
which would swamp the tens of milliseconds being measured.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import click

from cephbench.cli import cli

ROOT = Path(__file__).resolve().parent.parent
CEPHBENCH = Path(sys.executable).with_name("cephbench")
TIME = "/usr/bin/time"
FLOOR = "python -c 'import click'"  # what any click program pays; shown for reference


def command_lines() -> list[list[str]]:
    """Every command and subcommand, from the registry, each as ``[CMD..., --help]``."""
    ctx = click.Context(cli)
    lines = [["--help"]]
    for name in cli.list_commands(ctx):
        lines.append([name, "--help"])
        command = cli.get_command(ctx, name)
        if isinstance(command, click.Group):
            sub_ctx = click.Context(command, parent=ctx, info_name=name)
            lines.extend([name, sub, "--help"] for sub in command.list_commands(sub_ctx))
    return lines


def measure(argv: list[str]) -> float:
    """Wall seconds of one run of ``argv``; a non-zero exit is an error."""
    with tempfile.TemporaryFile() as err:  # a file, not a pipe: nothing blocks the child
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err)
        proc.wait()
        seconds = time.perf_counter() - start
        if proc.returncode != 0:
            err.seek(0)
            message = err.read().decode(errors="replace").strip()
            raise SystemExit(f"{' '.join(argv)} exited {proc.returncode}: {message}")
    return seconds


def peak_rss_mib(argv: list[str]) -> float | None:
    """Peak RSS of one run of ``argv``, by GNU time (None without it).

    Not from this process's ``wait4``: a child's peak RSS starts at its parent's size, and this
    parent has imported the command registry.
    """
    if not Path(TIME).exists():
        return None
    with tempfile.NamedTemporaryFile("r") as out:
        subprocess.run([TIME, "-f", "%M", "-o", out.name, *argv], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True)
        return int(out.read().split()[-1]) / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10, help="runs per command line")
    parser.add_argument("--limit", type=float, default=3.0, help="largest ratio allowed")
    args = parser.parse_args()

    rows = [("python -c pass", [sys.executable, "-c", "pass"]),
            (FLOOR, [sys.executable, "-c", "import click"])]
    rows += [("cephbench " + " ".join(line), [str(CEPHBENCH), *line]) for line in command_lines()]
    rss = {label: peak_rss_mib(argv) for label, argv in rows}  # also warms the page cache
    # Interleaved rounds: a burst of load on the shared machine hits every line alike.
    seconds: dict[str, list[float]] = {label: [] for label, _ in rows}
    for _ in range(args.repeat):
        for label, argv in rows:
            seconds[label].append(measure(argv))

    base = statistics.median(seconds[rows[0][0]])
    width = max(len(label) for label, _ in rows)
    print(f"{'command':<{width}}  {'median ms':>9}  {'ratio':>6}  {'peak RSS MiB':>12}")
    worst = ("", 0.0)
    for label, _ in rows:
        median = statistics.median(seconds[label])
        ratio = median / base
        if label.startswith("cephbench") and ratio > worst[1]:
            worst = (label, ratio)
        mib = "n/a" if rss[label] is None else f"{rss[label]:.1f}"
        flag = "  > limit" if ratio > args.limit and label.startswith("cephbench") else ""
        print(f"{label:<{width}}  {median * 1000:9.1f}  {ratio:6.2f}  {mib:>12}{flag}")
    print(f"worst: {worst[0]} at {worst[1]:.2f}x (limit {args.limit:g}x, median of {args.repeat})")
    return 1 if worst[1] > args.limit else 0

if __name__ == "__main__":
    sys.exit(main())
