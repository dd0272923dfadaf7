"""How much wall time cephbench adds over plain fio, next to bench-fio, on one 20-point sweep.

    .venv/bin/python bench/overhead.py [--rounds N] [--dir /var/tmp]

The same 20 points (bs 4k,64k x iodepth 1,2,4,8,16 x randread,randwrite; 1 s each, libaio,
direct, one 256 MiB file) are timed for: (1) cephbench, which runs a suite in one fio process
with one stonewall group per point and stores every point; (2) plain fio started once per
point; (3) bench-fio from fio-plot, installed into a scratch venv here (never a project
dependency). Rounds are interleaved so drift on the machine hits all three alike.
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

from cephbench.system.process import run

ROOT = Path(__file__).resolve().parent.parent
CEPHBENCH = ROOT / ".venv" / "bin" / "cephbench"
BS, IODEPTH, RW = ("4k", "64k"), (1, 2, 4, 8, 16), ("randread", "randwrite")
POINTS = list(itertools.product(RW, BS, IODEPTH))
SIZE, RUNTIME = "256M", 1


def cephbench(work: Path) -> float:
    suite = work / "sweep.yaml"
    lines = ["name: sweep", "description: overhead sweep", "global:", "  ioengine: libaio",
             "  direct: 1", "  time_based: true", f"  runtime: {RUNTIME}", f"  size: {SIZE}", "workloads:"]
    lines += [f"  - {{name: {rw}-{bs}-qd{qd}, rw: {rw}, bs: {bs}, iodepth: {qd}}}" for rw, bs, qd in POINTS]
    suite.write_text("\n".join(lines) + "\n")
    db = work / "results.db"
    start = time.monotonic()
    run([str(CEPHBENCH), "run", str(suite), "--target", f"file:{work}", "--db", str(db), "--format", "json"],
        check=True)
    seconds = time.monotonic() - start
    shown = run([str(CEPHBENCH), "show", "last", "--db", str(db), "--format", "json"], check=True)
    stored = len(json.loads(shown.stdout)["results"])
    assert stored == len(POINTS), f"cephbench stored {stored} points, expected {len(POINTS)}"
    return seconds


def fio_loop(work: Path) -> float:
    start = time.monotonic()
    for rw, bs, qd in POINTS:
        run(["fio", "--name=point", f"--filename={work}/fio-loop.dat", f"--size={SIZE}", "--ioengine=libaio",
             "--direct=1", "--time_based", f"--runtime={RUNTIME}", f"--rw={rw}", f"--bs={bs}",
             f"--iodepth={qd}", "--output-format=json"], check=True)
    seconds = time.monotonic() - start
    (work / "fio-loop.dat").unlink()
    return seconds


def bench_fio(work: Path, venv: Path) -> float:
    out = work / "bench-fio-out"
    start = time.monotonic()
    run([str(venv / "bin" / "bench-fio"), "--target", str(work / "bench-fio.dat"), "--type", "file",
         "--size", SIZE, "--output", str(out), "--block-size", *BS, "--iodepth", *map(str, IODEPTH),
         "--numjobs", "1", "--mode", *RW, "--runtime", str(RUNTIME), "--time-based", "--direct", "1",
         "--engine", "libaio", "--quiet", "--destructive", "--create"], check=True)
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
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cephbench-overhead-", dir=args.dir) as scratch:
        venv = install_fio_plot(Path(scratch))
        times: dict[str, list[float]] = {"cephbench": [], "fio loop": [], "bench-fio": []}
        for r in range(args.rounds):
            for name, fn in (("cephbench", cephbench), ("fio loop", fio_loop), ("bench-fio", bench_fio)):
                work = Path(tempfile.mkdtemp(prefix=f"{name.replace(' ', '-')}-{r}-", dir=scratch))
                times[name].append(fn(work, venv) if name == "bench-fio" else fn(work))
                print(f"round {r + 1}: {name:10s} {times[name][-1]:6.1f} s", file=sys.stderr)
    print(f"{len(POINTS)} points x {RUNTIME} s, {args.rounds} round(s); wall time in seconds")
    print(f"{'tool':12s} {'min':>7s} {'median':>7s} {'max':>7s}")
    for name, values in times.items():
        print(f"{name:12s} {min(values):7.1f} {statistics.median(values):7.1f} {max(values):7.1f}")
    ratio = statistics.median(times["cephbench"]) / statistics.median(times["bench-fio"])
    print(f"cephbench / bench-fio = {ratio:.2f} (goal <= 0.85)")
    print(f"bench-fio / fio loop = {statistics.median(times['bench-fio']) / statistics.median(times['fio loop']):.2f}")


if __name__ == "__main__":
    main()
