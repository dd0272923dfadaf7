"""Start-up cost: `cephbench --help` and every `cephbench CMD --help` against a bare interpreter.

    .venv/bin/python bench/startup.py [--repeat 10] [--limit 3] [--goal 2.5] [--only-run]

The last lines print the two ratios the start-up goal is about: ``cephbench run --help`` (the
command with the most options, some forty) and ``cephbench --help``, each against ``python3
-c pass``, and whether ``run --help`` is within ``--goal``. ``--only-run`` measures those two
lines (and the references) alone: quicker.

Each command line runs ``--repeat`` times; the table shows the median wall time and its ratio
to ``python -c pass`` on the same interpreter (the one cephbench's console script uses), the
median CPU time (user + system, less sensitive to the load of a shared machine) and its ratio,
and the peak RSS (GNU time). The help of a bare click command is shown for reference: the
part of every figure that is click's own. Exits 1 when any cephbench ratio (wall time) exceeds
``--limit``: usable as a check, but it is a benchmark (timings depend on the machine's load),
not a test.

Children are started here with ``subprocess.Popen`` and reaped with ``os.wait4`` rather than
through ``cephbench.system.process.run``: that one waits by polling (steps of up to 50 ms),
which would swamp the tens of milliseconds being measured.
"""

from __future__ import annotations

import argparse
import os
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
BARE = "python3 -c pass"
"""The reference every ratio is to: this interpreter (the console script's) doing nothing."""
# What any click program pays to show its help; shown for reference.
FLOOR = "click: a one-line command --help"
FLOOR_CODE = "import click; click.Command('x', help='Help.').main(['--help'])"


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


def measure(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one run of ``argv``; a non-zero exit is an error."""
    with tempfile.TemporaryFile() as err:  # a file, not a pipe: nothing blocks the child
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            message = err.read().decode(errors="replace").strip()
            raise SystemExit(f"{' '.join(argv)} exited {proc.returncode}: {message}")
    return seconds, usage.ru_utime + usage.ru_stime


def peak_rss_mib(argv: list[str]) -> float | None:
    """Peak RSS of one run of ``argv``, by GNU time (None without it).

    Not from this process's ``wait4``: a child's peak RSS starts at its parent's size, and this
    parent has imported the command registry.
    """
    if not Path(TIME).exists():
        return None
    with tempfile.NamedTemporaryFile("r") as out:
        subprocess.run(
            [TIME, "-f", "%M", "-o", out.name, *argv],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=True,
        )
        return int(out.read().split()[-1]) / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10, help="runs per command line")
    parser.add_argument("--limit", type=float, default=3.0, help="largest ratio allowed")
    parser.add_argument(
        "--goal", type=float, default=2.5, help="the goal for run --help's ratio (printed)"
    )
    parser.add_argument(
        "--only-run", action="store_true", help="measure `--help` and `run --help` alone"
    )
    args = parser.parse_args()

    rows = [
        (BARE, [sys.executable, "-c", "pass"]),
        (FLOOR, [sys.executable, "-c", FLOOR_CODE]),
    ]
    lines = [["--help"], ["run", "--help"]] if args.only_run else command_lines()
    rows += [("cephbench " + " ".join(line), [str(CEPHBENCH), *line]) for line in lines]
    rss = {label: peak_rss_mib(argv) for label, argv in rows}  # also warms the page cache
    # Interleaved rounds: a burst of load on the shared machine hits every line alike.
    samples: dict[str, list[tuple[float, float]]] = {label: [] for label, _ in rows}
    for _ in range(args.repeat):
        for label, argv in rows:
            samples[label].append(measure(argv))

    def medians(label: str) -> tuple[float, float]:
        return (
            statistics.median(w for w, _ in samples[label]),
            statistics.median(c for _, c in samples[label]),
        )

    base_wall, base_cpu = medians(rows[0][0])
    width = max(len(label) for label, _ in rows)
    print(
        f"{'command':<{width}}  {'median ms':>9}  {'ratio':>6}  {'CPU ms':>6}  {'ratio':>6}"
        f"  {'peak RSS MiB':>12}"
    )
    worst = ("", 0.0)
    for label, _ in rows:
        wall, cpu = medians(label)
        ratio = wall / base_wall
        if label.startswith("cephbench") and ratio > worst[1]:
            worst = (label, ratio)
        mib = "n/a" if rss[label] is None else f"{rss[label]:.1f}"
        flag = "  > limit" if ratio > args.limit and label.startswith("cephbench") else ""
        print(
            f"{label:<{width}}  {wall * 1000:9.1f}  {ratio:6.2f}  {cpu * 1000:6.1f}"
            f"  {cpu / base_cpu:6.2f}  {mib:>12}{flag}"
        )
    print(f"worst: {worst[0]} at {worst[1]:.2f}x (limit {args.limit:g}x, median of {args.repeat})")
    # The goal's two ratios; then each against click's own floor, which a loaded machine
    # (where a bare interpreter gains least) moves far less than the ratios to python3.
    floor_wall, floor_cpu = medians(FLOOR)
    for label in ("cephbench run --help", "cephbench --help"):
        wall, cpu = medians(label)
        goal = ""
        if "run" in label:
            met = "met" if wall / base_wall <= args.goal else "NOT met"
            goal = f"; goal <= {args.goal:g}x: {met}"
        print(
            f"{label}: {wall / base_wall:.2f}x {BARE} in wall time, {cpu / base_cpu:.2f}x in CPU "
            f"time ({wall * 1000:.1f} ms against {base_wall * 1000:.1f} ms){goal}; "
            f"{wall / floor_wall:.2f}x / {cpu / floor_cpu:.2f}x click's floor"
        )
    return 1 if worst[1] > args.limit else 0


if __name__ == "__main__":
    sys.exit(main())
