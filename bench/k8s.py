"""fio in Kubernetes pods, cephbench's way and by hand, side by side: for 1 and 3 pods, the time
from starting to fio's first I/O, the overhead (wall time minus fio's runtime) and how far
apart the pods started. Goals: cephbench's overhead no more than the by-hand way's; 3 pods
starting within 100 ms of each other.

    KUBECONFIG=... .venv/bin/python bench/k8s.py [--storage-class C] [--image I] [--runtime S]
                                                [--trials N]

The by-hand way is the Rook write-up's: ``kubectl apply`` a claim and an idle pod each,
``kubectl wait`` for the pods, ``kubectl exec`` fio in each (all at once), ``kubectl delete``
(waiting, as the next run would). cephbench's: ``cephbench run JOBFILE --target pvc:CLASS
--pods N`` (the same fio job, a random write so that neither side prefills). fio's first I/O
on both sides is its report time minus its job's runtime (``timestamp_ms - job_runtime``),
read from fio's JSON in each pod; the start spread is its range over the pods.
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

CEPHBENCH = [sys.executable, "-c", "from cephbench.console import main; main()"]
JOB = """[global]
ioengine=libaio
direct=1
bs=4k
iodepth=16
size=64M
time_based=1
runtime={runtime}

[randwrite]
rw=randwrite
"""


def default_image() -> str:
    from cephbench.kube.image import FIO_IMAGE  # the lab's image (kube/image.py)

    out = subprocess.run(["fio", "--version"], capture_output=True, text=True, check=True)
    return f"{FIO_IMAGE}:{out.stdout.strip().removeprefix('fio-')}"


def starts(doc: dict, pods_key: str = "cephbench pods") -> list[float]:
    """Each pod's first I/O (seconds since the epoch): report time minus the job's runtime."""
    stamp = {p["host"]: p["timestamp_ms"] for p in doc.get(pods_key, [])}
    return [
        (stamp[e["hostname"]] - e["job_runtime"]) / 1000.0
        for e in doc["client_stats"]
        if e["hostname"] in stamp
    ]


def cephbench_way(db: Path, job: Path, sc: str, image: str, pods: int) -> dict:
    from cephbench.store import Store

    t0 = time.time()
    done = subprocess.run(
        [*CEPHBENCH, "run", str(job), "--target", f"pvc:{sc}", "--pods", str(pods),
         "--image", image],
        env={**os.environ, "CEPHBENCH_DB": str(db)}, capture_output=True, text=True,
    )  # fmt: skip
    wall = time.time() - t0
    if done.returncode != 0:
        raise SystemExit(f"cephbench run failed: {done.stderr.strip()}")
    with Store(db) as store:
        run = store.get_run("last")
        [out] = [o for o in store.outputs(run.id) if o["tool"] == "fio"]
    doc = json.loads(out["stdout"])
    first = starts(doc)
    runtime = max(r.runtime_s or 0.0 for r in run.results)
    skew = dict(run.results[0].metrics).get("start_skew_ms")
    return {"first_io_s": min(first) - t0, "wall_s": wall, "overhead_s": wall - runtime,
            "spread_ms": (max(first) - min(first)) * 1000, "gate_skew_ms": skew}  # fmt: skip


def kubectl(*args: str, stdin: str | None = None) -> str:
    return subprocess.run(
        ["kubectl", *args], input=stdin, capture_output=True, text=True, check=True
    ).stdout


def by_hand(sc: str, image: str, pods: int, job: str) -> dict:
    ns = f"byhand-{os.getpid()}-{pods}"
    items = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}]
    for i in range(pods):
        items.append({
            "apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": f"fio-{i}", "namespace": ns},
            "spec": {"storageClassName": sc, "accessModes": ["ReadWriteOnce"],
                     "resources": {"requests": {"storage": "256Mi"}}},
        })  # fmt: skip
        items.append({
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"fio-{i}", "namespace": ns},
            "spec": {"terminationGracePeriodSeconds": 1, "containers": [{
                "name": "fio", "image": image, "imagePullPolicy": "IfNotPresent",
                "command": ["sleep", "infinity"],
                "volumeMounts": [{"name": "d", "mountPath": "/data"}]}],
                "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": f"fio-{i}"}}]},
        })  # fmt: skip
    t0 = time.time()
    try:
        kubectl("apply", "-f", "-", stdin=json.dumps({"apiVersion": "v1", "kind": "List",
                                                       "items": items}))  # fmt: skip
        kubectl("wait", "-n", ns, "--for=condition=Ready", "pod", "--all", "--timeout=300s")
        argv = [
            "sh",
            "-c",
            "cat > /tmp/job.fio && cd /data && fio --output-format=json /tmp/job.fio",
        ]
        procs = [
            subprocess.Popen(["kubectl", "exec", "-i", "-n", ns, f"fio-{i}", "--", *argv],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            for i in range(pods)
        ]  # fmt: skip
        outs = [p.communicate(job)[0] for p in procs]
    finally:
        kubectl("delete", "namespace", ns, "--wait=true", "--timeout=300s")
    wall = time.time() - t0
    docs = [json.loads(o[o.index("{") :]) for o in outs]
    first = [(d["timestamp_ms"] - d["jobs"][0]["job_runtime"]) / 1000.0 for d in docs]
    runtime = max(d["jobs"][0]["job_runtime"] for d in docs) / 1000.0
    return {"first_io_s": min(first) - t0, "wall_s": wall, "overhead_s": wall - runtime,
            "spread_ms": (max(first) - min(first)) * 1000, "gate_skew_ms": None}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--storage-class", default="cephbench-lab")
    ap.add_argument("--image", default=None)
    ap.add_argument("--runtime", default="5")
    ap.add_argument("--trials", type=int, default=1, help="each way this many times, in turn")
    args = ap.parse_args()
    image = args.image or default_image()
    print(f"{'pods':>4} {'way':<9} {'first I/O s':>11} {'wall s':>7} {'overhead s':>10} "
          f"{'spread ms':>9} {'gate skew ms':>12}")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        job = Path(tmp) / "bench.fio"
        job.write_text(JOB.format(runtime=args.runtime))
        for pods in (1, 3):
            rows: dict[str, list[dict]] = {"cephbench": [], "by hand": []}
            for _ in range(args.trials):  # the two ways in turn: a drift reaches both alike
                rows["cephbench"].append(
                    cephbench_way(Path(tmp) / "r.db", job, args.storage_class, image, pods)
                )
                rows["by hand"].append(by_hand(args.storage_class, image, pods, job.read_text()))
            for way, got in rows.items():
                for r in got:
                    print(row(pods, way, r))
                if args.trials > 1:
                    print(row(pods, f"{way[:2]} median", median_of(got)))


def median_of(rows: list[dict]) -> dict:
    """Each figure's median over the trials (None where a trial had none)."""
    out = {}
    for key in rows[0]:
        values = [r[key] for r in rows if r[key] is not None]
        out[key] = statistics.median(values) if values else None
    return out


def row(pods: int, way: str, r: dict) -> str:
    skew = "-" if r["gate_skew_ms"] is None else f"{r['gate_skew_ms']:.1f}"
    return (f"{pods:>4} {way:<9} {r['first_io_s']:>11.2f} {r['wall_s']:>7.2f} "
            f"{r['overhead_s']:>10.2f} {r['spread_ms']:>9.1f} {skew:>12}")  # fmt: skip


if __name__ == "__main__":
    main()
