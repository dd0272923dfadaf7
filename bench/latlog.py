"""Latency logs at scale: a 10 M-sample fio latency log to percentiles and a per-second series.

    .venv/bin/python bench/latlog.py [--ios 10000000] [--rounds 3] [--dir /var/tmp] [--no-fio-plot]

fio (null engine, one latency log line per I/O) writes the log into a temporary directory, under
the name fio-plot wants (``randread-iodepth-1-numjobs-1_lat.1.log``). Each tool then runs as a
process of its own under GNU time, so the wall time and peak RSS are those of that ingest alone:
cephbench (Python start and imports included) reads the log into exact p50..p99.99, max and
mean latency and a per-second series of IOPS and mean, p99 and max latency; fio-plot, installed
into a scratch venv here (never a project dependency), draws its latency-over-time graph from
the same file (``-g -t lat``). Everything is removed afterwards. Goal: <= 1.5 s and <= 0.5 GB.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

from cephbench.errors import CephbenchError
from cephbench.system.process import run

PREFIX = "randread-iodepth-1-numjobs-1"
INGEST = """
import json, sys, time
start = time.perf_counter()
from cephbench.tools.fio import logs
log = logs.read_log(sys.argv[1])
series = logs.series([log], workload="randread", interval_ms=1000)
summary = logs.latency_summary([log], overwrite_input=True)  # the log's last use
seconds = time.perf_counter() - start
print(json.dumps({
    "seconds": seconds,
    "summary": [{"op": s.op, "samples": s.samples, "mean_us": s.mean_us, "max_us": s.max_us,
                 "percentiles": s.percentiles} for s in summary],
    "series": {f"{s.op} {s.metric}": len(s.t_s) for s in series},
    "iops": next(s.values.tolist() for s in series if s.metric == "iops"),
}))
"""


def timed(argv: list[str], scratch: Path, timeout: float) -> tuple[float, float, float, str]:
    """Wall seconds, CPU seconds (user + system), peak RSS in MB and stdout of ``argv``,
    measured by GNU time."""
    stats = scratch / "time.txt"
    result = run(
        ["/usr/bin/time", "-f", "%e %U %S %M", "-o", str(stats), *argv],
        cwd=str(scratch),
        check=True,
        timeout=timeout,
    )
    wall, user, system, rss_kb = stats.read_text().split()[-4:]
    return float(wall), float(user) + float(system), int(rss_kb) / 1024, result.stdout


def generate(folder: Path, ios: int) -> tuple[Path, float]:
    result = run(
        [
            "fio",
            "--name=randread",
            "--ioengine=null",
            "--rw=randread",
            "--size=100G",
            f"--number_ios={ios}",
            f"--write_lat_log={folder / PREFIX}",
            "--log_avg_msec=0",
            "--output=/dev/null",
        ],
        check=True,
        timeout=600,
    )
    for other in ("clat", "slat"):  # fio writes them too; neither tool reads them here
        (folder / f"{PREFIX}_{other}.1.log").unlink(missing_ok=True)
    return folder / f"{PREFIX}_lat.1.log", result.seconds


def fio_plot(scratch: Path, folder: Path) -> tuple[float, float, float] | str:
    """fio-plot's wall time, CPU time and peak RSS for the graph, or why it could not run."""
    venv = scratch / "fio-plot-venv"
    try:
        run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
        run([str(venv / "bin" / "pip"), "install", "-q", "fio-plot"], check=True, timeout=600)
    except CephbenchError as e:
        return f"fio-plot could not be installed: {e}"
    try:
        wall, cpu, rss, _ = timed(
            [
                str(venv / "bin" / "fio-plot"),
                "-i",
                str(folder),
                "-T",
                "10M latency log",
                "-g",
                "-t",
                "lat",
                "-r",
                "randread",
                "-d",
                "1",
                "-n",
                "1",
                "-o",
                str(scratch / "fio-plot.png"),
            ],
            scratch,
            timeout=3600,
        )
    except CephbenchError as e:
        return f"fio-plot failed: {e}"
    return wall, cpu, rss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ios", type=int, default=10_000_000)
    parser.add_argument(
        "--rounds", type=int, default=3, help="cephbench ingests (fio-plot runs once)"
    )
    parser.add_argument("--dir", default="/var/tmp", help="where the log goes (~21 bytes an I/O)")
    parser.add_argument("--no-fio-plot", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cephbench-latlog-", dir=args.dir) as tmp:
        scratch = Path(tmp)
        folder = scratch / "logs"
        folder.mkdir()
        log, generated = generate(folder, args.ios)
        print(
            f"log: {log.name}, {log.stat().st_size / 1e6:.1f} MB, written by fio in {generated:.1f} s"
        )
        rounds = []
        for r in range(args.rounds):
            wall, cpu, rss, out = timed(
                [sys.executable, "-c", INGEST, str(log)], scratch, timeout=600
            )
            report = json.loads(out)
            rounds.append((wall, cpu, rss, report["seconds"]))
            print(f"round {r + 1}: cephbench {wall:.2f} s, {rss:.0f} MB", file=sys.stderr)
        other = "not run (--no-fio-plot)" if args.no_fio_plot else fio_plot(scratch, folder)
    for s in report["summary"]:
        pct = ", ".join(f"p{p:g} {us:.3f}" for p, us in s["percentiles"])
        print(
            f"{s['op']}: {s['samples']:,} I/Os, mean {s['mean_us']:.4f} us, {pct}, max {s['max_us']:.3f} us"
        )
    print("series: " + ", ".join(f"{k} ({n} points)" for k, n in report["series"].items()))
    print(f"IOPS per second: {', '.join(f'{v:,.0f}' for v in report['iops'])}")
    walls, cpus, rsss, inside = zip(*rounds, strict=True)
    load = Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"
    print(f"{'':34s} {'wall s':>8s} {'CPU s':>8s} {'peak RSS MB':>12s}")
    print(
        f"{f'cephbench (best of {len(rounds)})':34s} {min(walls):8.2f} {min(cpus):8.2f} {min(rsss):12.0f}"
    )
    print(
        f"{f'cephbench (median of {len(rounds)})':34s} {statistics.median(walls):8.2f} "
        f"{statistics.median(cpus):8.2f} {statistics.median(rsss):12.0f}"
    )
    print(f"{'  in-process read+summary+series':34s} {min(inside):8.2f}")
    if isinstance(other, str):
        print(f"{'fio-plot -g -t lat':34s} {other}")
    else:
        print(f"{'fio-plot -g -t lat':34s} {other[0]:8.2f} {other[1]:8.2f} {other[2]:12.0f}")
    print(
        f"goal: cephbench <= 1.5 s and <= 500 MB (CPU s counts both threads; load average now {load})"
    )


if __name__ == "__main__":
    main()
