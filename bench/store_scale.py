"""Commands on a store of years: 10,000 runs, about a million result rows, against a store
holding only the runs a command shows. Prints the median of 5 of each, and the difference.

    .venv/bin/python bench/store_scale.py [--runs 10000] [--jobs 100] [--keep DIR]

The store is filled through the real import path (`cephbench import DIR`, in chunks of
files): fio 3.33 JSON outputs of ``--jobs`` jobs each, built from the job entries recorded in
tests/data/fio/3.33 (their json+ latency bins left out, as in fio's plain ``json``), each job
renamed and its figures varied by a random factor, so no two runs hold the same numbers.
The runs the commands show and compare (the first, the middle and the last one) have
``--probe-jobs`` jobs (4, a suite's size), and the small store holds those three (same jobs,
ids 1, 2, 3): the same work on both sides, so the difference is the store's size alone (a
report of two 100-job runs draws 200 charts, a minute's work however small the store).
``--keep DIR`` keeps the stores there and reuses them when run again.

Each command runs as a user runs it (a new `cephbench` process); ``runs --last 20`` is timed
only when the installed `runs` has that option.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import resource
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from cephbench.system.process import run
from cephbench.tools.fio.parse import extract

ROOT = Path(__file__).resolve().parent.parent
CEPHBENCH = str(ROOT / ".venv/bin/cephbench")
SAMPLES = sorted(
    p
    for p in (ROOT / "tests/data/fio/3.33").glob("*.json")
    if not p.name.endswith(".expected.json")
)
CHUNK = 250
"""Files per `cephbench import` of the fill."""


def recorded_jobs() -> list[dict]:
    """Every job entry fio recorded in the samples that did I/O without an error, each with
    its file's global options folded into its own (the generated files have none)."""
    jobs = []
    for sample in SAMPLES:
        data = extract(sample.read_text()).data
        options = data.get("global options") or {}
        if isinstance(options, list):
            options = options[0] if options else {}
        for job in data.get("jobs") or data.get("client_stats") or []:
            if job.get("error") or job["jobname"] == "All clients":
                continue
            if not any((job.get(op) or {}).get("total_ios") for op in ("read", "write", "trim")):
                continue
            job = copy.deepcopy(job)
            job["job options"] = {**options, **(job.get("job options") or {})}
            jobs.append(job)
    return jobs


def varied(job_text: str, name: str, factor: float) -> dict:
    """The job (its JSON) renamed, its throughput times ``factor``, its latencies divided by
    it."""
    job = json.loads(job_text)  # a deep copy, in C
    job["jobname"] = name
    for op in ("read", "write", "trim"):
        s = job.get(op)
        if not isinstance(s, dict):
            continue
        for key in ("iops", "bw", "bw_bytes", "iops_mean", "bw_mean"):
            if isinstance(s.get(key), int | float):
                s[key] = type(s[key])(s[key] * factor)
        for kind in ("lat_ns", "clat_ns", "slat_ns"):
            stat = s.get(kind)
            if not isinstance(stat, dict):
                continue
            stat.pop("bins", None)
            for key in ("min", "max", "mean"):
                if isinstance(stat.get(key), int | float):
                    stat[key] = type(stat[key])(stat[key] / factor)
            for p, v in (stat.get("percentile") or {}).items():
                stat["percentile"][p] = int(v / factor)
    return job


def write_outputs(
    folder: Path, indices: list[int], jobs: int, pool: list[str], probes: dict[int, int]
) -> None:
    """The outputs of runs ``indices`` (ids one more in the big store), of ``jobs`` jobs each
    but the ``probes`` (index -> jobs)."""
    rng = random.Random(indices[0])
    for i in indices:
        picked = [pool[(i + j) % len(pool)] for j in range(probes.get(i, jobs))]
        doc = {
            "fio version": "fio-3.33",
            "timestamp": 1700000000 + i * 3600,
            "time": time.strftime("%c", time.gmtime(1700000000 + i * 3600)),
            "global options": {},
            "jobs": [varied(j, f"job{n:03d}", rng.uniform(0.8, 1.2)) for n, j in enumerate(picked)],
        }
        (folder / f"run{i:05d}.json").write_text(json.dumps(doc))  # compact: quicker to write


def fill(db: Path, indices: list[int], jobs: int, work: Path, probes: dict[int, int]) -> float:
    """Import the generated outputs of ``indices`` into ``db``, ``CHUNK`` files per import
    (in order: run ids 1, 2, ...); seconds."""
    pool = [json.dumps(job) for job in recorded_jobs()]
    seconds = 0.0
    for first in range(0, len(indices), CHUNK):
        folder = work / "outputs"
        folder.mkdir(exist_ok=True)
        for old in folder.iterdir():
            old.unlink()
        write_outputs(folder, indices[first : first + CHUNK], jobs, pool, probes)
        start = time.monotonic()
        cephbench("import", str(folder), "--db", str(db), "--format", "json")
        seconds += time.monotonic() - start
        print(f"  {min(first + CHUNK, len(indices))} runs stored", flush=True)
    return seconds


def cephbench(*args: str) -> str:
    return run([CEPHBENCH, *args], check=True, timeout=3600).stdout


def median_seconds(args: list[str]) -> tuple[float, float]:
    """Medians of 5 of the wall-clock and the CPU seconds (user + system) of a command: the
    CPU time is what to read on a machine others are using too."""
    wall, cpu = [], []
    for _ in range(5):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.monotonic()
        cephbench(*args)
        wall.append(time.monotonic() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return statistics.median(wall), statistics.median(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--jobs", type=int, default=100, help="fio jobs per output")
    parser.add_argument(
        "--probe-jobs", type=int, default=4, help="jobs of the runs shown and compared"
    )
    parser.add_argument("--keep", type=Path, help="keep (and reuse) the stores in this directory")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cephbench-scale-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        big, small = work / f"big-{args.runs}x{args.jobs}.db", work / "small.db"
        mid = args.runs // 2
        # the runs shown and compared: the first, the middle and the last one; the small store
        # holds the same three (same jobs, as ids 1, 2, 3): both sides do the same work
        shown = [0, mid - 1, args.runs - 1]
        probes = dict.fromkeys(shown, args.probe_jobs)
        if not big.exists():
            print(f"filling {big} with {args.runs} runs of {args.jobs} jobs each ...", flush=True)
            seconds = fill(big, list(range(args.runs)), args.jobs, work, probes)
            print(f"  imported in {seconds:.1f} s ({args.runs / seconds:.0f} files/s)")
        if not small.exists():
            fill(small, shown, args.jobs, work, probes)
        with sqlite3.connect(big) as conn:
            (rows,) = conn.execute("SELECT COUNT(*) FROM results").fetchone()
        print(f"big store: {args.runs} runs, {rows} result rows, {big.stat().st_size >> 20} MiB")
        report = str(work / "x.html")
        commands = [
            (["runs"], ["runs"]),
            (["runs", "--format", "json"], ["runs", "--format", "json"]),
            (["show", str(mid)], ["show", "2"]),
            (["show", "last"], ["show", "last"]),
            (["compare", "1", str(mid)], ["compare", "1", "2"]),
            (["report", "1", str(mid), "-o", report], ["report", "1", "2", "-o", report]),
            (["cleanup"], ["cleanup"]),
        ]
        if "--last" in cephbench("runs", "--help"):
            commands.insert(1, (["runs", "--last", "20"], ["runs", "--last", "20"]))
        for db in (big, small):
            cephbench("show", "last", "--db", str(db))  # a newer schema's migration: not timed
        print(
            f"\n| command | {args.runs} runs: wall (s) | 3 runs: wall (s) | difference (s) "
            f"| CPU: {args.runs} runs (s) | CPU: 3 runs (s) | CPU difference (s) |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|")
        for on_big, on_small in commands:
            b, bc = median_seconds([*on_big, "--db", str(big)])
            s, sc = median_seconds([*on_small, "--db", str(small)])
            shown = " ".join(on_big).replace(f"{work}/", "")
            print(
                f"| `{shown}` | {b:.2f} | {s:.2f} | {b - s:+.2f} "
                f"| {bc:.2f} | {sc:.2f} | {bc - sc:+.2f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
