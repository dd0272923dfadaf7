"""The kube package and the pvc: target without a cluster: manifests and labels, kubectl's
errors from recorded outputs, the Role in docs/, and pods' fio reports aggregated exactly."""

from __future__ import annotations

import json
import math
import re

import pytest
import yaml

from cephbench.errors import TargetError, UsageError
from cephbench.kube import objects
from cephbench.kube.check import NEEDS
from cephbench.kube.kubectl import Forbidden, Kubectl, KubeError, NotFound, error_of
from cephbench.kube.options import KubeOptions
from cephbench.kube.pods import Finished, Pod, PodSet
from cephbench.system.process import ProcessResult
from cephbench.tools.fio import parse as fio_parse
from cephbench.tools.fio.jobfile import parse_jobfile
from cephbench.tools.fio.pods import as_clients, combined, gate_times, with_pod_start_gate
from tests.helpers import DATA

K8S = DATA / "k8s"
ROOT = DATA.parent.parent


def _failed(stderr: str, *args: str) -> ProcessResult:
    return ProcessResult(("kubectl", *args), 1, "", stderr, 0.1)


def test_every_object_carries_cephbenchs_labels_and_the_run():
    made = [
        objects.namespace("cephbench-7-abc123", 7),
        objects.pvc("c0", "ns", 7, "fast", "1190Mi"),
        objects.pod("p0", "ns", 7, "c0", "img"),
        objects.secret("s", "ns", 7, {"ceph.conf": "[global]"}),
        objects.config_map("m", "ns", 7, {"job.fio": "[j]"}),
    ]
    for obj in made:
        assert obj["metadata"]["labels"] == {
            "app.kubernetes.io/managed-by": "cephbench",
            "cephbench.io/run": "7",
        }
        assert objects.is_ours(obj) and objects.is_ours(obj, 7) and not objects.is_ours(obj, 8)
    assert not objects.is_ours({"metadata": {"labels": {"cephbench.io/run": "7"}}}, 7)
    assert objects.selector(7) == "app.kubernetes.io/managed-by=cephbench,cephbench.io/run=7"


def test_a_pod_mounts_a_filesystem_claim_or_gets_a_block_device():
    fs = objects.pod("p", "ns", 3, "c", "img", cpu="2", memory="1Gi")
    container = fs["spec"]["containers"][0]
    assert container["volumeMounts"] == [
        {"name": "work", "mountPath": "/cephbench"},
        {"name": "data", "mountPath": "/data"},
    ]
    assert {"name": "work", "emptyDir": {}} in fs["spec"]["volumes"]
    assert container["resources"] == {
        "requests": {"cpu": "2", "memory": "1Gi"},
        "limits": {"cpu": "2", "memory": "1Gi"},
    }
    assert fs["spec"]["terminationGracePeriodSeconds"] <= 2  # sleep as PID 1 ignores SIGTERM
    assert fs["spec"]["volumes"][0]["persistentVolumeClaim"] == {"claimName": "c"}
    block = objects.pod("p", "ns", 3, "c", "img", volume_mode="Block", spread=True,
                        node_selector={"disk": "ssd"})  # fmt: skip
    assert block["spec"]["containers"][0]["volumeDevices"] == [
        {"name": "data", "devicePath": "/dev/cephbench"}
    ]
    assert block["spec"]["containers"][0]["volumeMounts"] == [
        {"name": "work", "mountPath": "/cephbench"}
    ]
    assert block["spec"]["nodeSelector"] == {"disk": "ssd"}
    rule = block["spec"]["affinity"]["podAntiAffinity"]
    [term] = rule["requiredDuringSchedulingIgnoredDuringExecution"]
    assert term["labelSelector"] == {"matchLabels": {"cephbench.io/run": "3"}}
    claim = objects.pvc("c", "ns", 3, "fast", "2Gi", "Block")
    assert claim["spec"]["volumeMode"] == "Block"
    assert claim["spec"]["storageClassName"] == "fast"


def test_names_and_node_selectors():
    ns = objects.fresh_namespace(12)
    assert ns.startswith("cephbench-12-") and objects.valid_name(ns)
    assert not objects.valid_name("Bad_Name") and not objects.valid_name("x" * 64)
    assert objects.parse_node_selector("a=b, c=") == {"a": "b", "c": ""}
    with pytest.raises(ValueError, match="'nokey' is not KEY=VALUE"):
        objects.parse_node_selector("a=b,nokey")


@pytest.mark.parametrize(
    ("recorded", "kind", "says"),
    [
        ("no-context.stderr", UsageError, "kubectl has no usable context"),
        ("unknown-context.stderr", UsageError, "context was not found for specified context: nope"),
        ("unreachable.stderr", KubeError, "cannot reach the Kubernetes API server: The connection"),
    ],
)
def test_kubectls_failures_are_one_line(recorded, kind, says):
    error = error_of(_failed((K8S / recorded).read_text(), "get", "pods"), ("get", "pods"), None)
    assert isinstance(error, kind)
    assert says in str(error)
    assert "\n" not in str(error) and "E11" not in str(error)  # client-go's log lines dropped


def test_forbidden_names_the_verb_and_resource():
    text = (
        'Error from server (Forbidden): pods is forbidden: User "bench" cannot create resource '
        '"pods" in API group "" in the namespace "cephbench-4-a1b2c3"'
    )
    error = error_of(_failed(text, "create"), ("create", "-f", "-"), "pod p")
    assert isinstance(error, Forbidden)
    assert error.message == (
        "Kubernetes forbids this user to create pods in namespace cephbench-4-a1b2c3"
    )
    assert "docs/k8s-role.yaml" in (error.hint or "")
    missing = 'Error from server (NotFound): storageclasses.storage.k8s.io "nope" not found'
    assert isinstance(error_of(_failed(missing), ("get",), None), NotFound)


def test_kubectl_arguments_follow_kubectls_conventions():
    k = Kubectl("/tmp/kc", "lab", binary="/usr/bin/kubectl")
    assert k.argv("get", "pods") == [
        "/usr/bin/kubectl", "--kubeconfig=/tmp/kc", "--context=lab", "get", "pods",
    ]  # fmt: skip
    assert Kubectl.from_json(k.to_json()) == k
    assert Kubectl(binary="/k").argv("version") == ["/k", "version"]


def test_the_role_in_docs_grants_exactly_what_cephbench_needs():
    role = yaml.safe_load((ROOT / "docs" / "k8s-role.yaml").read_text())
    assert role["kind"] == "ClusterRole"
    granted = set()
    for rule in role["rules"]:
        for group in rule["apiGroups"]:
            for resource in rule["resources"]:
                for verb in rule["verbs"]:
                    granted.add((verb, f"{resource}.{group}" if group else resource))
    assert granted == {(n.verb, n.resource) for n in NEEDS}


def test_pods_reports_are_aggregated_exactly():
    """Each pod's json+ report (real fio output) becomes one client's entries: its figures
    are those of its own report, and the aggregate is their exact sum."""
    pods = (Pod("cephbench-1-fio-0", "vm", "c0"), Pod("cephbench-1-fio-1", "vm2", "c1"))
    podset = PodSet(Kubectl(), "ns", pods)
    texts = [(K8S / f"pod{i}.json").read_text() for i in range(2)]
    finished = [Finished(p, 0, t, "") for p, t in zip(pods, texts, strict=True)]
    stdout, stderr, code = combined(finished)
    assert code == 0 and stderr == ""
    [aggregate] = fio_parse.parse(stdout, 0, stderr, as_clients(podset).hosts)
    [result] = aggregate.results
    alone = [fio_parse.parse(t)[0].results[0] for t in texts]
    assert [c.host for c in result.clients] == ["cephbench-1-fio-0@vm", "cephbench-1-fio-1@vm2"]
    for client, own in zip(result.clients, alone, strict=True):
        assert client.iops == own.iops and client.total_ios == own.total_ios
    assert result.iops == math.fsum(r.iops for r in alone)
    assert result.total_ios == sum(r.total_ios for r in alone)
    doc = json.loads(stdout)
    assert [e["hostname"] for e in doc["client_stats"]] == [p.host for p in pods]
    for entry, text in zip(doc["client_stats"], texts, strict=True):  # as fio printed them
        [own] = json.loads(text[text.index("{") :])["jobs"]
        assert {k: v for k, v in entry.items() if k not in ("hostname", "port")} == own


def test_a_pod_without_a_report_is_named():
    pods = (Pod("a", "n", "c"), Pod("b", "n", "c"))
    finished = [Finished(pods[0], 0, (K8S / "pod0.json").read_text(), ""),
                Finished(pods[1], 1, "", "fio: pid=0, err=5/file:io_u.c:1889")]  # fmt: skip
    _stdout, stderr, code = combined(finished)
    assert code == 1
    assert "<b@n> fio: no JSON report (exit 1)" in stderr


def test_the_start_gate_waits_in_the_pods_shell():
    jobfile = parse_jobfile((K8S / "job.fio").read_text())
    text = with_pod_start_gate(jobfile, 1795723103.611).render()
    assert "d=$((1795723103611000064 - n))" in text  # nanoseconds: dash's integers are 64-bit
    assert "awk" not in text and ";" not in text  # dash alone, nothing fio reads as a comment
    assert text.count("exec_prerun=( ") == 1  # one subshell: all its output to JOB.prerun.txt
    assert gate_times("1795723484.918577763\n1795723484490387446\n") == (
        [1795723484.918577763],
        [1795723484490387446 / 1e9],
    )


def test_kubernetes_options_are_for_pvc_targets():
    from cephbench.planning import resolve
    from cephbench.planning.request import PoolOptions, RunRequest
    from cephbench.targets import TargetOptions
    from cephbench.targets.pvc import PvcTarget

    request = RunRequest("quick", "pvc:fast", kube=KubeOptions(pods=3, volume_mode="Block"))
    assert RunRequest.from_json(json.loads(json.dumps(request.to_json()))) == request
    target = PvcTarget("fast", TargetOptions())
    target.configure(KubeOptions(pods=2), prefill=True)
    assert target.claim is None and target.storage_class == "fast"
    claim = PvcTarget("claim/data", target.options)
    with pytest.raises(UsageError, match="an existing claim takes one pod"):
        claim.configure(KubeOptions(pods=2), prefill=True)
    with pytest.raises(TargetError, match="names no StorageClass or claim"):
        PvcTarget("Not_A_Name", target.options)
    from cephbench.targets.file import FileTarget

    with pytest.raises(UsageError, match="are for pvc: targets"):
        resolve._configure_kube(
            FileTarget("/tmp/x", target.options), None, PoolOptions(), KubeOptions(pods=2)
        )


def _json(name: str):
    return json.loads((K8S / name).read_text())


def test_a_pending_claims_reason_comes_from_its_events():
    from cephbench.kube.reasons import pending_reason

    claim, events = _json("pending-claim.json"), _json("events.json")["items"]
    reason = pending_reason(claim, events)
    assert reason is not None
    assert reason.startswith("no provisioner has answered")
    assert "'example.com/nobody'" in reason
    bound = {**claim, "status": {"phase": "Bound"}}
    assert pending_reason(bound, events) is None


def test_an_image_that_cannot_be_pulled_names_it():
    from cephbench.kube.reasons import image_hint, pod_failure

    pod = _json("noimage-pod.json")
    failure = pod_failure(pod, _json("events.json")["items"], "localhost/cephbench-nothing:0")
    assert failure is not None
    assert failure.startswith(
        "the image localhost/cephbench-nothing:0 is not on the node and cannot be pulled "
        "(ImagePullBackOff: "
    )
    hint = image_hint("localhost/cephbench-nothing:0")
    assert "--image" in hint and "cephbench k8s image -o fio.tar" in hint


def test_recorded_forbidden_and_not_found():
    denied = error_of(_failed((K8S / "forbidden.stderr").read_text()), ("create",), "pod x")
    assert isinstance(denied, Forbidden)
    assert denied.message == (
        "Kubernetes forbids this user to create pods in namespace cephbench-record"
    )
    missing = error_of(_failed((K8S / "not-found.stderr").read_text()), ("get",), None)
    assert isinstance(missing, NotFound)
    assert str(missing) == "storageclasses.storage.k8s.io no-such-class was not found in Kubernetes"


def test_k8s_check_summaries_of_the_labs_cluster():
    from cephbench.kube import check
    from cephbench.kube.fingerprint import class_fingerprint, node_fingerprint

    [sc] = check.storage_classes(_json("storageclasses.json")["items"])
    assert (sc["name"], sc["provisioner"], sc["binding_mode"], sc["reclaim_policy"]) == (
        "cephbench-lab", "cephbench.lab/rbd-fuse", "Immediate", "Delete",
    )  # fmt: skip
    assert sc["parameters"]["pool"] == "k8s" and sc["default"] is False
    [node] = check.nodes(_json("nodes.json")["items"])
    assert node["name"] == "vm" and node["ready"] and node["kubelet"] == "v1.37.2"
    assert check.csi_drivers(_json("csidrivers.json")["items"]) == []
    fp = class_fingerprint(_json("storageclasses.json")["items"][0])
    assert fp["provisioner"] == "cephbench.lab/rbd-fuse" and fp["parameters"] == sc["parameters"]
    assert node_fingerprint(_json("nodes.json")["items"][0])["kernel"] == node["kernel"]
    from tests.contract import validate

    doc = {"schema": "cephbench.k8s/1", "context": "lab", "server_version": "v1.37.2",
           "nodes": [node], "storage_classes": [sc], "csi_drivers": [],
           "permissions": [{"verb": n.verb, "resource": n.resource, "namespace": None,
                            "allowed": True, "why": n.why} for n in NEEDS],
           "unavailable": []}  # fmt: skip
    validate(doc)


def test_tolerations_in_kubectl_taints_syntax_go_on_every_pod():
    assert objects.parse_toleration("dedicated=storage:NoSchedule") == {
        "key": "dedicated", "operator": "Equal", "value": "storage", "effect": "NoSchedule",
    }  # fmt: skip
    assert objects.parse_toleration("node-role.kubernetes.io/control-plane:NoExecute") == {
        "key": "node-role.kubernetes.io/control-plane", "operator": "Exists",
        "effect": "NoExecute",
    }  # fmt: skip
    assert objects.parse_toleration("k=:PreferNoSchedule")["value"] == ""
    for bad, says in [
        ("dedicated", "is not KEY[=VALUE]:EFFECT"),
        (":NoSchedule", "is not KEY[=VALUE]:EFFECT"),
        ("=v:NoSchedule", "names no key"),
        ("k=v:Sometimes", "the effect is one of NoSchedule, PreferNoSchedule, NoExecute"),
    ]:
        with pytest.raises(ValueError, match=re.escape(says)):
            objects.parse_toleration(bad)
    kube = KubeOptions(tolerations=("a=b:NoSchedule", "c:NoExecute"))
    pod = objects.pod("p", "ns", 1, "c", "img", tolerations=kube.toleration_specs)
    assert pod["spec"]["tolerations"] == [
        {"key": "a", "operator": "Equal", "value": "b", "effect": "NoSchedule"},
        {"key": "c", "operator": "Exists", "effect": "NoExecute"},
    ]
    assert "tolerations" not in objects.pod("p", "ns", 1, "c", "img")["spec"]
    from cephbench.planning.request import RunRequest

    request = RunRequest("quick", "pvc:fast", kube=kube)  # stored, and read back the same
    assert RunRequest.from_json(json.loads(json.dumps(request.to_json()))) == request
    assert (
        "tolerations"
        not in RunRequest("quick", "pvc:f", kube=KubeOptions(pods=2)).to_json()["kube"]
    )


def test_a_malformed_toleration_is_a_usage_error_for_every_target():
    from cephbench.planning import resolve
    from cephbench.planning.request import PoolOptions
    from cephbench.targets import TargetOptions
    from cephbench.targets.pvc import PvcTarget

    target = PvcTarget("fast", TargetOptions())
    with pytest.raises(UsageError, match="--toleration: 'x' is not KEY"):
        resolve._configure_kube(target, None, PoolOptions(), KubeOptions(tolerations=("x",)))


def test_without_image_a_run_uses_the_fio_image_the_nodes_hold():
    """The lab's node (recorded nodes.json) lists localhost/cephbench-fio:3.33 among its
    images: a run without --image uses it; a cluster where a node the pods may land on lacks
    it keeps kubestr's image (whose pull error names --image and `k8s image`)."""
    import copy

    from cephbench.kube.image import held_fio_image

    [lab_node] = _json("nodes.json")["items"]
    assert held_fio_image([lab_node]) == "localhost/cephbench-fio:3.33"
    assert KubeOptions().with_image([lab_node]).image == "localhost/cephbench-fio:3.33"
    assert KubeOptions(image="my/fio:1").with_image([lab_node]).image == "my/fio:1"
    with pytest.raises(AssertionError, match="chosen"):
        _ = KubeOptions().pod_image

    bare = copy.deepcopy(lab_node)  # a second node that holds only the pause image
    bare["metadata"]["name"] = "other"
    bare["metadata"]["labels"] = {**bare["metadata"]["labels"], "kubernetes.io/hostname": "other"}
    bare["status"]["images"] = [i for i in bare["status"]["images"] if "pause" in str(i["names"])]
    assert held_fio_image([lab_node, bare]) is None
    assert KubeOptions().with_image([lab_node, bare]).image == objects.DEFAULT_IMAGE
    assert KubeOptions().with_image([]).image == objects.DEFAULT_IMAGE
    # only the nodes the pods may land on count
    on_vm = KubeOptions(node_selector="kubernetes.io/hostname=vm")
    assert on_vm.with_image([lab_node, bare]).image == "localhost/cephbench-fio:3.33"
    assert held_fio_image([lab_node], {"disk": "ssd"}) is None

    newer = copy.deepcopy(lab_node)  # the newest fio when a node holds several
    newer["status"]["images"].append({"names": ["localhost/cephbench-fio:3.100"], "sizeBytes": 1})
    assert held_fio_image([newer]) == "localhost/cephbench-fio:3.100"


def test_objects_made_in_one_call_are_read_back_one_by_one():
    """kubectl create of a List (the run's claims, or its pods, in one call) prints each object
    it made as a JSON document of its own (recorded), which a single json.loads refuses."""
    from cephbench.kube.kubectl import json_documents

    text = (K8S / "create-list.json").read_text()
    with pytest.raises(json.JSONDecodeError, match="Extra data"):
        json.loads(text)
    made = json_documents(text)
    assert [m["metadata"]["name"] for m in made] == ["cephbench-record-a", "cephbench-record-b"]
    assert json_documents("") == [] and json_documents(" {}\n") == [{}]


def test_fio_version_in_pods_is_read_at_once_or_when_asked():
    """Many pods: read at once (its time sets their start gate). One pod: not read until the
    run asks, once its workloads ended; a read that failed is no version, not an error."""
    from concurrent.futures import ThreadPoolExecutor

    from cephbench.kube.pods import FioVersion

    calls: list[str] = []

    def read() -> ProcessResult:
        calls.append("exec")
        return ProcessResult(("kubectl", "exec"), 0, "fio-3.33\n", "", 0.25)

    one = FioVersion(read)
    assert calls == []
    assert one.text == "fio-3.33" and one.seconds() == 0.25 and calls == ["exec"]
    with ThreadPoolExecutor(1) as pool:
        many = FioVersion(read, pool)
    assert calls == ["exec", "exec"] and many.text == "fio-3.33"

    def fails() -> ProcessResult:
        raise KubeError("kubectl exec failed: fio: not found")

    assert FioVersion(fails).text is None
