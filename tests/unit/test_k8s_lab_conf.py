"""The lab's Kubernetes as rendered text: ports, names, configuration files, manifests, the
wrapper module of the build, the image archive, and the pure parts of teardown and the
provisioner (pure: nothing is started)."""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

import pytest

from cephbench.errors import ToolFailed
from cephbench.kube import image
from cephbench.lab import k8s, k8s_build, k8s_down, k8s_pki, k8s_provisioner, k8s_storage
from cephbench.lab import k8s_conf as conf

LAB = Path("/var/tmp/some-lab")
KL = conf.K8sLayout(LAB)
PORTS = conf.Ports.block(20000)

# The head of k8s.io/kubernetes v1.37.2's go.mod (Go module proxy), cut to three staging modules.
KUBE_GO_MOD = """// This is a generated file. Do not edit directly.

module k8s.io/kubernetes

go 1.26.0

godebug default=go1.26

require (
\tgithub.com/blang/semver/v4 v4.0.0
\tk8s.io/api v0.0.0
)

replace (
\tk8s.io/api => ./staging/src/k8s.io/api
\tk8s.io/apimachinery => ./staging/src/k8s.io/apimachinery
\tk8s.io/kubelet => ./staging/src/k8s.io/kubelet
)
"""


def test_ports_are_consecutive_and_distinct():
    assert conf.Ports.count() == 8
    values = list(vars(PORTS).values())
    assert values == list(range(20000, 20008))


def test_host_wide_names_derive_from_the_lab_dir():
    other = Path("/var/tmp/other-lab")
    assert conf.bridge_name(LAB) == conf.bridge_name(LAB)
    assert conf.bridge_name(LAB) != conf.bridge_name(other)
    assert len(conf.bridge_name(LAB)) <= 15  # IFNAMSIZ
    assert conf.bridge_name(LAB).startswith("cb")
    assert conf.cgroup_root(LAB) != conf.cgroup_root(other)


def test_everything_lives_under_the_lab_dir():
    for path in (KL.pki, KL.socket, KL.containerd_conf, KL.kubelet_conf, KL.volumes, KL.bin):
        assert path.is_relative_to(LAB / "k8s")


def test_containerd_config_has_the_settings_this_machine_needs():
    text = conf.render_containerd(KL, PORTS, "localhost/pause:cephbench")
    assert "restrict_oom_score_adj = true" in text
    assert 'sandbox_image = "localhost/pause:cephbench"' in text
    assert "netns_mounts_under_state_dir = true" in text
    assert f'address = "{KL.socket}"' in text
    assert f'stream_server_port = "{PORTS.stream}"' in text
    assert 'stream_server_address = "127.0.0.1"' in text
    assert f'conf_dir = "{KL.cni_conf_dir}"' in text
    for line in text.splitlines():  # no path outside the lab but the Debian programs'
        if '= "/' in line:
            path = line.split('"')[1]
            assert path.startswith((str(LAB), "/usr/")), line


def test_kubelet_config():
    config = json.loads(conf.render_kubelet(KL, PORTS, "/cephbench-k8s-abc123"))
    assert config["failCgroupV1"] is False
    assert config["makeIPTablesUtilChains"] is False
    assert config["protectKernelDefaults"] is False
    assert config["cgroupRoot"] == "/cephbench-k8s-abc123"
    assert config["address"] == config["healthzBindAddress"] == "127.0.0.1"
    assert (config["port"], config["healthzPort"]) == (PORTS.kubelet, PORTS.kubelet_healthz)
    assert config["readOnlyPort"] == 0
    assert config["containerRuntimeEndpoint"] == f"unix://{KL.socket}"


def test_cni_bridge_has_no_uplink():
    config = json.loads(conf.render_cni(KL, "cbabc123"))
    [bridge] = config["plugins"]
    assert bridge["bridge"] == "cbabc123"
    assert bridge["isGateway"] is False and bridge["ipMasq"] is False
    assert bridge["ipam"]["dataDir"].startswith(str(LAB))


def test_daemons_listen_on_loopback_at_the_lab_ports():
    api = conf.apiserver_argv(KL, PORTS, KL.bin)
    assert f"--secure-port={PORTS.apiserver}" in api
    assert f"--etcd-servers=http://127.0.0.1:{PORTS.etcd_client}" in api
    assert "--kubelet-preferred-address-types=Hostname,InternalIP" in api
    assert "--endpoint-reconciler-type=none" in api
    etcd = conf.etcd_argv(KL, PORTS)
    assert f"http://127.0.0.1:{PORTS.etcd_peer}" in etcd
    assert f"--secure-port={PORTS.controller_manager}" in conf.controller_manager_argv(
        KL, PORTS, KL.bin
    )
    assert f"--secure-port={PORTS.scheduler}" in conf.scheduler_argv(KL, PORTS, KL.bin)
    for argv in (api, etcd, conf.kubelet_argv(KL, KL.bin), conf.containerd_argv(KL)):
        assert any(str(KL.root) in a for a in argv)  # how teardown knows the lab's processes


def test_storage_class():
    sc = k8s_storage.storage_class(LAB)
    assert sc["metadata"]["name"] == "cephbench-lab"
    assert sc["reclaimPolicy"] == "Delete"
    assert sc["allowVolumeExpansion"] is False
    assert sc["volumeBindingMode"] in ("Immediate", "WaitForFirstConsumer")
    assert sc["parameters"]["pool"] == "k8s"
    assert sc["parameters"]["cephbench.lab/backend"] == "rbd-fuse"
    assert sc["provisioner"] == conf.PROVISIONER


CLAIM = {
    "metadata": {"name": "data", "namespace": "ns1", "uid": "1234-abcd"},
    "spec": {
        "storageClassName": "cephbench-lab",
        "accessModes": ["ReadWriteOnce"],
        "resources": {"requests": {"storage": "1Gi"}},
    },
    "status": {"phase": "Pending"},
}


@pytest.mark.parametrize("block", [False, True])
def test_persistent_volume_is_local_and_bound_to_its_claim(block: bool):
    pv = k8s_storage.persistent_volume("pvc-1234-abcd", CLAIM, "vm", "/x/fs", 2**30, block, "pvc-1")
    spec = pv["spec"]
    assert spec["local"] == {"path": "/x/fs"}
    assert spec["volumeMode"] == ("Block" if block else "Filesystem")
    assert spec["claimRef"]["uid"] == "1234-abcd"
    assert spec["claimRef"]["namespace"] == "ns1"
    assert spec["storageClassName"] == "cephbench-lab"
    assert spec["persistentVolumeReclaimPolicy"] == "Delete"
    term = spec["nodeAffinity"]["required"]["nodeSelectorTerms"][0]["matchExpressions"][0]
    assert term["values"] == ["vm"]
    annotations = pv["metadata"]["annotations"]
    assert annotations["pv.kubernetes.io/provisioned-by"] == conf.PROVISIONER


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1Gi", 2**30),
        ("500Mi", 500 * 2**20),
        ("1G", 10**9),
        ("1073741824", 2**30),
        ("1.5Gi", 3 * 2**29),
    ],
)
def test_quantity_bytes(text: str, expected: int):
    assert k8s_storage.quantity_bytes(text) == expected


def test_image_size_is_whole_mib_with_a_floor():
    assert conf.image_size_mib(2**30) == 1024
    assert conf.image_size_mib(2**30 + 1) == 1025
    assert conf.image_size_mib(1000) == 16


def test_wrapper_module_replaces_each_staging_module_with_its_release():
    text = k8s_build.wrapper_go_mod(KUBE_GO_MOD, "v1.37.2")
    assert "require k8s.io/kubernetes v1.37.2" in text
    assert "go 1.26.0" in text and "godebug default=go1.26" in text
    assert "\tk8s.io/api => k8s.io/api v0.37.2" in text
    assert "\tk8s.io/kubelet => k8s.io/kubelet v0.37.2" in text
    assert "./staging" not in text
    assert k8s_build.required_go(KUBE_GO_MOD) == (1, 26, 0)


def test_build_versions():
    assert k8s_build.staging_version("v1.37.2") == "v0.37.2"
    with pytest.raises(ValueError):
        k8s_build.staging_version("1.37")
    flags = k8s_build.ldflags("v1.37.2")
    assert "-X k8s.io/component-base/version.gitVersion=v1.37.2" in flags
    assert "-X k8s.io/component-base/version.gitMinor=37" in flags
    assert k8s_build.parse_go_version("go version go1.26.8 linux/amd64") == (1, 26, 8)
    assert k8s_build.parse_go_version("go version go1.19 linux/amd64") == (1, 19, 0)
    assert k8s_build.parse_go_version("nothing") is None


def test_binaries_are_cached_by_version_under_the_cache_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert k8s_build.bin_dir("v1.37.2") == tmp_path / "cephbench" / "k8s" / "v1.37.2" / "bin"
    assert k8s_build.missing("v1.37.2") == list(k8s_build.COMMANDS)


def test_kubeconfig_carries_the_certificates_inline():
    text = k8s_pki.render_kubeconfig("https://127.0.0.1:20000", b"CA", "admin", b"C", b"K")
    assert "server: https://127.0.0.1:20000" in text
    assert "certificate-authority-data: Q0E=" in text
    assert "client-key-data: Sw==" in text


def test_mounts_under_deepest_first():
    # /proc/self/mountinfo lines, recorded on this machine with a lab's cluster running
    info = "\n".join(
        [
            "29 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw",
            "812 29 254:0 /var/tmp/lab/k8s /var/tmp/lab/k8s rw shared:300 - ext4 /dev/vda rw",
            "840 812 0:90 / /var/tmp/lab/k8s/volumes/pvc-1/rbd rw shared:310 - fuse rbd-fuse rw",
            "845 812 7:0 / /var/tmp/lab/k8s/volumes/pvc-1/fs rw shared:311 - ext4 /dev/loop0 rw",
            "850 29 0:91 / /var/tmp/lab-other/k8s rw - tmpfs tmpfs rw",
        ]
    )
    got = k8s_down.mounts_under(Path("/var/tmp/lab/k8s"), info)
    assert got[-1] == "/var/tmp/lab/k8s"
    assert set(got[:2]) == {
        "/var/tmp/lab/k8s/volumes/pvc-1/rbd",
        "/var/tmp/lab/k8s/volumes/pvc-1/fs",
    }


def test_cgroup_hierarchies_from_mounts():
    mounts = "\n".join(
        [
            "tmpfs /sys/fs/cgroup tmpfs rw 0 0",
            "cgroup /sys/fs/cgroup/cpu cgroup rw,cpu 0 0",
            "cgroup /sys/fs/cgroup/cpuset cgroup rw,cpuset 0 0",
            "cgroup2 /sys/fs/cgroup/unified cgroup2 rw 0 0",
        ]
    )
    assert k8s_down.hierarchies(mounts) == [
        Path("/sys/fs/cgroup/cpu"),
        Path("/sys/fs/cgroup/cpuset"),
        Path("/sys/fs/cgroup/unified"),
    ]


def test_topmost_missing():
    existing = {Path("/"), Path("/run"), Path("/var"), Path("/var/lib")}
    exists = existing.__contains__
    assert k8s.topmost_missing(Path("/run/containerd/s"), exists) == Path("/run/containerd")
    assert k8s.topmost_missing(Path("/var/lib/cni/results"), exists) == Path("/var/lib/cni")
    assert k8s.topmost_missing(Path("/var/lib"), exists) is None


def test_provisioner_picks_pending_claims_of_its_class_and_released_volumes():
    other = json.loads(json.dumps(CLAIM))
    other["spec"]["storageClassName"] = "fast"
    bound = json.loads(json.dumps(CLAIM))
    bound["spec"]["volumeName"] = "pv-x"
    assert k8s_provisioner.wanted([CLAIM, other, bound], set()) == [CLAIM]
    assert k8s_provisioner.wanted([CLAIM], {"pvc-1234-abcd"}) == []
    ours = {
        "metadata": {"annotations": {"pv.kubernetes.io/provisioned-by": conf.PROVISIONER}},
        "status": {"phase": "Released"},
    }
    theirs = {"metadata": {"annotations": {}}, "status": {"phase": "Released"}}
    bound_pv = {**ours, "status": {"phase": "Bound"}}
    assert k8s_provisioner.released([ours, theirs, bound_pv]) == [ours]


def test_ldd_output_gives_the_files_to_copy():
    # `ldd /usr/bin/sleep` on Debian 12
    text = (
        "\tlinux-vdso.so.1 (0x00007f329a1b4000)\n"
        "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f3299fb5000)\n"
        "\t/lib64/ld-linux-x86-64.so.2 (0x00007f329a1b6000)\n"
    )
    assert image.parse_ldd(text) == [
        "/lib/x86_64-linux-gnu/libc.so.6",
        "/lib64/ld-linux-x86-64.so.2",
    ]
    assert image.parse_fio_version("fio-3.33\n") == "3.33"


def test_archive_is_a_docker_archive_of_one_layer(tmp_path: Path):
    program = tmp_path / "hello"
    program.write_text("#!/bin/sh\necho hello\n")
    program.chmod(0o755)
    out = tmp_path / "img.tar"
    image.write_archive(
        out, "localhost/test:1", ["/bin/hello"], {"/bin/hello": str(program)}, {"/tmp": 0o1777}
    )
    with tarfile.open(out) as tar:
        [manifest] = json.load(tar.extractfile("manifest.json"))  # type: ignore[arg-type]
        assert manifest["RepoTags"] == ["localhost/test:1"]
        config = json.load(tar.extractfile(manifest["Config"]))  # type: ignore[arg-type]
        assert config["config"]["Entrypoint"] == ["/bin/hello"]
        layer = tar.extractfile(manifest["Layers"][0])
        assert layer is not None
        with tarfile.open(fileobj=layer) as inner:
            members = {m.name: m for m in inner.getmembers()}
    assert members["bin"].isdir() and members["tmp"].mode == 0o1777
    assert members["bin/hello"].mode == 0o755
    assert config["rootfs"]["diff_ids"][0].endswith(manifest["Layers"][0].split("/")[0])


def test_a_failed_provisioning_is_an_event_on_the_claim():
    event = k8s_provisioner.failure_event(CLAIM, "rbd create k8s/pvc-1 failed: no space")
    assert event["involvedObject"]["uid"] == "1234-abcd"
    assert event["involvedObject"]["kind"] == "PersistentVolumeClaim"
    assert event["metadata"]["namespace"] == "ns1"
    assert event["type"] == "Warning" and event["reason"] == "ProvisioningFailed"
    assert "no space" in event["message"]


def _root(tmp_path: Path) -> Path:
    """A merged-/usr root as Debian's are: relative and absolute links inside it."""
    root = tmp_path / "root"
    lib = root / "usr/lib/x86_64-linux-gnu"
    lib.mkdir(parents=True)
    (root / "usr/bin").mkdir()
    (root / "usr/lib64").mkdir()
    for f in (lib / "libc.so.6", lib / "ld-linux-x86-64.so.2", root / "usr/bin/dash"):
        f.write_text(f.name)
    (root / "bin").symlink_to("usr/bin")
    (root / "lib64").symlink_to("usr/lib64")
    (root / "usr/bin/sh").symlink_to("dash")
    # absolute: the root's own /usr/lib..., never this machine's
    (root / "usr/lib64/ld-linux-x86-64.so.2").symlink_to(
        "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
    )
    (root / "usr/bin/libc").symlink_to("../lib/x86_64-linux-gnu/libc.so.6")
    (root / "usr/bin/loop").symlink_to("/usr/bin/loop")
    return root


def test_a_roots_links_are_followed_inside_the_root(tmp_path: Path):
    root = _root(tmp_path)
    loader = "/lib64/ld-linux-x86-64.so.2"
    assert image.resolve_in(root, loader) == "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
    assert Path(image.host_file(root, loader)).read_text() == "ld-linux-x86-64.so.2"
    assert image.host_file(root, loader).startswith(str(root) + "/")
    assert image.resolve_in(root, "/bin/sh") == "/usr/bin/dash"
    assert image.resolve_in(root, "/bin/libc") == "/usr/lib/x86_64-linux-gnu/libc.so.6"
    assert image.resolve_in(root, "/usr/bin/../bin/dash") == "/usr/bin/dash"
    with pytest.raises(ToolFailed, match="too many levels of symbolic links"):
        image.resolve_in(root, "/bin/loop")
    # no root: this machine's own paths
    assert image.host_file(None, str(root / "bin/sh")) == str(root / "usr/bin/dash")


def test_rbd_fuse_is_given_only_the_options_that_differ_from_its_defaults():
    from cephbench.lab.k8s_volumes import rbd_fuse_args

    # Pacific's lab: its pool and its conf
    assert rbd_fuse_args("/l/k8s/volumes/pv/rbd", "k8s", "pv", "/l/ceph.conf") == [
        "/l/k8s/volumes/pv/rbd", "-r", "pv", "-p", "k8s", "-c", "/l/ceph.conf", "-f",
    ]  # fmt: skip
    # a release lab: the default pool, the view's /etc/ceph/ceph.conf (Tentacle's rbd-fuse
    # dies of SIGSEGV on any -p or -c)
    assert rbd_fuse_args("/m", "rbd", "pv", None) == ["/m", "-r", "pv", "-f"]
    assert rbd_fuse_args("/m", "rbd", "pv", "/etc/ceph/ceph.conf") == ["/m", "-r", "pv", "-f"]
    assert conf.pool_for("pacific") == "k8s"
    assert conf.pool_for("reef") == conf.pool_for("tentacle") == conf.FUSE_POOL == "rbd"


def test_a_provisioners_failure_is_the_claims_reason_over_the_controllers_waiting():
    """The controller's ExternalProvisioning event recurs every few seconds, after the
    provisioner's ProvisioningFailed: the failure is still the reason given."""
    from cephbench.kube.reasons import pending_reason

    data = Path(__file__).parent.parent / "data" / "k8s"
    claim = json.loads((data / "pending-claim.json").read_text())
    events = json.loads((data / "events.json").read_text())["items"]
    failed = k8s_provisioner.failure_event(
        {**claim, "metadata": {**claim["metadata"], "uid": "u"}}, "rbd-fuse did not expose k8s/pv"
    )
    reason = pending_reason(claim, [failed, *events])
    assert reason == "provisioning failed: cephbench.lab/rbd-fuse: rbd-fuse did not expose k8s/pv"
    assert pending_reason(claim, events).startswith("no provisioner has answered")  # type: ignore[union-attr]
