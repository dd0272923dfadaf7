"""How much wall time cephbench adds over plain fio: a 20-point sweep next to bench-fio, and a
user's job file of 20 stonewall groups next to one plain fio process.

    .venv/bin/python bench/overhead.py [--rounds N] [--dir /var/tmp] [--only sweep|jobfile]

Sweep: the same 20 points (bs 4k,64k x iodepth 1,2,4,8,16 x randread,randwrite; 1 s each,
libaio, direct, one 256 MiB file) are timed for: (1) cephbench, which runs a suite in one fio
process, its points chained through gates, and stores every point; (2) plain fio started once
per point; (3) bench-fio from fio-plot, installed into a scratch venv here (never a project
dependency).

Job file: 20 jobs of 1 s, each with ``stonewall`` (4k randread, libaio, direct, iodepth 1-17
and 1-3 again, one 256 MiB file), timed for: (1) one plain ``fio`` process on a new file;
(2) ``cephbench run FILE``, its groups gated, with the default log capture; (3) the same with
``--no-logs``; (4) the same file with ``exitall_on_error`` added, which changes nothing in a
run without errors but makes cephbench run it as written (its fall-back path).

Rounds are interleaved so drift on the machine hits every contender alike.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from cephbench.store import Store
from cephbench.system.process import run

ROOT = Path(__file__).resolve().parent.parent
CEPHBENCH = ROOT / ".venv" / "bin" / "cephbench"
BS, IODEPTH, RW = ("4k", "64k"), (1, 2, 4, 8, 16), ("randread", "randwrite")
POINTS = list(itertools.product(RW, BS, IODEPTH))
SIZE, RUNTIME = "256M", 1


def cephbench(work: Path) -> float:
    suite = work / "sweep.yaml"
    lines = [
        "name: sweep",
        "description: overhead sweep",
        "global:",
        "  ioengine: libaio",
        "  direct: 1",
        "  time_based: true",
        f"  runtime: {RUNTIME}",
        f"  size: {SIZE}",
        "workloads:",
    ]
    lines += [
        f"  - {{name: {rw}-{bs}-qd{qd}, rw: {rw}, bs: {bs}, iodepth: {qd}}}"
        for rw, bs, qd in POINTS
    ]
    suite.write_text("\n".join(lines) + "\n")
    db = work / "results.db"
    start = time.monotonic()
    run(
        [
            str(CEPHBENCH),
            "run",
            str(suite),
            "--target",
            f"file:{work}",
            "--db",
            str(db),
            "--format",
            "json",
        ],
        check=True,
    )
    seconds = time.monotonic() - start
    shown = run([str(CEPHBENCH), "show", "last", "--db", str(db), "--format", "json"], check=True)
    stored = len(json.loads(shown.stdout)["results"])
    assert stored == len(POINTS), f"cephbench stored {stored} points, expected {len(POINTS)}"
    return seconds


def job_file(work: Path, filename: Path | None = None, extra: str = "") -> Path:
    """The 20-group job file; with ``filename`` set for plain fio (cephbench sets its own)."""
    lines = [
        "[global]",
        "ioengine=libaio",
        "direct=1",
        "rw=randread",
        "bs=4k",
        "time_based",
        f"runtime={RUNTIME}",
        f"size={SIZE}",
        *([f"filename={filename}"] if filename else []),
        *([extra] if extra else []),
    ]
    for i in range(len(POINTS)):
        lines += [f"[qd{1 + i % 17}-{i}]", f"iodepth={1 + i % 17}", "stonewall"]
    path = work / "groups.fio"
    path.write_text("\n".join(lines) + "\n")
    return path


def plain_fio(work: Path) -> float:
    job = job_file(work, work / "plain.dat")
    start = time.monotonic()
    run(["fio", "--output-format=json", str(job)], check=True)
    seconds = time.monotonic() - start
    (work / "plain.dat").unlink()
    return seconds


def cephbench_file(work: Path, *options: str, extra: str = "") -> float:
    job, db = job_file(work, extra=extra), work / "results.db"
    start = time.monotonic()
    run(
        [
            str(CEPHBENCH),
            "run",
            str(job),
            "--target",
            f"file:{work}",
            "--db",
            str(db),
            "--format",
            "json",
            *options,
        ],
        check=True,
    )
    seconds = time.monotonic() - start
    shown = json.loads(
        run(
            [str(CEPHBENCH), "show", "last", "--db", str(db), "--format", "json"], check=True
        ).stdout
    )
    stored = len(shown["results"])
    assert stored == len(POINTS), f"cephbench stored {stored} jobs, expected {len(POINTS)}"
    with Store(db) as store:
        (output,) = store.outputs(shown["id"])
    gated = "flock --shared gate." in output["input_text"]
    assert gated != bool(extra), f"the job file ran {'gated' if extra else 'as written'}"
    return seconds


JOBFILE_CONTENDERS = {
    "plain fio": plain_fio,
    "cephbench": cephbench_file,
    "--no-logs": lambda work: cephbench_file(work, "--no-logs"),
    "as written": lambda work: cephbench_file(work, extra="exitall_on_error"),
}


def fio_loop(work: Path) -> float:
    start = time.monotonic()
    for rw, bs, qd in POINTS:
        run(
            [
                "fio",
                "--name=point",
                f"--filename={work}/fio-loop.dat",
                f"--size={SIZE}",
                "--ioengine=libaio",
                "--direct=1",
                "--time_based",
                f"--runtime={RUNTIME}",
                f"--rw={rw}",
                f"--bs={bs}",
                f"--iodepth={qd}",
                "--output-format=json",
            ],
            check=True,
        )
    seconds = time.monotonic() - start
    (work / "fio-loop.dat").unlink()
    return seconds


def bench_fio(work: Path, venv: Path) -> float:
    out = work / "bench-fio-out"
    start = time.monotonic()
    run(
        [
            str(venv / "bin" / "bench-fio"),
            "--target",
            str(work / "bench-fio.dat"),
            "--type",
            "file",
            "--size",
            SIZE,
            "--output",
            str(out),
            "--block-size",
            *BS,
            "--iodepth",
            *map(str, IODEPTH),
            "--numjobs",
            "1",
            "--mode",
            *RW,
            "--runtime",
            str(RUNTIME),
            "--time-based",
            "--direct",
            "1",
            "--engine",
            "libaio",
            "--quiet",
            "--destructive",
            "--create",
        ],
        check=True,
    )
    seconds = time.monotonic() - start
    produced = len(list(out.rglob("*.json")))
    assert produced == len(POINTS), f"bench-fio wrote {produced} results, expected {len(POINTS)}"
    (work / "bench-fio.dat").unlink(missing_ok=True)
    return seconds


def install_fio_plot(scratch: Path) -> Path:
    venv = scratch / "fio-plot-venv"
    run([sys.executable, "-m", "venv", str(venv)], check=True)
    run([str(venv / "bin" / "pip"), "install", "-q", "fio-plot"], check=True, timeout=600)
    return venv


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--dir", default="/var/tmp", help="where the data files go (a real disk)")
    parser.add_argument("--only", choices=("sweep", "jobfile"), help="run one of the two cases")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cephbench-overhead-", dir=args.dir) as scratch:
        if args.only != "jobfile":
            sweep(Path(scratch), args.rounds)
        if args.only != "sweep":
            jobfile(Path(scratch), args.rounds)


def _table(times: dict[str, list[float]]) -> None:
    print(f"{'':12s} {'min':>7s} {'median':>7s} {'max':>7s}")
    for name, values in times.items():
        print(f"{name:12s} {min(values):7.1f} {statistics.median(values):7.1f} {max(values):7.1f}")


def _rounds(scratch: Path, rounds: int, contenders: dict) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for r in range(rounds):
        for name, fn in contenders.items():
            prefix = f"{name.strip('-').replace(' ', '-')}-{r}-"
            work = Path(tempfile.mkdtemp(prefix=prefix, dir=scratch))
            times[name].append(fn(work))
            print(f"round {r + 1}: {name:10s} {times[name][-1]:6.1f} s", file=sys.stderr)
    return times


def sweep(scratch: Path, rounds: int) -> None:
    venv = install_fio_plot(scratch)
    times = _rounds(
        scratch,
        rounds,
        {
            "cephbench": cephbench,
            "fio loop": fio_loop,
            "bench-fio": lambda work: bench_fio(work, venv),
        },
    )
    print(f"sweep: {len(POINTS)} points x {RUNTIME} s, {rounds} round(s); wall time in seconds")
    _table(times)
    ratio = statistics.median(times["cephbench"]) / statistics.median(times["bench-fio"])
    print(f"cephbench / bench-fio = {ratio:.2f} (goal <= 0.85)")
    loop = statistics.median(times["bench-fio"]) / statistics.median(times["fio loop"])
    print(f"bench-fio / fio loop = {loop:.2f}")


def jobfile(scratch: Path, rounds: int) -> None:
    times = _rounds(scratch, rounds, JOBFILE_CONTENDERS)
    print(
        f"job file: {len(POINTS)} stonewall groups x {RUNTIME} s, {rounds} round(s); "
        "wall time in seconds"
    )
    _table(times)
    plain = statistics.median(times["plain fio"])
    for name, goal in (("cephbench", "0.9"), ("--no-logs", "0.9"), ("as written", "1.05")):
        pairs = zip(times[name], times["plain fio"], strict=True)
        rounds_ = ", ".join(f"{t / p:.2f}" for t, p in pairs)
        print(
            f"{name} / plain fio = {statistics.median(times[name]) / plain:.2f} "
            f"(goal <= {goal}; per round {rounds_})"
        )


if __name__ == "__main__":
    main()
