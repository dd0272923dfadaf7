"""Benchmark the verdicts: false-positive rate (A/A) and detection rate (a real 10 % change).

    .venv/bin/python bench/aa_lab.py [--n 6] [--runtime 2] [--lab-dir /tmp/aa-lab]

On a throwaway Ceph lab (brought up in ``--lab-dir`` and always taken down), runs the
``quick`` suite ``n`` times as label ``A`` and ``n`` times as label ``B``, interleaved
(A, B, A, B...) so slow drift cannot pose as a difference, each run on a fresh RBD image;
nothing changes between them. ``cephbench compare A B`` then should call (almost) nothing
significant: the share of significant cells is the false-positive rate.

Then it runs the same workloads ``n`` times as label ``C`` from a job file that caps every
workload with fio's ``rate_iops`` at 90 % of A's mean IOPS: a real ≥10 % drop in IOPS and
bandwidth. The share of those cells ``compare A C`` calls significantly worse is the
detection rate. Prints both, with N. Needs root and Ceph (as ``cephbench lab up`` does).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from cephbench.planning.plan import make_plan
from cephbench.tools.plan import Overrides

CEPHBENCH = str(Path(sys.executable).with_name("cephbench"))


def cb(env: dict[str, str], *args: str) -> str:
    return subprocess.run(
        [CEPHBENCH, *args], env=env, check=True, capture_output=True, text=True
    ).stdout


def capped_jobfile(iops: dict[str, float], path: Path) -> None:
    """The quick suite as a plain fio job file, each workload its own stonewall group, capped."""
    jobfile = make_plan("quick", Overrides()).jobfile
    jobs = tuple(
        j.with_options({"stonewall": None, "rate_iops": str(max(1, int(iops[j.name] * 0.9)))})
        for j in jobfile.jobs
    )
    path.write_text(type(jobfile)(jobfile.global_, jobs).render())


def compare(env: dict[str, str], a: list[str], b: list[str]) -> tuple[list, dict]:
    """(metric, significant, pct_diff) of every cell of ``compare A B``, and its JSON."""
    data = json.loads(cb(env, "compare", *a, *b, "--format", "json"))
    return [(r["metric"], r["significant"][b[0]], r["pct_diff"][b[0]]) for r in data["rows"]], data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=6, help="runs per label")
    parser.add_argument("--runtime", default="2")
    parser.add_argument("--lab-dir", default="/tmp/aa-lab")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="cephbench-aa-"))
    env = {
        **os.environ,
        "CEPHBENCH_DB": str(work / "results.db"),
        "CEPHBENCH_LAB_DIR": args.lab_dir,
    }
    quick = ("--runtime", args.runtime)
    ids: dict[str, list[str]] = {"A": [], "B": [], "C": []}

    def run(label: str, suite: str) -> None:
        cb(env, "run", suite, "--label", label, *quick)
        ids[label].append(str(json.loads(cb(env, "runs", "--format", "json"))["runs"][-1]["id"]))
        print(f"  {label} run {ids[label][-1]} done", file=sys.stderr, flush=True)

    cb(env, "lab", "up", "--dir", args.lab_dir)
    try:
        for _ in range(args.n):
            run("A", "quick")
            run("B", "quick")
        aa, data = compare(env, ids["A"], ids["B"])
        mean_iops = {
            r["workload"]: r["values"][ids["A"][0]] for r in data["rows"] if r["metric"] == "iops"
        }
        capped_jobfile(mean_iops, work / "capped.fio")
        for _ in range(args.n):
            run("C", str(work / "capped.fio"))
        shift, _ = compare(env, ids["A"], ids["C"])
    finally:
        cb(env, "lab", "down", "--dir", args.lab_dir, "--purge")

    fp = sum(s is True for _, s, _ in aa)
    changed = [(s, p) for m, s, p in shift if m in ("iops", "bw_bytes_per_s")]
    found = sum(s is True and p < 0 for s, p in changed)
    print(
        f"A/A: {fp} of {len(aa)} cells significant (false-positive rate {fp / len(aa):.1%}), "
        f"N = {args.n} runs per label, --runtime {args.runtime}"
    )
    print(
        f"10 % cap: {found} of {len(changed)} IOPS/bandwidth cells significantly worse "
        f"(detection rate {found / len(changed):.1%}); mean change "
        f"{sum(p for _, p in changed) / len(changed):+.1f} %, N = {args.n} runs per label"
    )
    print(f"store kept in {work / 'results.db'}")


if __name__ == "__main__":
    main()
