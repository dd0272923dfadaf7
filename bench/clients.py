"""fio from 1, 2 and 3 clients of the lab at once (``--clients``): aggregate IOPS of the quick
suite, and how far apart the clients started (the start skew fio's jobs measured; goal: under
100 ms).

    CEPHBENCH_LAB_DIR=/tmp/lab-x .venv/bin/python bench/clients.py [--runtime S]

Needs a lab with ``--hosts 3 --ssh`` (``cephbench lab up --hosts 3 --osds 3 --ssh``); each
client count runs the quick suite on ``rbd:lab`` (a fresh pool, an image per client) from the
first N hosts of the lab's inventory, into a scratch result store.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

CEPHBENCH = str(Path(sys.executable).with_name("cephbench"))


def lab_dir() -> Path:
    d = os.environ.get("CEPHBENCH_LAB_DIR")
    if not d or not (Path(d) / "inventory.yaml").exists():
        raise SystemExit("set CEPHBENCH_LAB_DIR to a lab started with --hosts 3 --ssh")
    return Path(d)


def run(db: Path, inventory: Path, runtime: str) -> dict:
    env = {**os.environ, "CEPHBENCH_DB": str(db)}
    argv = [CEPHBENCH, "run", "quick", "--clients", str(inventory), "--runtime", runtime]
    done = subprocess.run(argv, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"cephbench run failed: {done.stderr.strip().splitlines()[-1:]}")
    shown = subprocess.run(
        [CEPHBENCH, "show", "last", "--format", "json"], env=env, capture_output=True, text=True
    )
    return json.loads(shown.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runtime", default="5")
    args = ap.parse_args()
    inventory = yaml.safe_load((lab_dir() / "inventory.yaml").read_text())
    print(f"{'clients':>7} {'workload':<9} {'IOPS':>9} {'per client':<28} {'skew ms':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "results.db"
        for n in (1, 2, 3):
            subset = Path(tmp) / f"clients{n}.yaml"
            subset.write_text(yaml.safe_dump({**inventory, "hosts": inventory["hosts"][:n]}))
            doc = run(db, subset, args.runtime)
            for r in doc["results"]:
                per = " ".join(f"{c['iops']:.0f}" for c in r.get("clients", []))
                skew = r.get("metrics", {}).get("start_skew_ms")
                shown = "-" if skew is None else f"{skew:.0f}"
                print(f"{n:>7} {r['workload']:<9} {r['iops']:>9.0f} {per:<28} {shown:>8}")


if __name__ == "__main__":
    main()
