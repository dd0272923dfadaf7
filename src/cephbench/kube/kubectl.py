"""The one way cephbench talks to Kubernetes: ``kubectl``, run as an argument list through
``cephbench.system.process``, with kubectl's own conventions (``KUBECONFIG``,
``--kubeconfig``, ``--context``).

Every call has a timeout; every wait names what it waited for; kubectl's failures become one
line saying what is wrong and what to do (forbidden: the verb and the resource; not found; no
context configured; the API server unreachable)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from cephbench.errors import CephbenchError, ToolFailed, ToolMissing, UsageError
from cephbench.system.process import ProcessResult, run, which

CALL_TIMEOUT = 60.0
"""Seconds one kubectl call (not a wait) may take."""
POLL = 0.25
WATCH = 3.0
"""Seconds one ``kubectl wait`` of :meth:`Kubectl.watch` lasts before the caller looks again."""
T = TypeVar("T")


class KubeError(ToolFailed):
    """kubectl failed; the message says why in one line."""


class Forbidden(KubeError):
    """The user may not do this (RBAC)."""


class NotFound(KubeError):
    """The object does not exist."""


class WaitTimeout(KubeError):
    """A condition was not reached in time."""


@dataclass(frozen=True)
class Kubectl:
    """kubectl with the user's kubeconfig and context (None: kubectl's own defaults)."""

    kubeconfig: str | None = None
    context: str | None = None
    binary: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"kubeconfig": self.kubeconfig, "context": self.context, "binary": self.binary}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Kubectl:
        return cls(data.get("kubeconfig"), data.get("context"), data.get("binary"))

    @property
    def path(self) -> str:
        if self.binary:
            return self.binary
        try:
            return which("kubectl")
        except ToolMissing:
            raise ToolMissing(
                "kubectl is not installed or not on PATH",
                hint="install kubectl (https://kubernetes.io/docs/tasks/tools/), "
                'or with a lab: eval "$(cephbench lab env)"',
            ) from None

    def argv(self, *args: str) -> list[str]:
        argv = [self.path]
        if self.kubeconfig:
            argv.append(f"--kubeconfig={self.kubeconfig}")
        if self.context:
            argv.append(f"--context={self.context}")
        return [*argv, *args]

    def run(
        self,
        *args: str,
        stdin: str | None = None,
        timeout: float = CALL_TIMEOUT,
        check: bool = True,
        what: str | None = None,
    ) -> ProcessResult:
        """``kubectl ARGS``; with ``check``, a failure raises the error kubectl's message
        maps to (``what``: the object named in it, e.g. ``storageclass fast``)."""
        result = run(self.argv(*args), stdin=stdin, timeout=timeout)
        if check and result.returncode != 0:
            raise error_of(result, args, what)
        return result

    def get(self, *args: str, namespace: str | None = None, what: str | None = None) -> Any:
        """``kubectl get ARGS -o json``, parsed."""
        ns = ["--namespace", namespace] if namespace else []
        result = self.run("get", *args, *ns, "-o", "json", what=what)
        try:
            return json.loads(result.stdout)
        except json.JSONDecodeError as e:
            raise KubeError(f"kubectl get {' '.join(args)} printed no JSON: {e}") from None

    def items(self, *args: str, namespace: str | None = None) -> list[dict[str, Any]]:
        """The items of a ``kubectl get`` list."""
        data = self.get(*args, namespace=namespace)
        return list(data.get("items", [])) if isinstance(data, dict) else []

    def create(self, manifest: dict[str, Any]) -> dict[str, Any]:
        """``kubectl create -f -`` of one object; the object as the server stored it."""
        meta = manifest.get("metadata", {})
        what = f"{manifest.get('kind', 'object').lower()} {meta.get('name', '')}".strip()
        result = self.run("create", "-f", "-", "-o", "json", stdin=json.dumps(manifest), what=what)
        return json.loads(result.stdout)

    def create_all(self, manifests: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """``kubectl create -f -`` of several objects in one call (a ``List``: one process
        instead of one each); the objects as the server stored them."""
        if len(manifests) == 1:
            return [self.create(manifests[0])]
        kinds = sorted({str(m.get("kind", "object")).lower() for m in manifests})
        what = f"{len(manifests)} objects ({', '.join(kinds)})"
        doc = {"apiVersion": "v1", "kind": "List", "items": list(manifests)}
        result = self.run("create", "-f", "-", "-o", "json", stdin=json.dumps(doc), what=what)
        return json_documents(result.stdout)

    def exec(
        self,
        namespace: str,
        pod: str,
        argv: Sequence[str],
        *,
        stdin: str | None = None,
        timeout: float = CALL_TIMEOUT,
        check: bool = True,
        **kwargs: Any,
    ) -> ProcessResult:
        """``kubectl exec [-i] -n NS POD -- ARGV`` (an argument list in the pod too)."""
        args = ["exec", *(["-i"] if stdin is not None else []), "-n", namespace, pod, "--", *argv]
        result = run(self.argv(*args), stdin=stdin, timeout=timeout, **kwargs)
        if check and result.returncode != 0:
            raise error_of(result, args, f"pod {pod}")
        return result

    def watch(
        self, namespace: str, objects: Sequence[str], condition: str, seconds: float = WATCH
    ) -> list[dict[str, Any]] | None:
        """``kubectl wait --for=CONDITION`` of ``objects`` (``pod/NAME``) for up to
        ``seconds``: the objects once every one meets it (a watch: as soon as they do, where a
        ``get`` every so often learns it a poll later and costs a process each time); None
        when they did not in time. Short, so that the caller looks for failures between."""
        args = ["wait", "-n", namespace, *objects, f"--for={condition}"]
        result = self.run(
            *args,
            f"--timeout={seconds:g}s",
            "-o",
            "json",
            check=False,
            timeout=seconds + CALL_TIMEOUT,
        )
        if result.returncode == 0:
            return json_documents(result.stdout)
        if "timed out waiting for the condition" in result.stderr:
            return None
        raise error_of(result, args, None)

    def server_version(self) -> str:
        """The API server's version, ``v1.37.2``."""
        data = json.loads(self.run("version", "-o", "json").stdout or "{}")
        server = data.get("serverVersion") or {}
        return str(server.get("gitVersion", ""))

    def can_i(self, verb: str, resource: str, namespace: str | None = None) -> bool:
        """``kubectl auth can-i VERB RESOURCE``: whether this user may."""
        ns = ["--namespace", namespace] if namespace else []
        result = self.run("auth", "can-i", verb, resource, *ns, check=False)
        answer = result.stdout.strip().splitlines()[:1]
        if answer and answer[0] in ("yes", "no"):
            return answer[0] == "yes"
        raise error_of(result, ("auth", "can-i", verb, resource), None)


def json_documents(text: str) -> list[Any]:
    """The JSON documents ``text`` holds one after another (``kubectl create -o json`` of a
    List prints each object it made, not a List)."""
    decoder, at = json.JSONDecoder(), 0
    found: list[Any] = []
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at == len(text):
            return found
        doc, at = decoder.raw_decode(text, at)
        found.append(doc)


def wait_for(
    what: str,
    probe: Callable[[], T | None],
    timeout: float,
    *,
    hint: str | None = None,
    why: Callable[[], str | None] = lambda: None,
    poll: float = POLL,
) -> T:
    """Call ``probe`` until it gives a value (not None); WaitTimeout naming ``what`` (and
    ``why()``, e.g. a claim's events) after ``timeout`` seconds. ``probe`` may raise to fail
    at once (a pod that failed will not become ready). ``poll``: the longest pause between
    probes (none for a probe that waits itself: :meth:`Kubectl.watch`)."""
    deadline, delay = time.monotonic() + timeout, 0.05
    while True:
        value = probe()
        if value is not None:
            return value
        if time.monotonic() > deadline:
            reason = why()
            raise WaitTimeout(
                f"waited {timeout:g} s for {what}" + (f": {reason}" if reason else ""),
                hint=hint or "see `kubectl get events` in its namespace",
            )
        time.sleep(min(delay, poll))
        delay = min(delay * 2, poll)


_FORBIDDEN = re.compile(
    r'cannot (\w+) resource "([^"]+)"(?: in API group "([^"]*)")?(?: in the namespace "([^"]*)")?'
)
_KLOG = re.compile(r"^[IWEF]\d{4} ")
"""client-go's log lines (``E1126 19:58:54.997359 ...``): noise before kubectl's own message."""
_NOT_FOUND = re.compile(r'(\S+) "([^"]+)" not found')


def error_of(result: ProcessResult, args: Sequence[str], what: str | None) -> CephbenchError:
    """The one-line error kubectl's failure maps to (from its stderr)."""
    text = result.stderr.strip() or result.stdout.strip()
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not _KLOG.match(ln)]
    line = next(
        (ln for ln in lines if ln.startswith(("Error", "error"))), lines[-1] if lines else ""
    )
    line = line.removeprefix("Error from server").removeprefix("error: ").strip()
    line = re.sub(r"^\(\w+\): ", "", line)  # "(NotFound): ..."
    verb = args[0] if args else "kubectl"
    found = _FORBIDDEN.search(text)
    if found or "(Forbidden)" in text:
        if found:
            v, res, group, ns = found.groups()
            resource = f"{res}.{group}" if group else res
            where = f" in namespace {ns}" if ns else ""
            message = f"Kubernetes forbids this user to {v} {resource}{where}"
        else:
            message = f"Kubernetes forbids kubectl {verb}: {line}"
        return Forbidden(
            message,
            hint="ask for the Role in docs/k8s-role.yaml; `cephbench k8s check` lists what "
            "cephbench may do",
        )
    if (
        "current-context is not set" in text
        or "context was not found" in text
        or "server localhost:8080 was refused" in text  # no kubeconfig at all: kubectl's default
    ):
        return UsageError(
            f"kubectl has no usable context: {line}",
            hint="set KUBECONFIG or pass --kubeconfig and --context (`kubectl config "
            "get-contexts` lists them)",
        )
    if (
        "connection refused" in text
        or "no such host" in text
        or "Unable to connect to the server" in text
    ):
        return KubeError(
            f"cannot reach the Kubernetes API server: {line}",
            hint="check KUBECONFIG / --kubeconfig / --context (`kubectl cluster-info`)",
        )
    missing = _NOT_FOUND.search(text)
    if missing or "NotFound" in text:
        name = what or (f"{missing.group(1)} {missing.group(2)}" if missing else "the object")
        return NotFound(f"{name} was not found in Kubernetes" + ("" if missing else f": {line}"))
    return KubeError(f"kubectl {verb} failed{f' ({what})' if what else ''}: {line}")
