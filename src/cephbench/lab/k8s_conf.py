"""What the lab's Kubernetes is made of, as pure functions: paths, ports, names, the
daemons' argument lists and configuration files (the StorageClass and PV manifests:
:mod:`.k8s_storage`).

Everything lives under ``<lab dir>/k8s``; ports are chosen free per lab, and the bridge and
cgroup names derive from the lab directory, so two labs' clusters run side by side. The
settings that make it work on a machine like this one (see docs/lab.md):

* containerd: ``restrict_oom_score_adj`` (no process may lower its oom_score_adj here), the
  locally built pause image as sandbox image, netns under its state directory;
* kubelet: ``failCgroupV1: false`` (1.35+ refuses cgroup v1 otherwise),
  ``makeIPTablesUtilChains: false`` (hands off the host's iptables), its own cgroup root;
* the CNI bridge has no uplink and no address: pods get an IP and no route anywhere.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, fields
from pathlib import Path

STORAGE_CLASS = "cephbench-lab"
PROVISIONER = "cephbench.lab/rbd-fuse"
POOL = "k8s"
FUSE_POOL = "rbd"
"""rbd-fuse's own default pool: the class's pool on a release lab, whose rbd-fuse is given no
``-p`` (:func:`pool_for`)."""


def pool_for(release: str) -> str:
    """The pool of the class's images on a lab of ``release``: ``k8s`` on Pacific; rbd-fuse's
    default pool ``rbd`` on a release lab, since Tentacle's rbd-fuse (with libfuse 3.18) dies
    of SIGSEGV in ``fuse_opt_parse`` on any option that has a default (``-p``, ``-c``): libfuse
    frees the option's old value, a string literal in rbd-fuse."""
    return POOL if release == "pacific" else FUSE_POOL


BACKEND = "rbd-fuse"
SERVICE_RANGE = "10.96.0.0/24"
POD_SUBNET = "10.244.0.0/24"
CNI_BIN = "/usr/lib/cni"
RUNC = "/usr/sbin/runc"
#: Host paths containerd 1.6 and the kubelet create whatever their flags say.
HARDWIRED = ("/run/containerd/s", "/var/lib/cni/results", "/var/lib/kubelet/device-plugins")
#: The sysctls the kubelet would rewrite on the host, and the values it wants to see.
KERNEL_TUNABLES = {
    "/proc/sys/vm/overcommit_memory": "1",
    "/proc/sys/kernel/panic": "10",
    "/proc/sys/kernel/panic_on_oops": "1",
}
DAEMONS = ("etcd", "containerd", "kube-apiserver", "kube-controller-manager", "kube-scheduler")
KUBELET = "kubelet"
PROVISIONER_DAEMON = "k8s-provisioner"


@dataclass(frozen=True)
class Ports:
    """The TCP ports one lab's cluster listens on (all on 127.0.0.1)."""

    apiserver: int
    etcd_client: int
    etcd_peer: int
    kubelet: int
    kubelet_healthz: int
    stream: int
    controller_manager: int
    scheduler: int

    @classmethod
    def block(cls, first: int) -> Ports:
        """Consecutive ports from ``first``."""
        return cls(*range(first, first + cls.count()))

    @classmethod
    def count(cls) -> int:
        return len(fields(cls))


def short_id(lab_dir: Path) -> str:
    """6 hex digits derived from the lab directory: names of host-wide objects."""
    return hashlib.sha256(str(lab_dir).encode()).hexdigest()[:6]


def bridge_name(lab_dir: Path) -> str:
    return f"cb{short_id(lab_dir)}"


def cgroup_root(lab_dir: Path) -> str:
    """The kubelet's cgroupRoot (the same path in every cgroup v1 hierarchy)."""
    return f"/cephbench-k8s-{short_id(lab_dir)}"


@dataclass(frozen=True)
class K8sLayout:
    """The paths of a lab's cluster, all under ``<lab dir>/k8s`` (pure)."""

    lab_dir: Path

    @property
    def root(self) -> Path:
        return self.lab_dir / "k8s"

    @property
    def pki(self) -> Path:
        return self.root / "pki"

    @property
    def bin(self) -> Path:
        """Links to the cached binaries: the directory ``lab env`` puts on PATH."""
        return self.root / "bin"

    @property
    def conf(self) -> Path:
        return self.root / "conf"

    @property
    def containerd_conf(self) -> Path:
        return self.conf / "containerd.toml"

    @property
    def kubelet_conf(self) -> Path:
        return self.conf / "kubelet.yaml"

    @property
    def cni_conf_dir(self) -> Path:
        return self.conf / "net.d"

    @property
    def run(self) -> Path:
        return self.root / "run"

    @property
    def socket(self) -> Path:
        return self.run / "containerd.sock"

    @property
    def images(self) -> Path:
        return self.root / "images"

    @property
    def volumes(self) -> Path:
        """One directory per provisioned volume (its rbd-fuse mount, filesystem, record)."""
        return self.root / "volumes"

    @property
    def fakesys(self) -> Path:
        return self.root / "fakesys"

    @property
    def admin_kubeconfig(self) -> Path:
        return self.root / "admin.kubeconfig"

    def kubeconfig(self, user: str) -> Path:
        return self.root / f"{user}.kubeconfig"

    def data(self, name: str) -> Path:
        return self.root / name


def etcd_argv(kl: K8sLayout, ports: Ports) -> list[str]:
    client, peer = f"http://127.0.0.1:{ports.etcd_client}", f"http://127.0.0.1:{ports.etcd_peer}"
    return [
        "etcd",
        "--name",
        "lab",
        "--data-dir",
        str(kl.data("etcd")),
        "--listen-client-urls",
        client,
        "--advertise-client-urls",
        client,
        "--listen-peer-urls",
        peer,
        "--initial-advertise-peer-urls",
        peer,
        "--initial-cluster",
        f"lab={peer}",
    ]


def containerd_argv(kl: K8sLayout) -> list[str]:
    return ["containerd", "--config", str(kl.containerd_conf)]


def apiserver_argv(kl: K8sLayout, ports: Ports, bin_dir: Path) -> list[str]:
    p = kl.pki
    return [
        str(bin_dir / "kube-apiserver"),
        f"--etcd-servers=http://127.0.0.1:{ports.etcd_client}",
        "--bind-address=127.0.0.1",
        f"--secure-port={ports.apiserver}",
        "--advertise-address=127.0.0.1",
        "--endpoint-reconciler-type=none",  # Endpoints refuse a loopback address
        f"--service-cluster-ip-range={SERVICE_RANGE}",
        f"--client-ca-file={p / 'ca.crt'}",
        f"--tls-cert-file={p / 'apiserver.crt'}",
        f"--tls-private-key-file={p / 'apiserver.key'}",
        f"--kubelet-client-certificate={p / 'apiserver-kubelet-client.crt'}",
        f"--kubelet-client-key={p / 'apiserver-kubelet-client.key'}",
        "--kubelet-preferred-address-types=Hostname,InternalIP",  # the node name is loopback
        "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
        f"--service-account-key-file={p / 'sa.pub'}",
        f"--service-account-signing-key-file={p / 'sa.key'}",
        "--authorization-mode=Node,RBAC",
        "--enable-admission-plugins=NodeRestriction",
        "--allow-privileged=true",
        "--profiling=false",
        "--v=1",
    ]


def controller_manager_argv(kl: K8sLayout, ports: Ports, bin_dir: Path) -> list[str]:
    kc, p = kl.kubeconfig("controller-manager"), kl.pki
    return [
        str(bin_dir / "kube-controller-manager"),
        f"--kubeconfig={kc}",
        f"--authentication-kubeconfig={kc}",
        f"--authorization-kubeconfig={kc}",
        "--bind-address=127.0.0.1",
        f"--secure-port={ports.controller_manager}",
        "--leader-elect=false",
        f"--service-account-private-key-file={p / 'sa.key'}",
        f"--root-ca-file={p / 'ca.crt'}",
        "--use-service-account-credentials=true",
        f"--cluster-signing-cert-file={p / 'ca.crt'}",
        f"--cluster-signing-key-file={p / 'ca.key'}",
        "--profiling=false",
        "--v=1",
    ]


def scheduler_argv(kl: K8sLayout, ports: Ports, bin_dir: Path) -> list[str]:
    kc = kl.kubeconfig("scheduler")
    return [
        str(bin_dir / "kube-scheduler"),
        f"--kubeconfig={kc}",
        f"--authentication-kubeconfig={kc}",
        f"--authorization-kubeconfig={kc}",
        "--bind-address=127.0.0.1",
        f"--secure-port={ports.scheduler}",
        "--leader-elect=false",
        "--profiling=false",
        "--v=1",
    ]


def kubelet_argv(kl: K8sLayout, bin_dir: Path) -> list[str]:
    return [
        str(bin_dir / "kubelet"),
        f"--config={kl.kubelet_conf}",
        f"--kubeconfig={kl.kubeconfig('kubelet')}",
        f"--root-dir={kl.data('kubelet')}",
        f"--cert-dir={kl.data('kubelet') / 'pki'}",
        "--v=1",
    ]


def render_containerd(kl: K8sLayout, ports: Ports, sandbox_image: str) -> str:
    """containerd 1.6's config: everything under the lab, the CRI settings this machine needs."""
    s = kl.root
    return f"""# containerd of the cephbench lab in {kl.lab_dir}: everything under {s}
version = 2
root = "{s / "containerd" / "root"}"
state = "{s / "containerd" / "state"}"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", \
"io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", \
"io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]

[grpc]
  address = "{kl.socket}"
[ttrpc]
  address = "{kl.socket}.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""

[plugins."io.containerd.internal.v1.opt"]
  path = "{s / "containerd" / "opt"}"

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "{sandbox_image}"
  netns_mounts_under_state_dir = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "{ports.stream}"
  enable_tls_streaming = false
  disable_apparmor = true
  # no process may lower its oom_score_adj on this kind of machine (CAP_SYS_RESOURCE is
  # missing from the bounding set): clamp the sandbox's -998 to containerd's own value
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        BinaryName = "{RUNC}"
        Root = "{kl.run / "runc"}"
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "{CNI_BIN}"
    conf_dir = "{kl.cni_conf_dir}"
"""


def render_kubelet(kl: K8sLayout, ports: Ports, cgroup: str) -> str:
    """The KubeletConfiguration (YAML is a superset of JSON: written as JSON)."""
    config = {
        "apiVersion": "kubelet.config.k8s.io/v1beta1",
        "kind": "KubeletConfiguration",
        "address": "127.0.0.1",
        "port": ports.kubelet,
        "readOnlyPort": 0,
        "healthzBindAddress": "127.0.0.1",
        "healthzPort": ports.kubelet_healthz,
        "authentication": {
            "anonymous": {"enabled": False},
            "webhook": {"enabled": True},
            "x509": {"clientCAFile": str(kl.pki / "ca.crt")},
        },
        "authorization": {"mode": "Webhook"},
        "cgroupDriver": "cgroupfs",
        "cgroupRoot": cgroup,
        "failCgroupV1": False,
        "failSwapOn": False,
        "containerRuntimeEndpoint": f"unix://{kl.socket}",
        "imageServiceEndpoint": f"unix://{kl.socket}",
        "podLogsDir": str(kl.data("pod-logs")),
        "makeIPTablesUtilChains": False,
        "protectKernelDefaults": False,
        "resolvConf": "/etc/resolv.conf",
        "serializeImagePulls": False,
        "evictionHard": {
            "memory.available": "100Mi",
            "nodefs.available": "1%",
            "imagefs.available": "1%",
            "nodefs.inodesFree": "1%",
        },
    }
    return json.dumps(config, indent=2) + "\n"


def render_cni(kl: K8sLayout, bridge: str) -> str:
    """The CNI network: a bridge with no uplink and no address, host-local IPAM in the lab."""
    config = {
        "cniVersion": "0.4.0",
        "name": f"cephbench-{short_id(kl.lab_dir)}",
        "plugins": [
            {
                "type": "bridge",
                "bridge": bridge,
                "isGateway": False,
                "ipMasq": False,
                "hairpinMode": False,
                "ipam": {
                    "type": "host-local",
                    "ranges": [[{"subnet": POD_SUBNET}]],
                    "dataDir": str(kl.data("cni") / "ipam"),
                },
            }
        ],
    }
    return json.dumps(config, indent=2) + "\n"


def image_size_mib(request_bytes: int) -> int:
    """The RBD image size for a request: whole MiB, at least 16 MiB (ext4 needs room)."""
    return max(16, -(-request_bytes // (1024 * 1024)))


@dataclass(frozen=True)
class K8sInfo:
    """A lab's Kubernetes, for clients: ``kubectl --kubeconfig KUBECONFIG ...`` reaches it,
    and PVCs of ``storage_class`` are RBD images in the lab's pool ``pool``."""

    kubeconfig: Path
    kubectl: Path
    storage_class: str
    pool: str
    node: str
    version: str
    server: str
    bin_dir: Path
    fio_image: str | None = None  # the fio image in the node's containerd (imagePullPolicy Never)

    @property
    def env(self) -> dict[str, str]:
        return {"KUBECONFIG": str(self.kubeconfig)}


def k8s_info(
    lab_dir: Path,
    version: str,
    node: str,
    apiserver_port: int,
    pool: str,
    fio_image: str | None = None,
) -> K8sInfo:
    kl = K8sLayout(lab_dir)
    return K8sInfo(
        kubeconfig=kl.admin_kubeconfig,
        kubectl=kl.bin / "kubectl",
        storage_class=STORAGE_CLASS,
        pool=pool,
        node=node,
        version=version,
        server=f"https://127.0.0.1:{apiserver_port}",
        bin_dir=kl.bin,
        fio_image=fio_image,
    )
