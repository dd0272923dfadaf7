"""#33's proof on a 3-host lab: the capacity a search finds against the one a fine sweep of
fixed rates finds, the search's repeats against its CI, and the capacity while recovering
from an OSD taken out against healthy; optionally under a slow disk. Prints every figure and
draws the curves (bench/capacity_curve.py).

    .venv/bin/python bench/capacity_proof.py [--existing LAB_DIR] [--p99 50ms]
        [--step-time 5s] [--sweep 0.7:1.3:0.05] [--cases healthy,recovery,slow-disk]
        [--recovery-sleep 0.5] [-o capacity-proof.png]

The recovery runs with ``osd_recovery_sleep`` 0.5 (``--recovery-sleep``; removed afterwards):
the lab's pool of 1 GiB would otherwise recover within the search's first step. The fine
sweep, right after the healthy search, offers fixed rates from 0.7 to 1.3 times the search's
capacity in 5 % steps (one step each, the search's own step spec), and its capacity is the
highest rate below the first that fails, as the search judges a step. Brings a lab up (3 hosts, links at 500
Mbit/s) in a temporary directory and takes it down afterwards, or uses the one in LAB_DIR.
Wants a quiet machine: every figure is a latency.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from cephbench.capacity.driver import load
from cephbench.capacity.search import outcome
from cephbench.capacity.steps import run_step
from cephbench.lab import LabInfo, LabSpec, down, ensure_pool, faults, find_running, up
from cephbench.store import Store
from cephbench.system.process import run

POOL, IMAGE = "cb-capproof", "img"
SLOW_DISK = {"iops": 150}
RECOVERY_SLEEP = "0.5"
"""Seconds between recovery ops: the lab's 1 GiB would recover within the first step."""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--existing", help="a running 3-host lab's directory")
    parser.add_argument("--p99", default="50ms")
    parser.add_argument("--step-time", default="5s")
    parser.add_argument("--sweep", default="0.7:1.3:0.05", help="LOW:HIGH:STEP of the capacity")
    parser.add_argument("--cases", default="healthy,recovery")
    parser.add_argument("--recovery-sleep", default=RECOVERY_SLEEP, help="osd_recovery_sleep (s)")
    parser.add_argument("-o", "--output", default="capacity-proof.png")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="cb-capproof-"))
    lab_dir = Path(args.existing) if args.existing else tmp / "lab"
    if not args.existing:
        spec = LabSpec(dir=lab_dir, hosts=3, osds=3, rate="500mbit", ssh=True)
        up(spec, timeout=300)
    try:
        lab = find_running(lab_dir)
        if lab is None:
            sys.exit(f"no lab running in {lab_dir}")
        prove(lab, tmp / "proof.db", args)
    finally:
        if not args.existing:
            down(lab_dir, purge=True)


def prove(lab: LabInfo, db: Path, args: argparse.Namespace) -> None:
    env = {**os.environ, **lab.env, "CEPHBENCH_DB": str(db), "CEPHBENCH_LAB_DIR": str(lab.dir)}
    ensure_pool(lab, POOL, pg_num=32, size=2)  # size 2: an OSD out has somewhere to recover to
    rbd = ["rbd", "-p", POOL]
    run([*rbd, "create", IMAGE, "--size", "1G"], env=env, check=True, timeout=60)
    write = ["bench", "--io-type", "write", "--io-size", "4M", "--io-total", "1G", IMAGE]
    run([*rbd, *write], env=env, check=True, timeout=600)
    common = ["--target", f"rbd:{POOL}/{IMAGE}", "--p99", args.p99, "--step-time", args.step_time]
    searches: dict[str, int] = {}
    for case in args.cases.split(","):
        extra = ["--while", "recovery"] if case == "recovery" else []
        if case == "slow-disk":
            with faults.injected(lab, "slow-disk", "osd.1", **SLOW_DISK):
                searches[case] = search(env, [*common, *extra])
        elif case == "recovery":  # 1 GiB recovers in seconds: slowed to outlast the search
            config = ["ceph", "config", "set", "osd", "osd_recovery_sleep", args.recovery_sleep]
            run(config, env=env, check=True, timeout=60)
            try:
                searches[case] = search(env, [*common, *extra])
            finally:
                rm = ["ceph", "config", "rm", "osd", "osd_recovery_sleep"]
                run(rm, env=env, check=True, timeout=60)
        else:
            searches[case] = search(env, [*common, *extra])
            if case == "healthy":  # the sweep at once: the lab's capacity drifts over time
                with Store(db) as store:
                    healthy = load(store, searches[case]).to_json()
                    if healthy["result"]["capacity_iops"]:
                        sweep(store, lab, healthy, args.sweep, env)
    with Store(db) as store:
        docs = {case: load(store, i).to_json() for case, i in searches.items()}
        for case, doc in docs.items():
            r = doc["result"]
            found = [x["capacity_iops"] for x in doc["repeats"]]
            print(
                f"{case}: capacity {r['capacity_iops']} IOPS, 95 % CI {r['ci95_iops']} "
                f"(±{r['ci_pct']} %), {r['verdict']}: {r['reason']}; repeats {found}; "
                f"{len(doc['steps'])} steps; knee {doc['knee']}"
            )
            if case == "recovery":
                for s in doc["steps"]:
                    print(f"  step {s['offered_iops']:.0f}: {s['background']}")
                print(f"  notes: {doc['notes']}")
    ids = [str(i) for i in searches.values()]
    subprocess.run(
        [sys.executable, str(Path(__file__).with_name("capacity_curve.py")), "--db", str(db),
         *ids, "-o", args.output, "--labels", ",".join(searches)],
        check=True,
    )  # fmt: skip


def search(env: dict[str, str], args: list[str]) -> int:
    out = subprocess.run(
        ["cephbench", "capacity", *args, "--format", "json"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode:
        sys.exit(f"capacity {' '.join(args)} failed: {out.stderr}")
    return int(json.loads(out.stdout)["capacity"])


def sweep(store: Store, lab: LabInfo, doc: dict, spec_text: str, env: dict[str, str]) -> None:
    """Fixed rates around the search's capacity, one step each, judged as the search does."""
    from cephbench.capacity.driver import load as load_search

    os.environ.update(env)
    capacity = doc["result"]["capacity_iops"]
    spec = load_search(store, doc["capacity"]).spec
    rule = spec.rule
    low, high, step = (float(x) for x in spec_text.split(":"))
    rates, f = [], low
    while f <= high + 1e-9:
        rates.append(round(capacity * f))
        f += step
    found, failed = None, None
    print(f"fine sweep of {len(rates)} rates, {low:g}-{high:g} x {capacity:.0f} IOPS:")
    from cephbench.ceph.link import scope

    with scope():  # the ceph commands as the search's: over one connection
        steps = [
            (r, run_step(store, spec.step, r, 0, target=f"rbd:{POOL}/{IMAGE}", label="sweep"))
            for r in rates
        ]
    for rate, s in steps:
        verdict = outcome(s, rule)
        p = s.latency_us(rule.percentile)
        print(
            f"  {rate} offered, {s.achieved_iops:.0f} achieved, p99 "
            f"{'-' if p is None else f'{p / 1000:.2f} ms'}: {verdict}"
        )
        if verdict == "pass" and failed is None:
            found = rate
        elif verdict != "pass" and failed is None:
            failed = rate
    if found is None:
        print("fine sweep: no rate passed")
        return
    print(
        f"fine sweep capacity {found} IOPS (first failing {failed}); the search's "
        f"{capacity:.0f} is {100 * (capacity - found) / found:+.1f} % from it"
    )


if __name__ == "__main__":
    main()
