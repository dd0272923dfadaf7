"""Adaptive repeats against fixed ones: total time and the confidence interval each gets.

    .venv/bin/python bench/adaptive.py [--target-ci 2%] [--adaptive-runtime 10] [--fixed-runtime 60]
                                       [--max-repeats 10] [--lab-dir /tmp/adaptive-lab]

On a throwaway Ceph lab (brought up in ``--lab-dir``, always taken down), runs the
``standard`` suite twice on fresh RBD images in the lab:

* fixed: ``--repeat 3 --runtime 60`` (the usual "three runs of a minute");
* adaptive: ``--target-ci 2% --runtime 10 --max-repeats 10``: each workload repeats until
  the 95 % CI half-width of its IOPS is within 2 % of the mean.

Prints, per workload and for each: repeats, the CI half-width of the mean IOPS (% of the
mean), and the total wall time of each run. The goal: the same or a tighter CI in at most a
third of the time. Needs root and Ceph (as ``cephbench lab up`` does).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cephbench.analysis.stats import summarize

CEPHBENCH = str(Path(sys.executable).with_name("cephbench"))


def cb(env: dict[str, str], *args: str) -> str:
    return subprocess.run(
        [CEPHBENCH, *args], env=env, check=True, capture_output=True, text=True
    ).stdout


def timed_run(env: dict[str, str], *args: str) -> tuple[dict, float]:
    t0 = time.monotonic()
    cb(env, "run", "standard", *args)
    seconds = time.monotonic() - t0
    return json.loads(cb(env, "show", "last", "--format", "json")), seconds


def half_widths(run: dict) -> dict[str, tuple[int, float | None]]:
    """Workload -> (repeats, CI half-width of its mean IOPS in % of the mean)."""
    samples: dict[str, list[float]] = {}
    for r in run["results"]:
        samples.setdefault(r["workload"], []).append(r["iops"])
    out = {}
    for name, values in samples.items():
        s = summarize(values)
        out[name] = (s.n, None if s.ci95 is None else (s.ci95[1] - s.ci95[0]) / 2 / s.mean * 100)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target-ci", default="2%")
    parser.add_argument("--adaptive-runtime", default="10")
    parser.add_argument("--fixed-runtime", default="60")
    parser.add_argument("--max-repeats", default="10")
    parser.add_argument("--lab-dir", default="/tmp/adaptive-lab")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="cephbench-adaptive-"))
    env = {
        **os.environ,
        "CEPHBENCH_DB": str(work / "results.db"),
        "CEPHBENCH_LAB_DIR": args.lab_dir,
    }
    cb(env, "lab", "up", "--dir", args.lab_dir)
    try:
        adaptive, t_adaptive = timed_run(
            env,
            "--label",
            "adaptive",
            "--runtime",
            args.adaptive_runtime,
            "--target-ci",
            args.target_ci,
            "--max-repeats",
            args.max_repeats,
        )
        print(f"  adaptive done in {t_adaptive:.0f} s", file=sys.stderr, flush=True)
        fixed, t_fixed = timed_run(
            env, "--label", "fixed", "--runtime", args.fixed_runtime, "--repeat", "3"
        )
    finally:
        cb(env, "lab", "down", "--dir", args.lab_dir, "--purge")

    a, f = half_widths(adaptive), half_widths(fixed)
    print(
        f"standard suite on the lab (3 BlueStore OSDs, rbd): fixed 3 x {args.fixed_runtime} s "
        f"vs --target-ci {args.target_ci} at {args.adaptive_runtime} s per repeat "
        f"(max {args.max_repeats})"
    )
    print(
        f"{'workload':10} {'fixed n':>8} {'fixed CI±':>10} {'adaptive n':>11} {'adaptive CI±':>13} reached"
    )
    for name in f:
        (fn, fw), (an, aw) = f[name], a.get(name, (0, None))
        reached = adaptive["params"].get("adaptive", {}).get(name, {}).get("reached")
        print(f"{name:10} {fn:8d} {_pct(fw):>10} {an:11d} {_pct(aw):>13} {reached}")
    print(
        f"total time: fixed {t_fixed:.0f} s, adaptive {t_adaptive:.0f} s "
        f"(ratio {t_adaptive / t_fixed:.2f})"
    )
    print(f"store kept in {work / 'results.db'}")


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f} %"


if __name__ == "__main__":
    main()
