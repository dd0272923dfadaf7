"""Benchmark `cephbench ab` against separate runs: false positives, detection, total time.

    .venv/bin/python bench/ab_lab.py [--n 20] [--rounds 12] [--runtime 2] [--lab-dir /tmp/ab-lab]

On a throwaway Ceph lab (``--lab-dir``; brought up unless one runs there, taken down if this
script started it), with one RBD image made for the whole benchmark (pool ``abbench``):

- ``n`` A/A experiments: ``cephbench ab`` whose B side sets ``rbd_qos_iops_limit 0``, the
  value in effect anyway (a real apply and revert; over 20 experiments the explicit entry
  measured -0.8 % on average, +-0.4 % standard error: close to, not exactly, nothing);
- ``n`` experiments with a real change of about 10 %: B caps the image's IOPS (``ceph config
  set client rbd_qos_iops_limit N``, librbd's own QoS); librbd lets a few per cent more than
  the cap through, so N is calibrated once until the capped runs measure 90 % of the uncapped
  (medians of three runs each);
- the same budget (the same number of runs of each side) spent the usual way: all A runs,
  then the setting changed by hand, all B runs, then ``cephbench compare`` (Welch's test).

Each experiment is judged by its one workload's IOPS cell: significant or not. Prints, for
both ways: the false-positive rate (A/A cells called significant), the detection rate (capped
cells called significantly worse), each with its 95 % (Clopper-Pearson) interval, and the total
time. Every experiment's figures go to ``--out`` (JSON lines) as they finish. Needs root and
Ceph; the machine should be otherwise idle (what else runs lands in the separate runs'
difference, which is the point of the comparison, but not in a fair one).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CEPHBENCH = str(Path(sys.executable).with_name("cephbench"))
SUITE = """name: abbench
description: 4k random reads on an RBD image, one job, iodepth 16
global: {{time_based: true, runtime: {runtime}, size: 256m}}
workloads:
  - {{name: rand_rd, rw: randread, bs: 4k, iodepth: 16, numjobs: 1}}
"""
POOL, IMAGE = "abbench", "img"


def sh(env: dict[str, str], *argv: str) -> str:
    return subprocess.run(argv, env=env, check=True, capture_output=True, text=True).stdout


def cb(env: dict[str, str], *args: str) -> str:
    return sh(env, CEPHBENCH, *args)


def ab(env: dict[str, str], suite: list[str], change: str, rounds: int) -> bool | None:
    """Run one experiment; whether its IOPS cell is significant (and in which direction)."""
    doc = json.loads(
        cb(env, "ab", *suite, "--b", change, "--rounds", str(rounds), "--format", "json")
    )
    (row,) = [r for r in doc["rows"] if r["metric"] == "iops"]
    return row["significant"]["b"], row["pct_diff"]["b"]


def separate(env: dict[str, str], suite: list[str], limit: int, runs: int, tag: str):
    """The usual way: ``runs`` A runs, the setting by hand, ``runs`` B runs, compare."""
    ids: dict[str, list[str]] = {}
    for side in "AB":
        if side == "B":
            sh(env, "ceph", "config", "set", "client", "rbd_qos_iops_limit", str(limit))
        try:
            for _ in range(runs):
                cb(env, "run", *suite, "--label", f"{tag}-{side}")
        finally:
            if side == "B":
                sh(env, "ceph", "config", "rm", "client", "rbd_qos_iops_limit")
        listed = json.loads(
            cb(env, "runs", "--label", f"{tag}-{side}", "--all", "--format", "json")
        )
        ids[side] = [str(r["id"]) for r in listed["runs"]]
        assert len(ids[side]) == runs, listed
    data = json.loads(cb(env, "compare", *ids["A"], *ids["B"], "--format", "json"))
    (row,) = [r for r in data["rows"] if r["metric"] == "iops"]
    (key,) = row["significant"]  # the one column against the baseline (the A runs)
    return row["significant"][key], row["pct_diff"][key]


def median_iops(env: dict[str, str], suite: list[str], label: str, runs: int = 3) -> float:
    values = []
    for _ in range(runs):
        cb(env, "run", *suite, "--label", label)
        values.append(json.loads(cb(env, "show", "last", "--format", "json"))["results"][0]["iops"])
    return statistics.median(values)


def calibrate(env: dict[str, str], suite: list[str]) -> tuple[float, int, float]:
    """(uncapped IOPS, the cap, capped/uncapped): the cap that takes about 10 % off."""
    base = median_iops(env, suite, "calibrate")
    limit = int(base * 0.9)
    for _ in range(3):
        sh(env, "ceph", "config", "set", "client", "rbd_qos_iops_limit", str(limit))
        try:
            capped = median_iops(env, suite, "calibrate-cap")
        finally:
            sh(env, "ceph", "config", "rm", "client", "rbd_qos_iops_limit")
        ratio = capped / base
        print(
            f"calibration: {base:.0f} IOPS, cap {limit}: {capped:.0f} ({ratio - 1:+.1%})",
            file=sys.stderr,
        )
        if abs(ratio - 0.9) <= 0.015:
            break
        limit = int(limit * 0.9 / ratio)
    return base, limit, ratio


def interval(k: int, n: int) -> str:
    """The 95 % Clopper-Pearson interval of k successes in n, in per cent."""
    if n == 0:
        return "-"
    from scipy.stats import beta

    lo = 0.0 if k == 0 else beta.ppf(0.025, k, n - k + 1)
    hi = 1.0 if k == n else beta.ppf(0.975, k + 1, n - k)
    return f"{lo:.0%}-{hi:.0%}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20, help="experiments of each kind")
    parser.add_argument(
        "--rounds", type=int, default=12, help="rounds per A/B experiment (12: six blocks)"
    )
    parser.add_argument("--runtime", default="2")
    parser.add_argument("--lab-dir", default="/tmp/ab-lab")
    parser.add_argument("--out", default="ab_lab.jsonl", help="every experiment's figures")
    parser.add_argument(
        "--budget",
        type=float,
        help="seconds: start no new pair of experiments after this (the figures are of those done)",
    )
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="cephbench-ab-"))
    (work / "suite.yaml").write_text(SUITE.format(runtime=args.runtime))
    env = {
        **os.environ,
        "CEPHBENCH_DB": str(work / "results.db"),
        "CEPHBENCH_LAB_DIR": args.lab_dir,
    }
    started = False
    try:
        env.update(_lab_env(env, args.lab_dir))
    except subprocess.CalledProcessError:
        cb(env, "lab", "up", "--dir", args.lab_dir)
        env.update(_lab_env(env, args.lab_dir))
        started = True
    suite = [str(work / "suite.yaml"), "--target", f"rbd:{POOL}/{IMAGE}"]
    results: dict[str, list] = {k: [] for k in ("ab_aa", "ab_cap", "sep_aa", "sep_cap")}
    spent = {"ab": 0.0, "sep": 0.0}
    try:
        sh(env, "ceph", "osd", "pool", "create", POOL, "32", "32")
        sh(env, "rbd", "pool", "init", POOL)
        sh(env, "rbd", "create", f"{POOL}/{IMAGE}", "--size", "256M")
        sh(
            env,
            "fio",
            "--name=fill",
            "--ioengine=rbd",
            f"--pool={POOL}",
            f"--rbdname={IMAGE}",
            "--clientname=admin",
            "--rw=write",
            "--bs=4m",
            "--size=256m",
            "--iodepth=4",
        )
        base, limit, ratio = calibrate(env, suite)
        per_side = args.rounds // 2
        t_start = time.monotonic()
        for i in range(args.n):
            if args.budget is not None and time.monotonic() - t_start > args.budget:
                print(f"budget of {args.budget:g} s spent after {i} pair(s)", file=sys.stderr)
                break
            for kind, value in (("aa", 0), ("cap", limit)):
                t0 = time.monotonic()
                change = f"ceph config set client rbd_qos_iops_limit {value}"
                results[f"ab_{kind}"].append(ab(env, suite, change, args.rounds))
                t1 = time.monotonic()
                results[f"sep_{kind}"].append(separate(env, suite, value, per_side, f"{kind}{i}"))
                t2 = time.monotonic()
                spent["ab"] += t1 - t0
                spent["sep"] += t2 - t1
                record = {
                    "experiment": i + 1,
                    "kind": kind,
                    "ab": results[f"ab_{kind}"][-1],
                    "ab_s": round(t1 - t0, 1),
                    "separate": results[f"sep_{kind}"][-1],
                    "separate_s": round(t2 - t1, 1),
                    "load": os.getloadavg()[0],
                }
                with open(args.out, "a") as out:
                    out.write(json.dumps(record) + "\n")
                print(f"  {json.dumps(record)}", file=sys.stderr, flush=True)
    finally:
        subprocess.run(
            ["ceph", "osd", "pool", "rm", POOL, POOL, "--yes-i-really-really-mean-it"],
            env=env,
            capture_output=True,
        )
        if started:
            cb(env, "lab", "down", "--dir", args.lab_dir, "--purge")
    n = len(results["ab_aa"])
    print(
        f"real change: cap {limit} IOPS against {base:.0f} uncapped "
        f"({ratio - 1:+.1%} in calibration); {n} experiments of each kind"
    )
    for way, label in (
        ("ab", f"cephbench ab (ABBA..., {args.rounds} rounds)"),
        ("sep", f"separate runs ({per_side} + {per_side}, compare)"),
    ):
        fp = sum(s is True for s, _ in results[f"{way}_aa"])
        found = sum(s is True and p < 0 for s, p in results[f"{way}_cap"])
        mean = sum(p for _, p in results[f"{way}_cap"]) / max(1, n)
        print(
            f"{label}: false positives {fp}/{n} ({fp / max(1, n):.0%}, 95 % CI "
            f"{interval(fp, n)}), detected {found}/{n} ({found / max(1, n):.0%}, 95 % CI "
            f"{interval(found, n)}, mean change {mean:+.1f} %), total {spent[way]:.0f} s"
        )
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"--runtime {args.runtime}, load average now {load}; store kept in {work / 'results.db'}")


def _lab_env(env: dict[str, str], lab_dir: str) -> dict[str, str]:
    out = {}
    for line in cb(env, "lab", "env", "--dir", lab_dir).splitlines():
        if line.startswith("export ") and "=" in line:
            key, value = line[len("export ") :].split("=", 1)
            out[key] = value.strip("'\"")
    return out


if __name__ == "__main__":
    main()
