"""Record the kubectl outputs tests/unit/test_kube.py reads, from a real cluster.

    KUBECONFIG=... python tests/data/k8s/record.py   # e.g. a lab's: eval "$(cephbench lab env)"

It creates (and deletes again) a StorageClass no provisioner serves, a namespace, a claim of
that class, a pod using it, and a pod whose image is not there, then saves what kubectl
printed: the lists of StorageClasses, nodes and CSI drivers, the Pending claim with its
events, the pod that cannot pull its image, and kubectl's errors for a class that does not
exist and for a ServiceAccount's token that may not create pods.
"""

from __future__ import annotations

import base64
import json
import subprocess
import time
from pathlib import Path

HERE = Path(__file__).parent
NS = "cephbench-record"


def kubectl(*args: str, stdin: str | None = None, check: bool = True):
    return subprocess.run(["kubectl", *args], input=stdin, capture_output=True, text=True,
                          check=check)  # fmt: skip


def save(name: str, text: str) -> None:
    (HERE / name).write_text(text)
    print("wrote", name)


def create(obj: dict) -> None:
    kubectl("create", "-f", "-", stdin=json.dumps(obj))


def main() -> None:
    save("storageclasses.json", kubectl("get", "storageclasses", "-o", "json").stdout)
    save("nodes.json", kubectl("get", "nodes", "-o", "json").stdout)
    save("csidrivers.json", kubectl("get", "csidrivers", "-o", "json").stdout)
    save("version.json", kubectl("version", "-o", "json").stdout)
    save("not-found.stderr", kubectl("get", "storageclass", "no-such-class", check=False).stderr)
    create(
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "StorageClass",
            "metadata": {"name": "cephbench-record-nobody"},
            "provisioner": "example.com/nobody",
        }
    )
    create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})
    try:
        create({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                "metadata": {"name": "pending", "namespace": NS},
                "spec": {"storageClassName": "cephbench-record-nobody",
                         "accessModes": ["ReadWriteOnce"],
                         "resources": {"requests": {"storage": "1Gi"}}}})  # fmt: skip
        create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "noimage", "namespace": NS},
                "spec": {"containers": [{"name": "c", "image": "localhost/cephbench-nothing:0",
                                         "command": ["sleep", "infinity"]}]}})  # fmt: skip
        while "BackOff" not in kubectl("get", "pod", "noimage", "-n", NS).stdout:
            time.sleep(0.5)
        while "ExternalProvisioning" not in kubectl("get", "events", "-n", NS).stdout:
            time.sleep(0.5)
        save("pending-claim.json", kubectl("get", "pvc", "pending", "-n", NS, "-o", "json").stdout)
        save("noimage-pod.json", kubectl("get", "pod", "noimage", "-n", NS, "-o", "json").stdout)
        save("events.json", kubectl("get", "events", "-n", NS, "-o", "json").stdout)
        kubectl("create", "serviceaccount", "nobody", "-n", NS)
        token = kubectl("create", "token", "nobody", "-n", NS).stdout.strip()
        view = json.loads(kubectl("config", "view", "--minify", "--raw", "-o", "json").stdout)
        cluster = view["clusters"][0]["cluster"]
        ca = HERE / ".ca.crt"
        ca.write_bytes(base64.b64decode(cluster["certificate-authority-data"]))
        try:
            pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"},
                   "spec": {"containers": [{"name": "c", "image": "i"}]}}  # fmt: skip
            denied = kubectl("--kubeconfig=/dev/null", f"--server={cluster['server']}",
                             f"--certificate-authority={ca}", f"--token={token}",
                             "create", "-n", NS, "-f", "-", stdin=json.dumps(pod), check=False)  # fmt: skip
            save("forbidden.stderr", denied.stderr)
        finally:
            ca.unlink()
    finally:
        kubectl("delete", "namespace", NS, "--wait=true", check=False)
        kubectl("delete", "storageclass", "cephbench-record-nobody", check=False)


if __name__ == "__main__":
    main()
