"""#33's proof on a 3-host lab: the capacity a search finds against the one a fine sweep of
fixed rates finds, the search's repeats against its CI, and the capacity while recovering
from an OSD taken out against healthy; optionally under a slow disk. Prints every figure and
draws the curves (bench/capacity_curve.py).

    .venv/bin/python bench/capacity_proof.py [--existing LAB_DIR] [--p99 50ms]
        [--step-time 5s] [--sweep 0.7:1.3:0.05] [--sweep-repeats 3] [--seed 1]
        [--cases healthy,recovery,slow-disk]
        [--recovery-sleep 0.5] [-o capacity-proof.png]

The recovery runs with ``osd_recovery_sleep`` 0.5 (``--recovery-sleep``; removed afterwards):
the lab's pool of 1 GiB would otherwise recover within the search's first step. The fine
sweep, right after the healthy search, offers fixed rates from 0.7 to 1.3 times the search's
capacity in 5 % steps, each ``--sweep-repeats`` times (3) in a shuffled order, with the
search's own step spec. A rate passes when most of its steps pass, as the search judges a
step, and the sweep's capacity is the highest rate below the first that does not. One step
per rate would make it the minimum over noisy steps, biased low; the shuffle spreads the
lab's drift over every rate alike. Brings a lab up (3 hosts, links at 500
Mbit/s) in a temporary directory and takes it down afterwards, or uses the one in LAB_DIR.
Wants a quiet machine: every figure is a latency.
"""

from __future__ import annotations

import argparse
import json
import os
import random
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
    parser.add_argument("--sweep-repeats", type=int, default=3, help="steps at each rate")
    parser.add_argument("--seed", type=int, default=1, help="of the sweep's shuffled order")
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
                        sweep(store, healthy, args, env)
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


def sweep(store: Store, doc: dict, args: argparse.Namespace, env: dict[str, str]) -> None:
    """Fixed rates around the search's capacity, each several times in a shuffled order, each
    step judged as the search judges it; a rate passes when most of its steps do."""
    from cephbench.ceph.link import scope

    os.environ.update(env)
    capacity = doc["result"]["capacity_iops"]
    spec = load(store, doc["capacity"]).spec
    rule = spec.rule
    low, high, step = (float(x) for x in args.sweep.split(":"))
    rates, f = [], low
    while f <= high + 1e-9:
        rates.append(round(capacity * f))
        f += step
    order = [r for r in rates for _ in range(args.sweep_repeats)]
    random.Random(args.seed).shuffle(order)
    print(
        f"fine sweep of {len(rates)} rates x {args.sweep_repeats} steps, shuffled, "
        f"{low:g}-{high:g} x {capacity:.0f} IOPS:"
    )
    verdicts: dict[int, list[str]] = {r: [] for r in rates}
    with scope():  # the ceph commands as the search's: over one connection
        for i, rate in enumerate(order):
            s = run_step(store, spec.step, rate, i, target=f"rbd:{POOL}/{IMAGE}", label="sweep")
            verdict = outcome(s, rule)
            p = s.latency_us(rule.percentile)
            verdicts[rate].append(verdict)
            print(
                f"  {rate} offered, {s.achieved_iops:.0f} achieved, p99 "
                f"{'-' if p is None else f'{p / 1000:.2f} ms'}: {verdict}",
                flush=True,
            )
    found, failed = None, None
    print("by rate (steps passed of steps):")
    for rate in rates:
        passed = verdicts[rate].count("pass")
        most = passed * 2 > len(verdicts[rate])
        print(f"  {rate}: {passed} of {len(verdicts[rate])} {verdicts[rate]}")
        if failed is None:
            if most:
                found = rate
            else:
                failed = rate
    if found is None:
        print("fine sweep: no rate passed")
        return
    print(
        f"fine sweep capacity {found} IOPS (first rate most of whose steps failed: {failed}); "
        f"the search's {capacity:.0f} is {100 * (capacity - found) / found:+.1f} % from it"
    )
    half = half_passed({r: v.count("pass") / len(v) for r, v in verdicts.items()}, len(order))
    if half is not None:
        print(
            f"fine sweep, the rate half its steps pass (a logistic fit of every step's "
            f"verdict): {half:.0f} IOPS; the search's {capacity:.0f} is "
            f"{100 * (capacity - half) / half:+.1f} % from it"
        )


def half_passed(passed: dict[int, float], steps: int) -> float | None:
    """The rate at which a step passes half the time: a logistic curve of the rate fitted to
    every step's pass or fail by maximum likelihood. What a bisection's repeats home in on,
    and, unlike the first rate most of whose steps failed, not decided by one unlucky rate."""
    import numpy as np
    from scipy.optimize import minimize
    from scipy.special import expit

    rates = np.array(sorted(passed), dtype=float)
    share = np.array([passed[int(r)] for r in rates])
    n = steps / len(rates)
    mid, scale = float(rates.mean()), float(rates.std()) or 1.0
    x = (rates - mid) / scale

    def nll(p: np.ndarray) -> float:
        q = np.clip(expit(p[0] - p[1] * x), 1e-9, 1 - 1e-9)
        return float(-(n * share * np.log(q) + n * (1 - share) * np.log(1 - q)).sum())

    fit = minimize(nll, np.array([0.0, 1.0]))
    a, b = fit.x
    if not fit.success or b <= 0:
        return None
    return mid + scale * a / b


if __name__ == "__main__":
    main()
