"""Things cephbench does one way, pinned by reading its source: kubectl is run only by
kube/kubectl.py (its argv and its error mapping), and whether a process lives is asked only of
system/pids.py. Each once had a second way beside it (issue 34: lab/k8s_down.py and
lab/k8s_provisioner.py built their own kubectl argv; they and lab/k8s_volumes.py read a
process's state from /proc their own way)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import cephbench

SRC = Path(cephbench.__file__).parent
PROCESS_CALLS = {"run", "spawn", "Popen", "check_output", "call", "check_call"}
"""The names a subprocess is started by (system/process.py's and subprocess's)."""


def _modules() -> list[tuple[str, ast.Module]]:
    return [
        (str(p.relative_to(SRC)), ast.parse(p.read_text(), str(p)))
        for p in sorted(SRC.rglob("*.py"))
    ]


def _mentions_kubectl(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Constant) and n.value == "kubectl" for n in ast.walk(node))


def _kubectl_list(node: ast.AST, names: set[str]) -> bool:
    """A list (or tuple) whose first element names kubectl, or one spreading such a name."""
    if isinstance(node, ast.Name):
        return node.id in names
    if not isinstance(node, ast.List | ast.Tuple) or not node.elts:
        return False
    first = node.elts[0]
    if isinstance(first, ast.Starred):
        return _kubectl_list(first.value, names)
    return _mentions_kubectl(first)


def kubectl_argvs(tree: ast.Module) -> list[int]:
    """Lines where ``tree`` starts a process whose argv begins with kubectl."""
    names = {
        t.id
        for n in ast.walk(tree)
        if isinstance(n, ast.Assign) and _kubectl_list(n.value, set())
        for t in n.targets
        if isinstance(t, ast.Name)
    }
    found = []
    for n in ast.walk(tree):
        if not isinstance(n, ast.Call) or not n.args:
            continue
        func = n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", "")
        if func in PROCESS_CALLS and _kubectl_list(n.args[0], names):
            found.append(n.lineno)
    return found


def test_the_scan_sees_a_kubectl_argv_built_by_hand():
    built = ast.parse(
        'argv = [str(kl.bin / "kubectl"), "--kubeconfig", k]\n'
        "result = run([*argv, *args], timeout=40)\n"
        'run(["kubectl", "get", "pods"])\n'
        'raw = RawOutput("k8s-volumes", ["kubectl", "get", "pvc,pv"])\n'
    )
    assert kubectl_argvs(built) == [2, 3]


def test_only_kube_kubectl_runs_kubectl():
    offenders = {
        name: lines
        for name, tree in _modules()
        if name != "kube/kubectl.py" and (lines := kubectl_argvs(tree))
    }
    assert offenders == {}, "run kubectl through cephbench.kube.kubectl.Kubectl"


LIVENESS = re.compile(
    r"""\(\s*b?["']Z["']\s*,\s*b?["']X["']\s*\)"""  # a /proc state letter: zombie or dead
    r"|os\.kill\(\s*\w+\s*,\s*0\s*\)"  # signal 0: does the pid exist
)
GROUP_SCAN = "system/process.py"
"""Its clean-up asks whether any member of a process group still runs (every /proc entry's
group read in one pass), not whether one pid lives."""


def test_whether_a_process_lives_is_asked_of_system_pids():
    offenders = [
        str(p.relative_to(SRC))
        for p in sorted(SRC.rglob("*.py"))
        if str(p.relative_to(SRC)) not in ("system/pids.py", GROUP_SCAN)
        and LIVENESS.search(p.read_text())
    ]
    assert offenders == [], "use cephbench.system.pids.running (or exists)"
