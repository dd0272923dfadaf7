"""The pvc: target on the lab's real Kubernetes (fixture ``k8s_lab``: a single node beside the
lab's Ceph, StorageClass backed by the lab's pool): the four-workload table from pods, many
pods with an exact aggregate, Block mode, an existing claim, and every error a user meets.
After each run nothing cephbench made is left in Kubernetes, Ceph or the store."""

from __future__ import annotations

import json
import math
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cephbench.kube.check import NEEDS
from cephbench.kube.objects import selector
from cephbench.store import Store
from cephbench.tools.fio import parse as fio_parse
from tests.helpers import invoke, wait_for

CEPHBENCH = [sys.executable, "-c", "from cephbench.console import main; main()"]
SMALL = ("--runtime", "2", "--size", "32M")


def image(k8s_lab) -> str:
    """The fio image the lab imported into its node."""
    return k8s_lab.k8s.fio_image or _fio_image()


def _fio_image() -> str:
    """kube/image.py's name for the fio image of this machine's fio."""
    from cephbench.kube.image import FIO_IMAGE

    out = subprocess.run(["fio", "--version"], capture_output=True, text=True, check=True)
    return f"{FIO_IMAGE}:{out.stdout.strip().removeprefix('fio-')}"


def kubectl(k8s_lab, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    info = k8s_lab.k8s
    return subprocess.run(
        [str(info.kubectl), f"--kubeconfig={info.kubeconfig}", *args],
        capture_output=True,
        text=True,
        check=check,
    )


def ours(k8s_lab, kind: str) -> list[str]:
    out = kubectl(k8s_lab, "get", kind, "-A", "-l", selector(), "-o", "json").stdout
    return [i["metadata"]["name"] for i in json.loads(out)["items"]]


def pool_written(k8s_lab) -> int:
    """Bytes ever written to the class's pool (``rados df``: it keeps counting after the
    run's RBD images are deleted with their claims)."""
    out = subprocess.run(
        ["rados", "df", "-f", "json"],
        env={**os.environ, **k8s_lab.lab.env},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    [pool] = [p for p in json.loads(out)["pools"] if p["name"] == k8s_lab.k8s.pool]
    return int(pool["write_bytes"])


def volumes(k8s_lab) -> list[str]:
    out = kubectl(k8s_lab, "get", "pv", "-o", "json").stdout
    return [
        i["metadata"]["name"]
        for i in json.loads(out)["items"]
        if i["spec"].get("storageClassName") == k8s_lab.k8s.storage_class
    ]


def nothing_left(k8s_lab, db: Path, pvs_before: list[str]) -> None:
    assert ours(k8s_lab, "namespaces") == []
    assert ours(k8s_lab, "pods") == [] and ours(k8s_lab, "pvc") == []
    wait_for(lambda: sorted(volumes(k8s_lab)) == sorted(pvs_before), "the run's PVs to go", 120)
    with Store(db) as store:
        assert store.open_resources() == []


def test_table_on_a_pvc_is_fio_in_the_pod_on_ceph(k8s, db):
    sc, before, written = k8s.k8s.storage_class, volumes(k8s), pool_written(k8s)
    invoke("run", "table", "--target", f"pvc:{sc}", "--image", image(k8s), *SMALL, db=db)
    with Store(db) as store:
        run = store.get_run("last")
        outputs = store.outputs(run.id)
        ceph_fp = store.fingerprint(run.id)
        health = store.series(run.id, "health")
    assert run.status == "complete"
    assert sorted({r.workload for r in run.results}) == sorted(
        ["seq_rd_1m", "seq_wr_1m", "rand_rd_4k", "rand_rw_4k"]
    )
    # the lab's class: the Ceph cluster behind it fingerprinted, its health sampled
    assert ceph_fp is not None and ceph_fp[0]["status"]["fsid"]
    [samples] = health
    assert any(str(s.get("health")).startswith("HEALTH_") for s in samples.values)
    for result in run.results:  # the stored figures are fio's in the pod, exactly
        [client] = result.clients
        assert re.fullmatch(rf"cephbench-{run.id}-[0-9a-f]{{4}}-fio-0@{k8s.k8s.node}", client.host)
        [output] = [o for o in outputs if o["tool"] == "fio" and result.workload in o["stdout"]]
        entries = json.loads(output["stdout"])["client_stats"]
        [mine] = [e for e in entries if e["jobname"] == result.workload]
        own = {"fio version": "x", "jobs": [{k: v for k, v in mine.items()
                                               if k not in ("hostname", "port")}]}  # fmt: skip
        [job] = fio_parse.parse(json.dumps(own))
        [same] = [r for r in job.results if r.op == result.op]
        assert (client.iops, client.total_ios, client.bw_bytes_per_s) == (
            same.iops, same.total_ios, same.bw_bytes_per_s,
        )  # fmt: skip
    assert run.environment["target"]["storage_class"]["name"] == sc
    assert run.environment["target"]["kubernetes"].startswith("v1.")
    [fingerprint] = [o for o in outputs if o["tool"] == "k8s-volumes"]
    volumes_seen = json.loads(fingerprint["stdout"])
    assert volumes_seen["fio_version"].startswith("fio-")
    assert run.environment["tools"]["fio"] == volumes_seen["fio_version"]  # the pod's fio
    [volume] = volumes_seen["volumes"]  # its RBD image, as the lab's Ceph has it
    assert volume["rbd"]["pool"] == k8s.k8s.pool and volume["rbd"]["found"] is True
    assert volume["rbd"]["size"] > 0 and volume["rbd"]["image"] == volume["volume"]
    wrote = sum(r.io_bytes or 0 for r in run.results if r.op == "write")
    assert pool_written(k8s) - written >= wrote  # the pods' writes reached the lab's OSDs
    nothing_left(k8s, db, before)


def test_three_pods_sum_to_the_aggregate_exactly(k8s, db):
    before = volumes(k8s)
    invoke("run", "quick", "--target", f"pvc:{k8s.k8s.storage_class}", "--pods", "3",
           "--image", image(k8s), *SMALL, db=db)  # fmt: skip
    with Store(db) as store:
        run = store.get_run("last")
    assert run.results
    for r in run.results:
        assert len(r.clients) == 3
        assert len({c.host for c in r.clients}) == 3
        assert r.iops == math.fsum(c.iops for c in r.clients)
        assert r.total_ios == sum(c.total_ios for c in r.clients)
        skew = dict(r.metrics).get("start_skew_ms")
        assert skew is not None and skew >= 0
    with Store(db) as store:  # fio's logs, taken out of the three pods, as one series
        for r in run.results:
            [iops] = [s for s in store.series(run.id, "iops")
                      if s.workload == r.workload and s.op == r.op]  # fmt: skip
            assert len(iops.values) >= 3 and (iops.values >= 0).all()
            # no I/O counted twice: the I/Os under the summed IOPS are at most the pods' I/Os
            # (fewer: an averaged log leaves out the I/Os that complete after the runtime, at
            # QD256 a good part of them; tests/fio/test_pod_logs.py checks the sum exactly)
            window = np.diff(np.concatenate(([0.0], iops.t_s)))
            logged = float((iops.values * window).sum())
            assert 0 < logged <= 1.1 * r.total_ios
    nothing_left(k8s, db, before)


def test_block_mode(k8s, db):
    before = volumes(k8s)
    invoke("run", "quick", "--target", f"pvc:{k8s.k8s.storage_class}", "--volume-mode", "Block",
           "--image", image(k8s), *SMALL, db=db)  # fmt: skip
    with Store(db) as store:
        run = store.get_run("last")
        outputs = store.outputs(run.id)
    assert run.status == "complete"
    assert all("/dev/cephbench" in (o["input_text"] or "") for o in outputs if o["tool"] == "fio")
    nothing_left(k8s, db, before)


def claim_of(name: str, storage_class: str, size: str) -> dict:
    """A user's claim ``name`` in namespace default, ``size`` of ``storage_class``."""
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "storageClassName": storage_class,
            "accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": size}},
        },
    }


def test_an_existing_claim_is_used_and_survives(k8s, db):
    claim = claim_of("users-claim", k8s.k8s.storage_class, "256Mi")
    subprocess.run(
        [str(k8s.k8s.kubectl), f"--kubeconfig={k8s.k8s.kubeconfig}", "create", "-f", "-"],
        input=json.dumps(claim), text=True, check=True, capture_output=True,
    )  # fmt: skip
    try:
        invoke("run", "quick", "--target", "pvc:claim/users-claim", "--namespace", "default",
               "--image", image(k8s), *SMALL, db=db)  # fmt: skip
        kubectl(k8s, "get", "pvc", "users-claim", "-n", "default")  # still there
        assert ours(k8s, "pods") == []
    finally:
        kubectl(k8s, "delete", "pvc", "users-claim", "-n", "default", "--wait=true", check=False)


def test_an_unknown_class_lists_those_there_are(k8s, db):
    out = invoke("run", "quick", "--target", "pvc:no-such-class", db=db, expect=1).output
    assert "there is no StorageClass no-such-class" in out
    assert k8s.k8s.storage_class in out
    assert ours(k8s, "namespaces") == []


def test_a_claim_that_stays_pending_says_why(k8s, db):
    sc = {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": "cephbench-test-nobody"},
        "provisioner": "example.com/nobody",
    }
    subprocess.run(
        [str(k8s.k8s.kubectl), f"--kubeconfig={k8s.k8s.kubeconfig}", "create", "-f", "-"],
        input=json.dumps(sc), text=True, check=True, capture_output=True,
    )  # fmt: skip
    try:
        out = invoke("run", "quick", "--target", "pvc:cephbench-test-nobody",
                     "--image", image(k8s), *SMALL, db=db, expect=1,
                     env={"CEPHBENCH_K8S_WAIT": "15"}).output  # fmt: skip
        assert "is Pending" in out and "example.com/nobody" in out
        assert ours(k8s, "namespaces") == []
    finally:
        kubectl(k8s, "delete", "storageclass", "cephbench-test-nobody", check=False)


def test_an_image_that_is_not_there_names_image_and_k8s_image(k8s, db):
    out = invoke("run", "quick", "--target", f"pvc:{k8s.k8s.storage_class}",
                 "--image", "localhost/cephbench-nothing:0", *SMALL, db=db, expect=1,
                 env={"CEPHBENCH_K8S_WAIT": "60"}).output  # fmt: skip
    assert "localhost/cephbench-nothing:0" in out
    assert "--image" in out and "k8s image" in out
    assert ours(k8s, "namespaces") == []


def _limited_kubeconfig(k8s, tmp_path: Path) -> Path:
    """A kubeconfig of a ServiceAccount granted everything cephbench needs but creating pods."""
    ns = "cephbench-test-rbac"
    kubectl(k8s, "create", "namespace", ns)
    kubectl(k8s, "create", "serviceaccount", "limited", "-n", ns)
    rules: dict[tuple[str, str], set[str]] = {}
    for need in NEEDS:
        if (need.verb, need.resource) == ("create", "pods"):
            continue
        resource, _, group = need.resource.partition(".")
        rules.setdefault((group, resource), set()).add(need.verb)
    role = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": "cephbench-test-limited"},
        "rules": [
            {"apiGroups": [g], "resources": [r], "verbs": sorted(v)}
            for (g, r), v in sorted(rules.items())
        ],
    }
    subprocess.run(
        [str(k8s.k8s.kubectl), f"--kubeconfig={k8s.k8s.kubeconfig}", "apply", "-f", "-"],
        input=json.dumps(role), text=True, check=True, capture_output=True,
    )  # fmt: skip
    kubectl(k8s, "create", "clusterrolebinding", "cephbench-test-limited",
            "--clusterrole=cephbench-test-limited", f"--serviceaccount={ns}:limited")  # fmt: skip
    token = kubectl(k8s, "create", "token", "limited", "-n", ns).stdout.strip()
    server = kubectl(k8s, "config", "view", "--minify", "--raw", "-o",
                     "jsonpath={.clusters[0].cluster.server}").stdout  # fmt: skip
    ca = kubectl(k8s, "config", "view", "--minify", "--raw", "-o",
                 "jsonpath={.clusters[0].cluster.certificate-authority-data}").stdout  # fmt: skip
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "lab", "cluster": {"server": server,
                                                 "certificate-authority-data": ca}}],
        "users": [{"name": "limited", "user": {"token": token}}],
        "contexts": [{"name": "limited", "context": {"cluster": "lab", "user": "limited"}}],
        "current-context": "limited",
    }  # fmt: skip
    path = tmp_path / "limited.kubeconfig"
    path.write_text(json.dumps(config))
    return path


def test_a_user_who_may_not_create_pods(k8s, db, tmp_path):
    try:
        limited = _limited_kubeconfig(k8s, tmp_path)
        out = invoke("run", "quick", "--target", f"pvc:{k8s.k8s.storage_class}",
                     "--kubeconfig", limited, "--image", image(k8s), *SMALL,
                     db=db, expect=1).output  # fmt: skip
        assert "forbids this user to create pods" in out
        assert "k8s-role.yaml" in out
        check = invoke("k8s", "check", "--kubeconfig", limited, "--format", "json", expect=1)
        doc = json.loads(check.stdout)
        denied = [(p["verb"], p["resource"]) for p in doc["permissions"] if not p["allowed"]]
        assert ("create", "pods") in denied  # (v1.37 also answers no for create pods/exec then)
        assert "this user may not: create pods" in check.stderr
        assert ours(k8s, "namespaces") == []
    finally:
        kubectl(k8s, "delete", "clusterrolebinding", "cephbench-test-limited", check=False)
        kubectl(k8s, "delete", "clusterrole", "cephbench-test-limited", check=False)
        kubectl(k8s, "delete", "namespace", "cephbench-test-rbac", check=False)


def test_k8s_check_shows_the_lab(k8s):
    from tests.contract import validate

    doc = validate(json.loads(invoke("k8s", "check", "--format", "json").output))
    assert doc["server_version"].startswith("v1.")
    assert k8s.k8s.storage_class in [c["name"] for c in doc["storage_classes"]]
    assert [n["name"] for n in doc["nodes"]] == [k8s.k8s.node]
    assert all(p["allowed"] for p in doc["permissions"])


def _start(db: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [*CEPHBENCH, "run", *args],
        env={**os.environ, "CEPHBENCH_DB": str(db)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _child(proc: subprocess.Popen, *words: str) -> bool:
    """Whether a child of the run (a kubectl call) has each of ``words`` in its argv."""
    from tests.interrupt_lab import children

    return any(all(any(w in a for a in argv) for w in words) for _, argv in children(proc.pid))


STAGES = {
    "namespace": lambda k, p: bool(ours(k, "namespaces")),
    "claim": lambda k, p: bool(ours(k, "pvc")),
    "pod starting": lambda k, p: bool(ours(k, "pods")),
    "prefill": lambda k, p: _child(p, "exec", "/cephbench", "prefill"),
    "a workload": lambda k, p: _child(p, "exec", "/cephbench", "w1"),
    "clean-up": lambda k, p: _child(p, "delete"),
}


@pytest.mark.parametrize("stage", list(STAGES))
def test_ctrl_c_at_each_stage_leaves_nothing(k8s, db, stage):
    before = volumes(k8s)
    runtime = "5" if stage == "a workload" else "1"  # long enough to be caught in, or short
    proc = _start(db, "quick", "--target", f"pvc:{k8s.k8s.storage_class}",
                  "--image", image(k8s), "--runtime", runtime, "--size", "32M")  # fmt: skip
    try:
        wait_for(lambda: STAGES[stage](k8s, proc) or proc.poll() is not None, stage, 180, 0.02)
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    nothing_left(k8s, db, before)


def test_kill_then_cleanup_leaves_nothing(k8s, db):
    before = volumes(k8s)
    proc = _start(db, "quick", "--target", f"pvc:{k8s.k8s.storage_class}",
                  "--image", image(k8s), "--runtime", "30", "--size", "32M")  # fmt: skip
    try:
        wait_for(lambda: STAGES["a workload"](k8s, proc), "fio in the pods", 180, poll=0.05)
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert ours(k8s, "namespaces")  # left behind by the kill
    out = invoke("cleanup", db=db).output
    assert "removed k8s_namespace cephbench-" in out
    nothing_left(k8s, db, before)
