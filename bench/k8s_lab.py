"""Benchmark: ``cephbench lab up --k8s`` from cached binaries to a usable StorageClass, the
memory the idle cluster holds, and ``lab down``.

    .venv/bin/python bench/k8s_lab.py [--rounds 2]

Each round brings a one-host lab with Kubernetes up in a temporary directory (the Kubernetes
binaries must be cached: ``cephbench lab build-k8s``), waits for a first claim of the
``cephbench-lab`` class to be bound (the class is usable), reads the RSS of every daemon of
the cluster once it idles, and takes the lab down. Goal on a 2-core machine: up to a usable
StorageClass under 20 s (the Ceph part included); the idle cluster about 630 MiB.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from cephbench.lab import LabSpec, down, k8s_build, up
from cephbench.lab.daemons import rss_mib
from cephbench.lab.k8s_conf import K8sLayout
from cephbench.lab.paths import Layout
from cephbench.lab.state import load
from cephbench.system.process import run

CLAIM = {
    "apiVersion": "v1",
    "kind": "PersistentVolumeClaim",
    "metadata": {"name": "bench"},
    "spec": {
        "storageClassName": "cephbench-lab",
        "accessModes": ["ReadWriteOnce"],
        "resources": {"requests": {"storage": "64Mi"}},
    },
}


def one_round(lab_dir: Path) -> dict[str, float]:
    try:
        started = time.monotonic()
        result = up(LabSpec(dir=lab_dir, k8s=True, osd_size="4G"), timeout=300)
        up_s = time.monotonic() - started
        k = result.info.k8s
        assert k is not None
        kubectl = [str(k.kubectl), "--kubeconfig", str(k.kubeconfig)]
        run([*kubectl, "apply", "-f", "-"], stdin=json.dumps(CLAIM), timeout=60, check=True)
        while True:
            phase = run([*kubectl, "get", "pvc", "bench", "-o", "jsonpath={.status.phase}"],
                        timeout=60).stdout  # fmt: skip
            if phase == "Bound" or time.monotonic() - started > 300:
                break
            time.sleep(0.1)
        bound_s = time.monotonic() - started
        run([*kubectl, "delete", "pvc", "bench", "--wait=true"], timeout=120)
        time.sleep(10)  # let the cluster idle before reading its memory
        state = load(Layout(lab_dir))
        assert state is not None and state.k8s is not None
        rss = {n: rss_mib(p) or 0.0 for n, p in state.k8s.daemons.items()}
        print("  RSS MiB: " + ", ".join(f"{n} {v:.0f}" for n, v in rss.items()), flush=True)
        assert K8sLayout(lab_dir).root.exists()
        started = time.monotonic()
        down(lab_dir, purge=True)
        return {
            "up": up_s,
            "usable": bound_s,
            "k8s_part": state.k8s.ready_seconds or 0.0,
            "rss": sum(rss.values()),
            "down": time.monotonic() - started,
        }
    finally:
        down(lab_dir, purge=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    if k8s_build.missing():
        raise SystemExit("build the Kubernetes binaries first: cephbench lab build-k8s")
    rounds = []
    with tempfile.TemporaryDirectory(prefix="cephbench-k8s-bench-", dir="/var/tmp") as tmp:
        for i in range(args.rounds):
            r = one_round(Path(tmp) / f"lab{i}")
            rounds.append(r)
            print(
                f"round {i + 1}: up {r['up']:.1f} s (Kubernetes part {r['k8s_part']:.1f} s), "
                f"first claim bound at {r['usable']:.1f} s, idle cluster {r['rss']:.0f} MiB RSS, "
                f"down {r['down']:.1f} s",
                flush=True,
            )
    print(f"lab up --k8s from cached binaries, {args.rounds} rounds:")
    labels = {
        "up": "up (Ceph + Kubernetes)",
        "usable": "StorageClass usable",
        "rss": "idle cluster MiB",
        "down": "down",
    }
    for key, label in labels.items():
        values = [r[key] for r in rounds]
        print(
            f"  {label:24} min {min(values):7.1f}  median {statistics.median(values):7.1f}"
            f"  max {max(values):7.1f}"
        )


if __name__ == "__main__":
    main()
