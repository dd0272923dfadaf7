"""``lab up --k8s`` on this machine: a Ready node, the ``cephbench-lab`` StorageClass whose
claims are RBD images of the lab's pool (the pool grows by what a pod's fio wrote; deleting
the claim removes the PV and the image), Block claims, ``lab env`` and ``lab status``, and a
``lab down`` that leaves nothing, even after the kubelet and apiserver were SIGKILLed with a
pod running. Real kubectl, real Ceph, real containerd: nothing is mocked."""

from __future__ import annotations

import json
import os
import signal
import uuid
from pathlib import Path

import pytest

from cephbench.lab import down, k8s_down, k8s_volumes
from cephbench.lab.k8s_conf import HARDWIRED, K8sLayout, cgroup_root
from cephbench.lab.paths import Layout
from cephbench.lab.state import load
from cephbench.system.process import ProcessResult, run
from tests.helpers import wait_for
from tests.k8s.conftest import K8sLab, start

MIB = 1024 * 1024


def kubectl(k: K8sLab, *args: str, stdin: str | None = None, check: bool = True) -> ProcessResult:
    argv = [str(k.k8s.kubectl), "--kubeconfig", str(k.k8s.kubeconfig), *args]
    result = run(argv, timeout=120, stdin=stdin)
    assert not check or result.returncode == 0, f"kubectl {args}: {result.stderr}"
    return result


def kubectl_json(k: K8sLab, *args: str) -> dict:
    return json.loads(kubectl(k, *args, "-o", "json").stdout)


def apply(k: K8sLab, *objects: dict) -> None:
    kubectl(
        k,
        "apply",
        "-f",
        "-",
        stdin=json.dumps({"apiVersion": "v1", "kind": "List", "items": list(objects)}),
    )


def claim(name: str, size: str = "256Mi", mode: str = "Filesystem") -> dict:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name},
        "spec": {
            "storageClassName": "cephbench-lab",
            "accessModes": ["ReadWriteOnce"],
            "volumeMode": mode,
            "resources": {"requests": {"storage": size}},
        },
    }


def pod(k: K8sLab, name: str, claim_name: str, command: list[str], block: bool = False) -> dict:
    container: dict = {
        "name": "fio",
        "image": k.k8s.fio_image,
        "imagePullPolicy": "Never",
        "command": command,
    }
    if block:
        container["volumeDevices"] = [{"name": "data", "devicePath": "/dev/xvda"}]
    else:
        container["volumeMounts"] = [{"name": "data", "mountPath": "/data"}]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {
            "restartPolicy": "Never",
            "terminationGracePeriodSeconds": 1,
            "containers": [container],
            "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": claim_name}}],
        },
    }


def phase(k: K8sLab, kind: str, name: str) -> str | None:
    result = kubectl(k, "get", kind, name, "-o", "jsonpath={.status.phase}", check=False)
    return result.stdout.strip() if result.returncode == 0 else None


def stored_bytes(k: K8sLab) -> int:
    result = run(["ceph", "df", "-f", "json"], env=k.lab.env, timeout=60, check=True)
    [pool] = [p for p in json.loads(result.stdout)["pools"] if p["name"] == k.k8s.pool]
    return int(pool["stats"]["stored"])


def images(k: K8sLab) -> list[str]:
    result = run(["rbd", "ls", k.k8s.pool], env=k.lab.env, timeout=60, check=True)
    return result.stdout.split()


def test_node_is_ready_and_the_storage_class_is_there(k8s_lab: K8sLab):
    [node] = kubectl_json(k8s_lab, "get", "nodes")["items"]
    assert node["metadata"]["name"] == k8s_lab.k8s.node
    ready = [c for c in node["status"]["conditions"] if c["type"] == "Ready"]
    assert ready[0]["status"] == "True"
    assert node["status"]["nodeInfo"]["kubeletVersion"] == k8s_lab.k8s.version
    sc = kubectl_json(k8s_lab, "get", "storageclass", "cephbench-lab")
    assert sc["reclaimPolicy"] == "Delete"
    assert sc["parameters"]["pool"] == k8s_lab.k8s.pool == "k8s"
    assert sc["parameters"]["cephbench.lab/backend"] == "rbd-fuse"
    assert k8s_lab.k8s.fio_image and k8s_lab.k8s.fio_image.startswith("localhost/cephbench-fio:")


def test_a_pod_writes_through_a_claim_onto_the_lab_pool_and_deleting_it_removes_everything(
    k8s_lab: K8sLab,
):
    name = f"w{uuid.uuid4().hex[:6]}"
    apply(k8s_lab, claim(name, "512Mi"))
    wait_for(lambda: phase(k8s_lab, "pvc", name) == "Bound", "the claim to be bound", 120)
    pv = kubectl_json(k8s_lab, "get", "pvc", name)["spec"]["volumeName"]
    assert pv in images(k8s_lab)
    before = stored_bytes(k8s_lab)
    write_mib = 64
    fio = ["/usr/bin/fio", "--output-format=json", "--name=w", "--filename=/data/f",
           f"--size={write_mib}M", "--rw=write", "--bs=1M", "--direct=1", "--end_fsync=1"]  # fmt: skip
    apply(k8s_lab, pod(k8s_lab, name, name, fio))
    wait_for(
        lambda: phase(k8s_lab, "pod", name) in ("Succeeded", "Failed"), "fio's pod to end", 180
    )
    logs = kubectl(k8s_lab, "logs", name).stdout
    assert phase(k8s_lab, "pod", name) == "Succeeded", logs
    [job] = json.loads(logs[logs.index("{") :])["jobs"]
    assert job["write"]["io_bytes"] == write_mib * MIB
    grown = wait_for(
        lambda: (stored_bytes(k8s_lab) - before >= write_mib * MIB) and stored_bytes(k8s_lab),
        f"the pool's stored bytes to grow by {write_mib} MiB",
        120,
        poll=1.0,
    )
    assert grown - before >= write_mib * MIB
    kubectl(k8s_lab, "delete", "pod", name, "--wait=true", "--timeout=60s")
    kubectl(k8s_lab, "delete", "pvc", name, "--wait=true", "--timeout=60s")
    wait_for(lambda: phase(k8s_lab, "pv", pv) is None, "the PV to be deleted", 120, poll=0.5)
    wait_for(lambda: pv not in images(k8s_lab), "the RBD image to be removed", 60, poll=0.5)
    kl = K8sLayout(k8s_lab.dir)
    assert not (kl.volumes / pv).exists()
    assert not k8s_volumes.loops_under(kl.volumes / pv)


def test_a_block_claim_gives_the_pod_a_block_device(k8s_lab: K8sLab):
    name = f"b{uuid.uuid4().hex[:6]}"
    script = "test -b /dev/xvda && echo is-a-block-device && /usr/bin/fio --name=b " \
             "--filename=/dev/xvda --size=16M --rw=write --bs=1M --direct=1 --output-format=terse"  # fmt: skip
    apply(
        k8s_lab,
        claim(name, "64Mi", mode="Block"),
        pod(k8s_lab, name, name, ["/bin/sh", "-c", script], block=True),
    )
    wait_for(lambda: phase(k8s_lab, "pod", name) in ("Succeeded", "Failed"), "the pod to end", 180)
    logs = kubectl(k8s_lab, "logs", name).stdout
    assert phase(k8s_lab, "pod", name) == "Succeeded", logs
    assert "is-a-block-device" in logs
    pv = kubectl_json(k8s_lab, "get", "pvc", name)["spec"]["volumeName"]
    assert kubectl_json(k8s_lab, "get", "pv", pv)["spec"]["volumeMode"] == "Block"
    kubectl(k8s_lab, "delete", "pod", name, "--wait=true", "--timeout=60s")
    kubectl(k8s_lab, "delete", "pvc", name, "--wait=true", "--timeout=60s")
    wait_for(lambda: pv not in images(k8s_lab), "the Block volume's image to go", 120, poll=0.5)


def test_lab_env_and_status_show_kubernetes(k8s_lab: K8sLab):
    from tests.helpers import invoke

    env = invoke("lab", "env", "--dir", str(k8s_lab.dir), expect=0).stdout
    assert f"export KUBECONFIG={k8s_lab.k8s.kubeconfig}" in env
    assert f"export PATH={k8s_lab.k8s.bin_dir}:" in env
    shell = run(["bash", "-c", f'eval "{env}"; kubectl get pods -A -o name; command -v kubectl'],
                timeout=60)  # fmt: skip
    assert shell.returncode == 0, shell.stderr
    assert shell.stdout.strip().endswith(str(k8s_lab.k8s.bin_dir / "kubectl"))
    status = json.loads(
        invoke("lab", "status", "--dir", str(k8s_lab.dir), "--format", "json", expect=0).stdout
    )
    daemons = {d["name"]: d for d in status["k8s"]["daemons"]}
    assert {"etcd", "containerd", "kube-apiserver", "kubelet", "k8s-provisioner"} <= set(daemons)
    assert all(d["running"] for d in daemons.values())
    assert status["k8s"]["storage_class"]["name"] == "cephbench-lab"


def _mountpoints() -> list[str]:
    return [line.split()[4] for line in Path("/proc/self/mountinfo").read_text().splitlines()]


def test_down_leaves_nothing_after_kubelet_and_apiserver_are_killed(
    tmp_path_factory: pytest.TempPathFactory, k8s_lab: K8sLab
):
    """A second lab beside the session's (two clusters at once), a pod running on a claim,
    then SIGKILL to its kubelet and apiserver, then ``lab down``."""
    lab_dir = tmp_path_factory.mktemp("k8s-down") / "lab"
    try:
        other = start(lab_dir)
        assert other.k8s.server != k8s_lab.k8s.server
        apply(other, claim("c"), pod(other, "idle", "c", ["/usr/bin/sleep", "3600"]))
        wait_for(lambda: phase(other, "pod", "idle") == "Running", "the pod to run", 180)
        state = load(Layout(lab_dir))
        assert state is not None and state.k8s is not None
        recorded = dict(state.k8s.daemons)
        pod_pids = k8s_down.cgroup_pids(state.k8s)
        assert pod_pids, "the running pod's processes are in the lab's cgroups"
        for name in ("kubelet", "kube-apiserver"):
            pid = recorded[name]
            assert pid is not None
            os.kill(pid, signal.SIGKILL)
    finally:
        down(lab_dir, purge=True)
    assert not lab_dir.exists()
    for name, pid in recorded.items():
        assert (
            not pid
            or not Path(f"/proc/{pid}/cmdline").exists()
            or str(lab_dir).encode() not in Path(f"/proc/{pid}/cmdline").read_bytes()
        ), name
    assert not [p for p in pod_pids if Path(f"/proc/{p}").exists()
                and Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"]  # fmt: skip
    assert not [m for m in _mountpoints() if m.startswith(str(lab_dir))]
    assert not k8s_volumes.loops_under(lab_dir)
    cgroup = cgroup_root(lab_dir).strip("/")
    assert not list(Path("/sys/fs/cgroup").glob(f"*/{cgroup}"))
    assert not Path(f"/sys/class/net/{state.k8s.bridge}").exists()
    # the session's lab still runs: the hard-wired host paths stay while it does
    assert kubectl(k8s_lab, "get", "nodes").returncode == 0
    assert all(Path(p).exists() for p in HARDWIRED)


def test_ctrl_c_while_kubernetes_starts_leaves_nothing(tmp_path_factory: pytest.TempPathFactory):
    """SIGINT to ``lab up --k8s`` once its apiserver runs (Ceph still starting or just up):
    exit 130, and the lab's directory, processes, mounts, cgroups and bridge are gone."""
    import subprocess

    from tests.helpers import CEPHBENCH

    lab_dir = tmp_path_factory.mktemp("k8s-int") / "lab"
    argv = [*CEPHBENCH, "lab", "up", "--k8s", "--osd-size", "4G", "--dir", str(lab_dir)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:

        def apiserver_started() -> bool:
            state = load(Layout(lab_dir)) if Layout(lab_dir).state.exists() else None
            return bool(state and state.k8s and state.k8s.daemons.get("kube-apiserver"))

        wait_for(apiserver_started, "lab up --k8s to start the apiserver", 120, poll=0.1)
        state = load(Layout(lab_dir))
        assert state is not None and state.k8s is not None
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=180)
    finally:
        if proc.poll() is None:
            proc.kill()
        down(lab_dir, purge=True)
    assert proc.returncode == 130, out
    assert not lab_dir.exists(), out
    assert not k8s_down.processes(K8sLayout(lab_dir))
    assert not [m for m in _mountpoints() if m.startswith(str(lab_dir))]
    assert not list(Path("/sys/fs/cgroup").glob(f"*/{state.k8s.cgroup.strip('/')}"))
    assert not Path(f"/sys/class/net/{state.k8s.bridge}").exists()


def test_build_k8s_finds_the_cached_binaries(k8s_lab: K8sLab):
    from tests.helpers import invoke

    out = invoke("lab", "build-k8s", expect=0).stdout
    assert f"Kubernetes {k8s_lab.k8s.version} is cached" in out
