"""Benchmark: how long ``cephbench lab up`` takes to HEALTH_OK, and ``lab down`` to nothing.

    .venv/bin/python bench/lab_up.py [--rounds 3] [--osds 3] [--hosts 1] [--store bluestore]
    .venv/bin/python bench/lab_up.py --cephfs   # with an MDS and a filesystem: goal <= +5 s

Each round brings a lab up in a temporary directory and takes it down; prints min, median
and max of both. Goals on a 2-core machine with 3 OSDs: up <= 10 s, down <= 2 s.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from cephbench.lab import LabSpec, down, up


def one_round(spec: LabSpec) -> tuple[float, float]:
    """Seconds for up (to HEALTH_OK, all PGs active+clean) and for down."""
    try:
        started = time.monotonic()
        up(spec, timeout=300)
        up_seconds = time.monotonic() - started
        started = time.monotonic()
        down(spec.dir, purge=True)
        return up_seconds, time.monotonic() - started
    finally:
        down(spec.dir, purge=True)  # after a failure; a no-op otherwise


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--osds", type=int, default=3)
    parser.add_argument("--hosts", type=int, default=1)
    parser.add_argument("--store", choices=["bluestore", "memstore"], default="bluestore")
    parser.add_argument("--osd-size", default="8G")
    parser.add_argument("--cephfs", action="store_true", help="lab up --cephfs")
    args = parser.parse_args()
    ups, downs = [], []
    with tempfile.TemporaryDirectory(prefix="cephbench-lab-bench-") as tmp:
        for i in range(args.rounds):
            spec = LabSpec(
                dir=Path(tmp) / f"lab{i}",
                osds=args.osds,
                hosts=args.hosts,
                store=args.store,
                osd_size=args.osd_size,
                cephfs=args.cephfs,
            )
            up_s, down_s = one_round(spec)
            ups.append(up_s)
            downs.append(down_s)
            print(f"round {i + 1}: up {up_s:.2f} s, down {down_s:.2f} s", flush=True)
    fs = ", cephfs" if args.cephfs else ""
    print(
        f"lab up ({args.osds} OSDs, {args.hosts} host(s), {args.store}{fs}), {args.rounds} rounds:"
    )
    for name, values in (("up to HEALTH_OK", ups), ("down", downs)):
        print(
            f"  {name:16} min {min(values):5.2f} s  median {statistics.median(values):5.2f} s"
            f"  max {max(values):5.2f} s"
        )


if __name__ == "__main__":
    main()
