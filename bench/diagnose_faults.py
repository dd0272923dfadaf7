"""Diagnosis against injected faults on a 3-host lab: N trials each of healthy, a slow disk,
a CPU-starved OSD, a slow link to one host and every link rate-limited; prints the confusion
matrix (injected vs the top finding's layer and component) and the median time per
diagnosis. Goal: the right layer and component in >= 9 of 10 trials of every fault, no
fault finding (nothing above "info") in >= 9 of 10 healthy trials.

    python bench/diagnose_faults.py --trials 10 [--lab-dir DIR] [--full] [--no-osd-bench]

Brings a lab up in DIR (default a temporary directory) and takes it down afterwards.
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

from cephbench.lab import LabSpec, down, faults, up
from cephbench.system.process import run

CASES = [
    ("healthy", [], "none"),
    ("slow disk osd.1", [("slow-disk", "osd.1", {"iops": 150})], "device|osd osd.1"),
    ("cpu osd.2", [("cpu", "osd.2", {"percent": 15})], "osd osd.2"),
    ("slow link host2", [("slow-link", "host2", {"rate": "100mbit"})], "network host2"),
    (
        "all links",
        [("slow-link", f"host{i}", {"rate": "100mbit"}) for i in range(3)],
        "network all links",
    ),
]


def top(doc: dict) -> str:
    """The top finding as "layer component"; "none" when nothing is above info."""
    real = [f for f in doc["findings"] if f["severity"] != "info"]
    return f"{real[0]['layer']} {real[0]['component']}" if real else "none"


def right(expected: str, got: str) -> bool:
    if expected == "none":
        return got == "none"
    layers, component = expected.split(" ", 1)
    layer, _, comp = got.partition(" ")
    return layer in layers.split("|") and comp == component


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--lab-dir")
    ap.add_argument("--full", action="store_true", help="diagnose without --quick")
    ap.add_argument("--no-osd-bench", action="store_true", help="diagnose --no-osd-bench")
    args = ap.parse_args()
    lab_dir = Path(args.lab_dir or tempfile.mkdtemp(prefix="cb-diag-bench-")) / "lab"
    db = lab_dir.parent / "bench.db"
    cb = str(Path(sys.executable).parent / "cephbench")
    env = {"CEPHBENCH_LAB_DIR": str(lab_dir), "CEPHBENCH_DB": str(db)}
    extra = [
        *([] if args.full else ["--quick"]),
        *(["--no-osd-bench"] if args.no_osd_bench else []),
    ]
    matrix: dict[str, Counter] = {name: Counter() for name, _, _ in CASES}
    seconds: list[float] = []
    info = up(LabSpec(dir=lab_dir, hosts=3, osds=3, rate="500mbit"), timeout=240).info
    try:
        for trial in range(args.trials):
            for name, inject, _expected in CASES:
                try:
                    for kind, target, params in inject:
                        faults.inject(info, kind, target, **params)
                    t0 = time.monotonic()
                    argv = [cb, "diagnose", "--format", "json", *extra]
                    out = run(argv, env=env, timeout=600)
                    seconds.append(time.monotonic() - t0)
                    got = top(json.loads(out.stdout)) if out.returncode == 0 else "error"
                    if out.returncode != 0:
                        print(out.stderr.strip().splitlines()[-1:], flush=True)
                finally:
                    faults.clear(info)
                matrix[name][got] += 1
                print(f"trial {trial + 1} {name}: {got} ({seconds[-1]:.1f} s)", flush=True)
    finally:
        down(lab_dir, purge=True)
    print()
    print("| injected | top finding (count) | right |")
    print("|---|---|---:|")
    for name, _, expected in CASES:
        ok = sum(n for got, n in matrix[name].items() if right(expected, got))
        cells = ", ".join(f"{got}: {n}" for got, n in matrix[name].most_common())
        print(f"| {name} | {cells} | {ok}/{sum(matrix[name].values())} |")
    print(f"\nmedian time per diagnosis: {statistics.median(seconds):.1f} s over {len(seconds)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
