"""#32's proof on a 3-host lab: ``cephbench tune`` trial after trial, on each lab
misconfiguration and on the healthy lab. Prints, per fault, how often each remedy was kept;
each trial's time; whether the cluster's configuration was byte for byte what it was after
every trial (``ceph config dump``, and the pools' properties: pg_num and its target,
pgp_num, size, min_size, autoscale mode); and one attempts table.

    .venv/bin/python bench/tune_lab.py [--existing LAB_DIR] [--trials 5] [--healthy 10]
        [--faults debug-logging,rbd-cache-off,too-few-pgs] [--suite quick] [--runtime 3]

Goals (#32): the fault's own remedy kept in at least 4 of 5 trials, no other change kept in
more than 1 of 5; on the healthy lab nothing kept in at least 9 of 10; the configuration the
same after every trial. Each trial: the fault injected (recorded by the lab), the state
read, ``tune`` (every change reverted at its end, as without ``--keep``), the state read
again (it must be the faulted one), the fault cleared, the state read (it must be the first
one). ``too-few-pgs`` is on the tune's own pool (its remedy moves data: ``--allow
data-movement``; it merges the pool's PGs back when it reverts, which takes a minute).
Brings a lab up (3 hosts, links at 500 Mbit/s) in a temporary directory and takes it down
afterwards, or uses the one in LAB_DIR. Wants a quiet machine: every decision is a
statistical test on IOPS.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cephbench.lab import LabInfo, LabSpec, ceph_json, down, ensure_pool, faults, find_running, up
from cephbench.system.process import run
from cephbench.tables.table import to_markdown
from cephbench.tuning.tune_report import attempts_table

POOL, IMAGE = "cb-tunelab", "img"
POOL_KEYS = (
    "pg_num", "pg_num_target", "pg_placement_num", "pg_placement_num_target", "size",
    "min_size", "pg_autoscale_mode",
)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--existing", help="a running 3-host lab's directory")
    parser.add_argument("--trials", type=int, default=5, help="trials of each fault")
    parser.add_argument("--healthy", type=int, default=10, help="trials on the healthy lab")
    parser.add_argument("--faults", default="debug-logging,rbd-cache-off,too-few-pgs")
    parser.add_argument("--suite", default="quick")
    parser.add_argument("--runtime", default="3")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="cb-tunelab-"))
    lab_dir = Path(args.existing) if args.existing else tmp / "lab"
    if not args.existing:
        up(LabSpec(dir=lab_dir, hosts=3, osds=3, rate="500mbit", ssh=True), timeout=300)
    try:
        lab = find_running(lab_dir)
        if lab is None:
            sys.exit(f"no lab running in {lab_dir}")
        prove(lab, tmp / "tune.db", args)
    finally:
        if not args.existing:
            down(lab_dir, purge=True)


def state(lab: LabInfo) -> str:
    """The configuration tune may touch, as text: compared byte for byte."""
    dump = run(["ceph", "config", "dump", "-f", "json"], env={**os.environ, **lab.env},
               check=True, timeout=60).stdout  # fmt: skip
    pools = {
        p["pool_name"]: {k: p.get(k) for k in POOL_KEYS}
        for p in ceph_json(lab, "osd", "pool", "ls", "detail")
    }
    return dump + json.dumps(pools, sort_keys=True)


def prove(lab: LabInfo, db: Path, args: argparse.Namespace) -> None:
    env = {**os.environ, **lab.env, "CEPHBENCH_DB": str(db), "CEPHBENCH_LAB_DIR": str(lab.dir)}
    ensure_pool(lab, POOL, pg_num=32)
    rbd = ["rbd", "-p", POOL]
    run([*rbd, "create", IMAGE, "--size", "1G"], env=env, check=True, timeout=60)
    run([*rbd, "bench", "--io-type", "write", "--io-size", "4M", "--io-total", "1G", IMAGE],
        env=env, check=True, timeout=600)  # fmt: skip
    cases = [*(f for f in args.faults.split(",") for _ in range(args.trials))]
    cases += ["healthy"] * args.healthy
    kept: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    times: dict[str, list[float]] = collections.defaultdict(list)
    same: dict[str, list[bool]] = collections.defaultdict(list)
    shown = False
    for n, case in enumerate(cases, 1):
        before = state(lab)
        target = {"too-few-pgs": f"pool:{POOL}"}.get(case, "cluster")
        extra = ["--allow", "data-movement"] if case == "too-few-pgs" else []
        if case != "healthy":
            faults.inject(lab, case, POOL if case == "too-few-pgs" else target)
        try:
            faulted = state(lab)
            t0 = time.monotonic()
            out = subprocess.run(
                ["cephbench", "tune", "--target", f"rbd:{POOL}/{IMAGE}", "--suite", args.suite,
                 "--runtime", args.runtime, *extra, "--format", "json"],
                env=env, capture_output=True, text=True, check=False,
            )  # fmt: skip
            took = time.monotonic() - t0
            after_tune = state(lab)
        finally:
            if case != "healthy":
                faults.clear(lab, target, case)
        after = state(lab)
        if out.returncode:
            print(f"trial {n} ({case}): tune failed: {out.stderr.strip()}")
            continue
        doc = json.loads(out.stdout)
        got = [a["remedy"] for a in doc["attempts"] if a.get("kept") and not a.get("final")]
        for remedy in got or ["(nothing)"]:
            kept[case][remedy] += 1
        times[case].append(took)
        same[case].append(after_tune == faulted and after == before)
        print(f"trial {n} ({case}): kept {got or 'nothing'} in {took:.0f} s; configuration "
              f"{'the same' if same[case][-1] else 'CHANGED'} afterwards", flush=True)  # fmt: skip
        if not shown and got:
            print(to_markdown(attempts_table(doc)))
            shown = True
    print("\nfault | trials | kept | time (s) min-median-max | configuration the same")
    for case, counts in kept.items():
        t = sorted(times[case])
        print(f"{case} | {len(t)} | {dict(counts)} | {t[0]:.0f}-{t[len(t) // 2]:.0f}-{t[-1]:.0f} "
              f"| {sum(same[case])} of {len(same[case])}")  # fmt: skip


if __name__ == "__main__":
    main()
