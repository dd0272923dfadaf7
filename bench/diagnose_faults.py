"""Diagnosis and explain against injected faults on a 3-host lab: N trials each of healthy, a
slow disk, a CPU-starved OSD, a slow link to one host, every link rate-limited, two faults of
different layers at once (a slow disk and a slow link), two of different kinds in two OSDs (a
slow disk and another OSD's starved CPU: ``cpu+disk``), random reads under a slow disk
(``disk-reads``) and most OSDs slow (two slow disks of three). Prints the confusion matrix of the fault injected against the findings above info
(the top one, or every injected part found for two faults), and against the limiting part
`explain` names for a 1M sequential write (QD16) and a 4k random write (QD32) run made under
the fault; the healthy lab's efficiencies; every result above its ceiling; the median time
per diagnosis. Goal: the right layer and component in >= 9 of 10 trials of every fault, no
finding above info in >= 9 of 10 healthy trials, no result above its ceiling by over 10 %.

    python bench/diagnose_faults.py --trials 10 [--lab-dir DIR] [--full] [--no-osd-bench]
                                    [--no-explain] [--cases healthy,slow-disk,...]
                                    [--existing LAB_DIR] [--release reef|tentacle]

``--release`` brings the lab up on that Ceph release (its root built first if missing) and
adds the ``mclock`` case (osd.1's mClock misconfigured: ``lab fault mclock``), e.g. 5 trials
of healthy, a slow disk and mClock: ``--release tentacle --trials 5 --cases
healthy,slow-disk,mclock``.

Brings a lab up in DIR (default a temporary directory) and takes it down afterwards; or uses
the 3-host lab already running in LAB_DIR (`lab up --hosts 3 --ssh --rate 500mbit`).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from cephbench.lab import LabInfo, LabSpec, down, faults, up
from cephbench.system.process import run

SLOW_DISK = {"iops": 150}
CASES = [
    # name, faults, what the findings should name, what explain's limiting part should name
    ("healthy", [], ["none"], None),
    ("slow-disk", [("slow-disk", "osd.1", SLOW_DISK)], ["device|osd osd.1"], ["osd.1"]),
    ("cpu", [("cpu", "osd.2", {"percent": 15})], ["osd osd.2"], ["osd.2"]),
    ("slow-link", [("slow-link", "host2", {"rate": "100mbit"})], ["network host2"], ["host2"]),
    (
        "all-links",
        [("slow-link", f"host{i}", {"rate": "100mbit"}) for i in range(3)],
        ["network all links"],
        ["link"],
    ),
    (
        "disk+link",
        [("slow-disk", "osd.1", SLOW_DISK), ("slow-link", "host2", {"rate": "100mbit"})],
        ["device|osd osd.1", "network host2"],
        ["osd.1", "host2"],
    ),
    (
        "most-disks",
        [("slow-disk", "osd.1", SLOW_DISK), ("slow-disk", "osd.2", SLOW_DISK)],
        ["device|osd osd.1", "device|osd osd.2"],
        ["osd.1", "osd.2"],
    ),
    # two faults of different kinds in two OSDs: the slow disk must not hide the starved CPU
    (
        "cpu+disk",
        [("slow-disk", "osd.1", SLOW_DISK), ("cpu", "osd.2", {"percent": 15})],
        ["device|osd osd.1", "osd osd.2"],
        ["osd.1", "osd.2"],
    ),
    # random reads under a slow disk (explain runs READ_JOBS on a prefilled image)
    ("disk-reads", [("slow-disk", "osd.1", SLOW_DISK)], ["device|osd osd.1"], ["osd.1"]),
    # Reef and later (--release): clients held to 100 small ops a second on osd.1 by its
    # mClock; its writes go through librbd's cache (not modelled by explain), so its reads too
    ("mclock", [("mclock", "osd.1", {})], ["osd osd.1"], ["osd.1"]),
    ("mclock-reads", [("mclock", "osd.1", {})], ["osd osd.1"], ["osd.1"]),
]

JOBS = """\
[seq_wr_1m]
rw=write
bs=1M
iodepth=16
time_based=1
runtime=6
stonewall

[rand_wr_4k]
rw=randwrite
bs=4k
iodepth=32
time_based=1
runtime=6
stonewall
"""
"""The 1M writes first: under a slow disk BlueStore takes the 4k writes' first second at full
speed (deferred, into its WAL) and drains them at the disk's throttled rate afterwards, so a
workload after them would be measured during that drain and charged the CPU it costs."""
READ_JOBS = """\
[rand_rd_4k]
rw=randread
bs=4k
iodepth=32
time_based=1
runtime=6
"""
"""Random reads for the ``disk-reads`` case, on an image prefilled first: reads of objects
never written are answered without touching a device."""
READ_CASES = {"disk-reads", "mclock-reads"}


def above_info(doc: dict) -> list[str]:
    return [f"{f['layer']} {f['component']}" for f in doc["findings"] if f["severity"] != "info"]


def found(expected: list[str], got: list[str]) -> bool:
    """Whether the findings name what was injected: nothing for a healthy lab; the top
    finding for one fault; every injected part among the findings for several."""
    if expected == ["none"]:
        return not got
    if not got:
        return False

    def match(exp: str, g: str) -> bool:
        layers, component = exp.split(" ", 1)
        layer, _, comp = g.partition(" ")
        return layer in layers.split("|") and comp == component

    if len(expected) == 1:
        return match(expected[0], got[0])
    return all(any(match(e, g) for g in got) for e in expected)


def cell(got: list[str]) -> str:
    return " + ".join(got[:3]) if got else "none"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--lab-dir")
    ap.add_argument("--full", action="store_true", help="diagnose without --quick")
    ap.add_argument("--no-osd-bench", action="store_true", help="diagnose --no-osd-bench")
    ap.add_argument("--no-explain", action="store_true", help="no runs under the faults")
    ap.add_argument("--cases", help="comma-separated case names (default: all)")
    ap.add_argument("--existing", help="a running 3-host lab's directory (left running)")
    ap.add_argument("--release", choices=["pacific", "reef", "tentacle"], default="pacific")
    ap.add_argument(
        "--no-client-cache",
        action="store_true",
        help="the runs under the faults with librbd's cache off (CEPH_ARGS=--rbd_cache=false): "
        "their figures are then the cluster's alone",
    )
    args = ap.parse_args()
    cases = [c for c in CASES if not args.cases or c[0] in args.cases.split(",")]
    if args.release == "pacific":  # Pacific's OSDs run wpq: no mClock to misconfigure
        cases = [c for c in cases if not c[0].startswith("mclock")]
    if args.existing:
        lab_dir = Path(args.existing)
        work = Path(tempfile.mkdtemp(prefix="cb-diag-bench-"))
    else:
        lab_dir = Path(args.lab_dir or tempfile.mkdtemp(prefix="cb-diag-bench-")) / "lab"
        work = lab_dir.parent
    db = work / "bench.db"
    jobs = work / "explain-jobs.fio"
    cb = str(Path(sys.executable).parent / "cephbench")
    env = {"CEPHBENCH_LAB_DIR": str(lab_dir), "CEPHBENCH_DB": str(db)}
    extra = [
        *([] if args.full else ["--quick"]),
        *(["--no-osd-bench"] if args.no_osd_bench else []),
    ]
    findings: dict[str, Counter] = {c[0]: Counter() for c in cases}
    limits: dict[str, Counter] = {c[0]: Counter() for c in cases}
    right_f: Counter = Counter()
    right_l: Counter = Counter()
    seconds: list[float] = []
    case_seconds: dict[str, list[float]] = {c[0]: [] for c in cases}
    efficiencies: dict[str, list[float]] = {}
    defects: list[str] = []
    above: list[str] = []
    info: LabInfo | Path = lab_dir
    if not args.existing:
        spec = LabSpec(dir=lab_dir, hosts=3, osds=3, rate="500mbit", ssh=True, release=args.release)
        info = up(spec, timeout=240).info
    jobs.write_text(JOBS)
    read_jobs = work / "explain-reads.fio"
    read_jobs.write_text(READ_JOBS)
    print(f"store: {db}", flush=True)
    try:
        for trial in range(args.trials):
            for name, inject, expected, limiting in cases:
                lims: list[str] = []
                try:
                    for kind, target, params in inject:
                        faults.inject(info, kind, target, **params)
                    t0 = time.monotonic()
                    out = run([cb, "diagnose", "--format", "json", *extra], env=env, timeout=600)
                    seconds.append(time.monotonic() - t0)
                    case_seconds[name].append(seconds[-1])
                    if out.returncode != 0:
                        print(out.stderr.strip().splitlines()[-1:], flush=True)
                        got = ["error"]
                    else:
                        doc = json.loads(out.stdout)
                        got = above_info(doc)
                        if not args.no_explain:
                            lims = explain_under(
                                cb,
                                {**env, "CEPH_ARGS": "--rbd_cache=false"}
                                if args.no_client_cache
                                else env,
                                read_jobs if name in READ_CASES else jobs,
                                doc["run"],
                                name,
                                efficiencies,
                                (above, defects),
                            )
                finally:
                    faults.clear(info)
                findings[name][cell(got)] += 1
                right_f[name] += found(expected, got)
                if limiting is not None:
                    for lim in lims:
                        limits[name][lim] += 1
                    right_l[name] += sum(any(k in lim for k in limiting) for lim in lims)
                print(
                    f"trial {trial + 1} {name}: {cell(got)}; limits {lims} ({seconds[-1]:.1f} s)",
                    flush=True,
                )
    finally:
        if not args.existing:
            down(lab_dir, purge=True)
    print()
    print(
        "| injected | findings above info (count) | right | explain's limiting part, 4k randwrite and 1M write (count) | right |"
    )
    print("|---|---|---:|---|---:|")
    for name, _, _, limiting in cases:
        n = sum(findings[name].values())
        cells = ", ".join(f"{g}: {k}" for g, k in findings[name].most_common())
        lim = ", ".join(f"{g}: {k}" for g, k in limits[name].most_common()) or "-"
        nl = sum(limits[name].values())
        ok_l = f"{right_l[name]}/{nl}" if limiting is not None and nl else "-"
        print(f"| {name} | {cells} | {right_f[name]}/{n} | {lim} | {ok_l} |")
    if efficiencies:
        print("\nhealthy lab, efficiency (measured / ceiling) per workload:")
        for w, effs in efficiencies.items():
            print(f"  {w}: median {statistics.median(effs):.0%}, {min(effs):.0%}-{max(effs):.0%}")
    print(f"\nresults above the cluster's ceiling by > 10 %: {len(above)}")
    for d in above:
        print(f"  {d}")
    print(f"of them above it and what the client's cache completes early (defects): {len(defects)}")
    print(f"median time per diagnosis: {statistics.median(seconds):.1f} s over {len(seconds)}")
    for name, times in case_seconds.items():  # a slow part should make it shorter, not longer
        if times:
            print(
                f"  {name}: median {statistics.median(times):.1f} s ({min(times):.1f}-{max(times):.1f})"
            )
    return 0


def explain_under(
    cb: str,
    env: dict[str, str],
    jobs: Path,
    diag: int,
    case: str,
    efficiencies: dict[str, list[float]],
    out_of_bounds: tuple[list[str], list[str]],
) -> list[str]:
    """A 4k random write and a 1M write (random reads on a prefilled image: READ_JOBS) run under the fault, explained by the diagnosis made
    under it: the limiting part of each."""
    reads = jobs.name == "explain-reads.fio"
    size = ["--size", "64M"] if reads else ["--size", "256M", "--no-prefill"]
    out = run(
        [cb, "run", str(jobs), *size, "--format", "json"],
        env=env,
        timeout=600,
    )
    if out.returncode != 0:
        print(out.stderr.strip().splitlines()[-1:], flush=True)
        return ["run failed"]
    run_id = json.loads(out.stdout)["id"]
    out = run(
        [cb, "explain", str(run_id), "--diagnosis", str(diag), "--format", "json"],
        env=env,
        timeout=120,
    )
    if out.returncode != 0:
        print(out.stderr.strip().splitlines()[-1:], flush=True)
        return ["explain failed"]
    doc = json.loads(out.stdout)
    lims = []
    for w in doc["workloads"]:
        lims.append(f"{w['workload']}: {w['limiting_part']}")
        above, defects = out_of_bounds
        if w["above_ceiling"]:
            above.append(f"{case}: {w['line']}")
        if w["model_defect"]:
            defects.append(f"{case}: {w['line']}")
        if case == "healthy" and w["efficiency"] is not None:
            efficiencies.setdefault(w["workload"], []).append(w["efficiency"])
    return lims


if __name__ == "__main__":
    sys.exit(main())
