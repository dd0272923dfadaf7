"""The lab cluster's certificates and kubeconfigs, made with ``openssl`` (a few seconds).

A CA; the apiserver's serving certificate (loopback, the node name and the service names);
the service-account key pair; client certificates for the admin and the apiserver's calls
to the kubelet (``system:masters``), the controller manager, the scheduler and the node
(``system:nodes``). Kubeconfigs carry them inline. Valid 30 days: a lab is thrown away.
"""

from __future__ import annotations

import base64
import secrets
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from cephbench.lab.errors import LabError
from cephbench.lab.k8s_conf import K8sLayout
from cephbench.system.process import run

DAYS = "30"
CLIENT_EXT = (
    "basicConstraints=CA:FALSE\n"
    "keyUsage=critical,digitalSignature,keyEncipherment\n"
    "extendedKeyUsage=clientAuth\n"
)
#: kubeconfig name -> (certificate file stem, user CN, organisation)
USERS = {
    "admin": ("admin", "kubernetes-admin", "system:masters"),
    "controller-manager": ("controller-manager", "system:kube-controller-manager", ""),
    "scheduler": ("scheduler", "system:kube-scheduler", ""),
}


def server_ext(node: str) -> str:
    """The apiserver certificate's extensions: the names clients reach it by."""
    names = [
        "DNS:kubernetes",
        "DNS:kubernetes.default",
        "DNS:kubernetes.default.svc",
        "DNS:kubernetes.default.svc.cluster.local",
        "DNS:localhost",
        f"DNS:{node}",
        "IP:127.0.0.1",
        "IP:10.96.0.1",
    ]
    return (
        "basicConstraints=CA:FALSE\n"
        "keyUsage=critical,digitalSignature,keyEncipherment\n"
        "extendedKeyUsage=serverAuth\n"
        f"subjectAltName={','.join(names)}\n"
    )


def render_kubeconfig(server: str, ca: bytes, user: str, cert: bytes, key: bytes) -> str:
    """A kubeconfig with one cluster, one user and one context, certificates inline (pure)."""

    def b64(data: bytes) -> str:
        return base64.b64encode(data).decode()

    return (
        "apiVersion: v1\nkind: Config\n"
        "clusters:\n- name: cephbench-lab\n  cluster:\n"
        f"    server: {server}\n    certificate-authority-data: {b64(ca)}\n"
        f"users:\n- name: {user}\n  user:\n"
        f"    client-certificate-data: {b64(cert)}\n    client-key-data: {b64(key)}\n"
        "contexts:\n- name: cephbench-lab\n"
        f"  context: {{cluster: cephbench-lab, user: {user}}}\n"
        "current-context: cephbench-lab\n"
    )


def _openssl(*args: str, cwd: Path) -> None:
    result = run(["openssl", *args], cwd=str(cwd), timeout=60)
    if result.returncode != 0:
        raise LabError(f"openssl {args[0]} failed: {result.last_error_line()}")


def _key(p: Path, name: str) -> None:
    _openssl("genrsa", "-out", f"{name}.key", "2048", cwd=p)


def _cert(p: Path, name: str, cn: str, org: str, ext: str) -> None:
    _key(p, name)
    subject = f"/O={org}/CN={cn}" if org else f"/CN={cn}"
    _openssl("req", "-new", "-key", f"{name}.key", "-subj", subject, "-out", f"{name}.csr", cwd=p)
    (p / f"{name}.ext").write_text(ext)
    _openssl(
        "x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
        "-set_serial", str(secrets.randbits(63)), "-days", DAYS, "-out", f"{name}.crt", "-extfile", f"{name}.ext",
        cwd=p,
    )  # fmt: skip
    (p / f"{name}.csr").unlink()
    (p / f"{name}.ext").unlink()


def _sa_keys(p: Path) -> None:
    _key(p, "sa")
    _openssl("rsa", "-in", "sa.key", "-pubout", "-out", "sa.pub", cwd=p)


def make(kl: K8sLayout, node: str, apiserver_port: int) -> None:
    """Write the PKI under ``kl.pki`` and the kubeconfigs under ``kl.root``."""
    p = kl.pki
    p.mkdir(parents=True, mode=0o700)
    _key(p, "ca")
    _openssl(
        "req", "-x509", "-new", "-nodes", "-key", "ca.key", "-subj", "/CN=cephbench-lab-ca",
        "-days", DAYS, "-out", "ca.crt", cwd=p,
    )  # fmt: skip
    users = {**USERS, "kubelet": ("kubelet", f"system:node:{node}", "system:nodes")}
    certs = [
        ("apiserver", "kube-apiserver", "", server_ext(node)),
        ("apiserver-kubelet-client", "kube-apiserver-kubelet-client", "system:masters", CLIENT_EXT),
        *((stem, cn, org, CLIENT_EXT) for stem, cn, org in users.values()),
    ]
    with ThreadPoolExecutor(max_workers=4) as pool:  # key generation is the slow part
        jobs = [pool.submit(_sa_keys, p)] + [pool.submit(_cert, p, *c) for c in certs]
        for job in jobs:
            job.result()
    server = f"https://127.0.0.1:{apiserver_port}"
    ca = (p / "ca.crt").read_bytes()
    for name, (stem, cn, _) in users.items():
        text = render_kubeconfig(
            server, ca, cn, (p / f"{stem}.crt").read_bytes(), (p / f"{stem}.key").read_bytes()
        )
        path = kl.kubeconfig(name)
        path.write_text(text)
        path.chmod(0o600)
