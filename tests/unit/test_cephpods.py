"""rbd: and rados: with --pods, without a cluster: the files a pod's librados client gets
(ceph/podconf.py), where its monitors are, the pod's manifest (a Secret at /etc/ceph, no
claim, the node's network only for monitors on loopback), and what --pods is refused for."""

from __future__ import annotations

from pathlib import Path

import pytest

from cephbench.ceph import podconf
from cephbench.errors import UsageError
from cephbench.kube import objects
from cephbench.kube.options import KubeOptions
from cephbench.planning.request import PoolOptions, RunRequest
from cephbench.targets import TargetOptions

DATA = Path(__file__).parents[1] / "data"
# The lab's mon_host as `ceph-conf --show-config-value mon_host` printed it (a one-host lab,
# `cephbench lab up`, 2026-11-26); the others are the forms Ceph's documentation gives.
LAB_MON_HOST = "[v2:127.0.0.1:22554,v1:127.0.0.1:22555]"


@pytest.mark.parametrize(
    ("mon_host", "hosts", "loopback"),
    [
        (LAB_MON_HOST, ["127.0.0.1", "127.0.0.1"], True),
        ("[v2:127.0.0.1:3300/0,v1:127.0.0.1:6789/0]", ["127.0.0.1", "127.0.0.1"], True),
        ("10.0.0.1,10.0.0.2:6789", ["10.0.0.1", "10.0.0.2"], False),
        ("127.0.0.1 10.0.0.2", ["127.0.0.1", "10.0.0.2"], False),
        ("[v2:[::1]:3300,v1:[::1]:6789]", ["::1", "::1"], True),
        ("mon-a.example.com", ["mon-a.example.com"], False),
        ("localhost:6789", ["localhost"], True),
        ("", [], False),
    ],
)
def test_mon_addresses_and_whether_they_are_all_loopback(mon_host, hosts, loopback):
    assert podconf.mon_addresses(mon_host) == hosts
    assert podconf.on_loopback(mon_host) is loopback


def test_the_clients_settings_are_read_from_one_show_config():
    text = (DATA / "ceph" / "16.2.15" / "ceph-conf-show-config.txt").read_text()
    config = podconf.parse_show_config(text)  # facts: ceph-conf.source.md beside it
    assert len(config) == 1810
    assert config["mon_host"] == "[v2:10.254.254.11:10569,v1:10.254.254.11:10570]"
    assert config["fsid"] == "384bef62-16a9-4507-b670-79d0adb13460"
    assert {config[f"auth_{k}_required"] for k in ("cluster", "service", "client")} == {"cephx"}
    assert config["keyring"] == "/work/labq/lab/ceph.client.admin.keyring"
    assert config["admin_socket_mode"] == ""
    assert config["mgr_initial_modules"] == "restful iostat nfs"


def test_the_pods_conf_and_keyring_hold_what_a_client_needs_and_one_key():
    conf = podconf.render_conf(
        {
            "fsid": podconf.NO_FSID,
            "mon_host": LAB_MON_HOST,
            "auth_client_required": "cephx",
        }
    )
    assert conf.splitlines()[1:] == [
        "[global]",
        f"\tmon_host = {LAB_MON_HOST}",
        "\tauth_client_required = cephx",
        "\tkeyring = /etc/ceph/$cluster.$name.keyring",
    ]
    keyring = (  # the format of `ceph auth get-or-create` (Ceph's user management docs)
        '[client.admin]\n\tkey = AQAaAAAAAAAAABAAadmin==\n\tcaps mon = "allow *"\n'
        '[client.bench]\n\tkey = AQAaAAAAAAAAABAAbench==\n\tcaps osd = "profile rbd"\n'
    )
    assert podconf.key_of(keyring, "client.bench") == "AQAaAAAAAAAAABAAbench=="
    assert podconf.key_of(keyring, "client.nobody") is None
    assert podconf.render_keyring("client.bench", "K==") == "[client.bench]\n\tkey = K==\n"


def test_a_librbd_pod_has_the_secret_at_etc_ceph_and_no_claim():
    pod = objects.pod("p", "ns", 4, None, "img", secret="s", host_network=True)
    spec = pod["spec"]
    assert spec["hostNetwork"] is True
    assert spec["dnsPolicy"] == "ClusterFirstWithHostNet"
    assert spec["volumes"] == [
        {"name": "work", "emptyDir": {}},
        {"name": "ceph", "secret": {"secretName": "s"}},
    ]
    assert spec["containers"][0]["volumeMounts"] == [
        {"name": "work", "mountPath": "/cephbench"},
        {"name": "ceph", "mountPath": "/etc/ceph", "readOnly": True},
    ]
    assert "volumeDevices" not in spec["containers"][0]
    assert "hostNetwork" not in objects.pod("p", "ns", 4, None, "img", secret="s")["spec"]


def _rbd(kube: KubeOptions, suite: str = "quick"):
    from cephbench.planning import resolve
    from cephbench.targets.rbd import RbdTarget

    plan = resolve.plan(suite, RunRequest(suite).overrides, RunRequest(suite).axes, None,
                        RunRequest(suite).rados_bench, lambda _: None)  # fmt: skip
    target = RbdTarget("rbd/img", TargetOptions())
    resolve._configure_kube(target, plan, PoolOptions(), kube)
    return target


def test_rbd_takes_the_kubernetes_options_with_pods_only():
    target = _rbd(KubeOptions(pods=2, image="localhost/fio:3.33"))
    assert target.kube == KubeOptions(pods=2, image="localhost/fio:3.33")
    assert _rbd(KubeOptions()).kube is None  # no --pods: fio on this machine
    with pytest.raises(UsageError, match="for rbd: with --pods N"):
        _rbd(KubeOptions(image="localhost/fio:3.33"))
    with pytest.raises(UsageError, match="--pods runs fio in pods; the rados suite runs"):
        _rbd(KubeOptions(pods=2), suite="rados")
    from cephbench.planning import resolve
    from cephbench.targets.rados import RadosTarget

    with pytest.raises(UsageError, match=r"for pvc: targets \(and rbd: with --pods\), not rados:"):
        resolve._configure_kube(
            RadosTarget("pool", TargetOptions()), None, PoolOptions(), KubeOptions(pods=2)
        )


def test_librbd_pods_take_no_volume_mode():
    from cephbench.ceph.connection import Connection
    from cephbench.targets.cephpods import CephPods

    with pytest.raises(UsageError, match="--volume-mode is for pvc: targets"):
        CephPods(KubeOptions(pods=2, volume_mode="Block"), Connection())


def test_the_pods_fio_becomes_the_runs_fio(tmp_path):
    from cephbench.store import Store

    with Store(tmp_path / "s.db") as store:
        run = store.start_run(label=None, suite="quick", target="rbd:lab",
                              environment={"tools": {"fio": "fio-3.33"}}, params={})  # fmt: skip
        store.set_tool_versions(run, {"fio": "fio-3.35"})
        assert store.get_run(run).environment["tools"] == {
            "fio": "fio-3.35",
            "fio (this machine)": "fio-3.33",
        }
        other = store.start_run(label=None, suite="quick", target="pvc:x",
                                environment={"tools": {"fio": "fio-3.33"}}, params={})  # fmt: skip
        store.set_tool_versions(other, {"fio": "fio-3.33"})
        assert store.get_run(other).environment["tools"] == {"fio": "fio-3.33"}


def test_the_rbd_image_behind_a_pv():
    from cephbench.kube.fingerprint import rbd_image_of
    from cephbench.lab.k8s_storage import persistent_volume

    claim = {"metadata": {"name": "c", "namespace": "ns", "uid": "u"}, "spec": {}}
    lab = persistent_volume("pvc-u", claim, "vm", "/mnt/x", 1 << 30, False, "pvc-u", pool="k8s")
    assert rbd_image_of(lab) == {"pool": "k8s", "image": "pvc-u"}  # the lab's provisioner's PV
    # A Rook 1.4.1 (ceph-csi 3.1.0) PV's driver and attributes, as posted in
    # https://github.com/elemental-lf/benji/pull/91 (2020-08-31; the uuid elided there too).
    rook = {"spec": {"csi": {
        "driver": "rook-ceph.rbd.csi.ceph.com",
        "volumeHandle": "0001-0009-rook-ceph-0000000000000001-<uuid>",
        "volumeAttributes": {
            "clusterID": "rook-ceph", "imageFeatures": "layering", "imageFormat": "2",
            "imageName": "csi-vol-<uuid>", "journalPool": "replicated", "pool": "replicated",
            "radosNamespace": "",
        },
    }}}  # fmt: skip
    assert rbd_image_of(rook) == {"pool": "replicated", "image": "csi-vol-<uuid>"}
    older = {"spec": {"csi": {**rook["spec"]["csi"], "volumeAttributes": {  # before 3.1.0
        "clusterID": "rook-ceph", "imageFeatures": "layering", "pool": "replicated",
    }}}}  # fmt: skip
    assert rbd_image_of(older) is None  # no imageName: the image is not named
    # ceph-csi's static PV (docs/static-pvc.md): the handle is the image's name.
    static = {"spec": {"csi": {
        "driver": "rbd.csi.ceph.com", "fsType": "ext4", "volumeHandle": "static-image",
        "volumeAttributes": {"clusterID": "ba68226a-672f-4ba5-97bc-22840318b2ec",
                             "pool": "replicapool", "staticVolume": "true",
                             "imageFeatures": "layering"},
    }}}  # fmt: skip
    assert rbd_image_of(static) == {"pool": "replicapool", "image": "static-image"}
    ns = {"spec": {"csi": {**rook["spec"]["csi"], "volumeAttributes": {
        "pool": "p", "imageName": "i", "radosNamespace": "tenant"}}}}  # fmt: skip
    assert rbd_image_of(ns) == {"pool": "p", "image": "i", "namespace": "tenant"}
    cephfs = {"spec": {"csi": {"driver": "cephfs.csi.ceph.com", "volumeAttributes": {}}}}
    assert rbd_image_of(cephfs) is None and rbd_image_of({}) is None


def test_pods_and_clients_do_not_mix_and_shared_image_puts_every_pod_on_one():
    from cephbench.planning import resolve
    from cephbench.planning.request import ClientsOptions

    target = _rbd(KubeOptions(pods=2))
    with pytest.raises(UsageError, match="--clients and --pods both say where fio runs"):
        resolve.check_shared(target, ClientsOptions(spec="lab"))
    assert target.shared_image is False
    resolve.check_shared(target, ClientsOptions(shared_image=True))
    assert target.shared_image is True
