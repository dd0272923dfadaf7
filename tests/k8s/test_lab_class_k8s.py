"""The lab's StorageClass as a new user meets it (issue 34): a run needs no ``--image`` (the
node holds cephbench's fio image), a pod's reads reach the lab's OSDs (not this machine's page
cache), the run's reads before fio's first I/O do not wait for each other, and the
provisioner's kubectl fails as kube/kubectl.py says kubectl fails."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from cephbench.kube.kubectl import KubeError
from cephbench.store import Store
from tests.helpers import invoke, wait_for
from tests.k8s.test_pvc_k8s import SMALL, nothing_left, volumes

POOL_READS = ["rados", "df", "-f", "json"]


def pool_reads(k8s_lab) -> int:
    """Read ops the OSDs served from the class's pool (``rados df``: the pool's read_ops)."""
    out = subprocess.run(
        POOL_READS, env={**os.environ, **k8s_lab.lab.env}, capture_output=True, text=True,
        check=True,
    ).stdout  # fmt: skip
    [pool] = [p for p in json.loads(out)["pools"] if p["name"] == k8s_lab.k8s.pool]
    return int(pool["read_ops"])


def test_a_run_on_the_labs_class_needs_no_image(k8s, db):
    before = volumes(k8s)
    invoke("run", "quick", "--target", f"pvc:{k8s.k8s.storage_class}", *SMALL, db=db)
    with Store(db) as store:
        run = store.get_run("last")
    assert run.status == "complete" and run.results
    assert run.environment["target"]["image"] == k8s.k8s.fio_image  # the one lab up imported
    nothing_left(k8s, db, before)


def test_the_provisioners_kubectl_errors_are_kube_kubectls(k8s, tmp_path):
    """The provisioner reads claims through kube/kubectl.py: an API server it cannot reach is
    the one-line error every kubectl call gives, not a message of its own."""
    from cephbench.lab.k8s_provisioner import Provisioner

    provisioner = Provisioner(k8s.dir / "k8s")
    text = k8s.k8s.kubeconfig.read_text()
    assert k8s.k8s.server in text
    unreachable = tmp_path / "kubeconfig"  # the lab's admin, at a port nothing listens on
    unreachable.write_text(text.replace(k8s.k8s.server, "https://127.0.0.1:1"))
    provisioner.k = dataclasses.replace(provisioner.k, kubeconfig=str(unreachable))
    with pytest.raises(KubeError, match=r"^cannot reach the Kubernetes API server: "):
        provisioner.once()


def _calls(log: Path) -> list[tuple[float, float, list[str], str]]:
    """Each kubectl call the wrapper saw: (start, end, argv, stdin's kind if a List)."""
    begun: dict[str, tuple[float, list[str]]] = {}
    calls = []
    for line in log.read_text().splitlines():
        what, pid, t, *argv = line.split("\t")
        if what == "start":
            begun[pid] = (float(t), argv)
        elif pid in begun:
            start, args = begun.pop(pid)
            calls.append((start, float(t), args, argv[0] if argv else ""))
    return sorted(calls)


WRAPPER = """#!/bin/sh
# kubectl as it is, each call's argv and times logged (the test reads the order of the calls)
log={log}
echo "start	$$	$(date +%s.%N)	$(printf '%s	' "$@")" >> "$log"
case " $* " in
  *" create -f - "*) in=$(cat); kind=$(printf '%s' "$in" | head -c 40 | tr -d '{{" ' | cut -c1-30)
     printf '%s' "$in" | {real} "$@"; rc=$?;;
  *) kind=; {real} "$@"; rc=$?;;
esac
echo "end	$$	$(date +%s.%N)	$kind" >> "$log"
exit $rc
"""


def test_the_runs_reads_do_not_wait_for_each_other_or_the_pods(k8s, db, tmp_path, monkeypatch):
    """What a run reads before fio's first I/O is read at once, not one call after another:
    the version, the nodes and the class together, and the Ceph cluster's health beside them; the namespace, the claims and the pods made
    in one call; the pods and claims watched, not polled; the volumes read while the pods
    start, fio's version once the first runs.
    (Observed through a kubectl that logs each call; bench/k8s.py measures the time.)"""
    import os

    log = tmp_path / "kubectl.log"
    wrapper = tmp_path / "bin" / "kubectl"
    wrapper.parent.mkdir()
    wrapper.write_text(WRAPPER.format(log=log, real=k8s.k8s.kubectl))
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{wrapper.parent}:{os.environ['PATH']}")
    from cephbench.execution import runner

    health: list[float] = []  # when the Ceph cluster's health read began

    def preflight(*args, **kwargs):
        health.append(time.time())
        return real_preflight(*args, **kwargs)

    real_preflight = runner.preflight
    monkeypatch.setattr(runner, "preflight", preflight)
    job = tmp_path / "write.fio"  # writes only: no prefill
    job.write_text("[w]\nrw=randwrite\nbs=4k\nioengine=libaio\ndirect=1\niodepth=4\n")
    before = volumes(k8s)
    invoke("run", job, "--target", f"pvc:{k8s.k8s.storage_class}", "--pods", "3",
           *SMALL, db=db)  # fmt: skip
    calls = _calls(log)

    def when(*words: str) -> list[tuple[float, float]]:
        return [(s, e) for s, e, argv, _ in calls if all(w in argv for w in words)]

    [version], [nodes], [sc] = when("version"), when("get", "nodes"), when("get", "storageclass")
    assert max(version[0], nodes[0], sc[0]) < min(version[1], nodes[1], sc[1])  # at once
    assert len(health) == 1 and health[0] < max(version[1], nodes[1], sc[1])  # and the health
    creates = [(argv, kind) for _, _, argv, kind in calls if "create" in argv]
    # the namespace, the 3 claims and the 3 pods in one call; a second only for pods the API
    # server refused before the namespace's default ServiceAccount was there
    assert 1 <= len(creates) <= 2 and all("List" in kind for _, kind in creates), creates
    # watched, not polled: the pods one after another (each as soon as it runs), the claims
    # all at once; the volumes are read while the pods start, and fio's version once the
    # first pod runs, while the others start: both begin before the last pod is seen running
    pod_watches = [
        (s, e, [a for a in argv if a.startswith("pod/")])
        for s, e, argv, _ in calls
        if "wait" in argv and "--for=condition=Ready" in argv
    ]
    claim_watches = [
        (s, e)
        for s, e, argv, _ in calls
        if "wait" in argv and any(a.startswith("pvc/") for a in argv)
    ]
    assert len(pod_watches) >= 3 and all(len(pods) == 1 for _, _, pods in pod_watches)
    assert claim_watches and claim_watches[0][0] < pod_watches[-1][1]
    [fio_version] = when("exec", "--version")
    assert fio_version[0] < pod_watches[-1][1]
    [_] = when("get", "pv")  # every bound claim's PV in one call
    nothing_left(k8s, db, before)


def test_a_pods_reads_reach_the_labs_osds(k8s, db, tmp_path):
    """Random 4k reads in a pod on the lab's class are served by the OSDs, one read op each,
    as from a kernel RBD volume: the pool's read ops grow by (nearly) every read fio made.
    (A loop device reading its rbd-fuse file through this machine's page cache served 96 % of
    them from memory: 12,937 reads, 558 OSD read ops.)"""
    job = tmp_path / "randread.fio"
    job.write_text("[r]\nrw=randread\nbs=4k\nioengine=libaio\ndirect=1\niodepth=8\n")
    before, reads = volumes(k8s), pool_reads(k8s)
    invoke("run", job, "--target", f"pvc:{k8s.k8s.storage_class}", *SMALL, db=db)
    with Store(db) as store:
        [result] = store.get_run("last").results
    assert result.op == "read" and result.total_ios > 0
    # the OSDs report their pools' counters every second or so: wait for them to say it
    wait_for(
        lambda: pool_reads(k8s) - reads >= 0.9 * result.total_ios,
        f"the pool's read ops to grow by 90 % of fio's {result.total_ios} reads",
        60,
    )
    nothing_left(k8s, db, before)
