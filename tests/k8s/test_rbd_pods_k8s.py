"""rbd: with --pods on the lab's real Kubernetes (fixture ``k8s_lab``): fio's rbd engine in
two pods, each on an RBD image of its own in a fresh pool of the lab, ceph.conf and the key in
a Secret; the writes reach the lab's OSDs; afterwards no pod, Secret, namespace, image or pool
of cephbench's is left; a bad key is one line."""

from __future__ import annotations

import json
import os
import re
import subprocess

from cephbench.kube.objects import selector
from cephbench.store import Store
from tests.helpers import invoke
from tests.k8s.test_pvc_k8s import image, ours

SMALL = ("--runtime", "1", "--size", "32M")  # the test stays under a minute


def ceph(k8s_lab, *args: str) -> str:
    return subprocess.run(
        ["ceph", *args],
        env={**os.environ, **k8s_lab.lab.env},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout


def client_write_bytes(k8s_lab) -> int:
    """Bytes clients have written to the lab's OSDs (each OSD's ``op_w_in_bytes`` and
    ``op_rw_in_bytes``: counters that only grow, also once the run's pool is deleted)."""
    out = ceph(k8s_lab, "tell", "osd.*", "perf", "dump", "osd")  # "osd.N: {...}" each
    dumps = [json.loads(part) for part in re.split(r"^osd\.\d+: ", out, flags=re.M) if part]
    assert len(dumps) == len(k8s_lab.lab.osds)
    return sum(d["osd"]["op_w_in_bytes"] + d["osd"]["op_rw_in_bytes"] for d in dumps)


def cephbench_pools(k8s_lab) -> list[str]:
    return [p for p in ceph(k8s_lab, "osd", "pool", "ls").split() if p.startswith("cb-")]


def nothing_left(k8s_lab, db) -> None:
    for kind in ("namespaces", "pods", "secrets"):
        assert ours(k8s_lab, kind) == [], kind
    assert cephbench_pools(k8s_lab) == []  # the run's pool went, and its images with it
    with Store(db) as store:
        assert store.open_resources() == []


def test_quick_from_two_pods_with_librbd(k8s, db):
    written = client_write_bytes(k8s)
    invoke("run", "quick", "--target", "rbd:lab", "--pods", "2", "--image", image(k8s),
           *SMALL, db=db)  # fmt: skip
    with Store(db) as store:
        run = store.get_run("last")
        outputs = store.outputs(run.id)
    assert run.status == "complete"
    assert sorted(r.workload for r in run.results) == ["rand_rd", "rand_wr", "seq_rd", "seq_wr"]
    for result in run.results:  # each pod's figures, and their sum
        assert len({c.host for c in result.clients}) == 2
        assert result.total_ios == sum(c.total_ios for c in result.clients) > 0
    for output in outputs:  # each pod its own image: the run's, and IMAGE-p2
        if output["tool"] == "fio":
            text = output["input_text"]
            assert "ioengine=rbd" in text and "pool=cb-" in text
            names = {ln.split("=", 1)[1] for ln in text.splitlines() if ln.startswith("rbdname=")}
            assert len(names) == 2 and {f"{n}-p2" for n in names} & names
    local = subprocess.run(["fio", "--version"], capture_output=True, text=True).stdout.strip()
    assert run.environment["tools"]["fio"] == local  # read in the pod (its image: this fio)
    assert "fio (this machine)" not in run.environment["tools"]
    pods = run.environment["target"]["pods"]
    assert (pods["count"], pods["network"]) == (2, "host")  # the lab's monitors: loopback
    assert "loopback" in pods["reason"]
    prefilled = 2 * 32 * 1024 * 1024  # each image written once before the reads
    wrote = sum(r.io_bytes or 0 for r in run.results if r.op == "write")
    assert wrote > 0
    assert client_write_bytes(k8s) - written >= prefilled + wrote  # the pods' writes landed
    nothing_left(k8s, db)


def test_a_bad_key_is_one_line(k8s, db, tmp_path):
    keyring = tmp_path / "bad.keyring"
    keyring.write_text("[client.admin]\n\tkey = AQBvaXRoaXNpc25vdGFrZXkAAAAAAAAAAAAAAA==\n")
    result = invoke("run", "quick", "--target", "rbd:lab", "--pods", "2", "--keyring", keyring,
                    "--image", image(k8s), *SMALL, db=db, expect=1)  # fmt: skip
    lines = result.output.strip().splitlines()
    assert len(lines) <= 2, result.output  # the error, and its hint
    assert lines[0].startswith("Error: ") and "Traceback" not in result.output
    assert ours(k8s, "namespaces") == [] and cephbench_pools(k8s) == []
    out = subprocess.run(
        [str(k8s.k8s.kubectl), f"--kubeconfig={k8s.k8s.kubeconfig}", "get", "secrets", "-A",
         "-l", selector(), "-o", "name"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert out.strip() == ""
