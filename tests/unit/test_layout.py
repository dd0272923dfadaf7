"""The package's shape: every module imports alone, in an interpreter that has imported no
other cephbench module (a cycle between modules shows only so: importing every module in one
interpreter hides it); and every kind of resource cephbench records has its undo function
registered once ``cephbench cleanup`` has loaded the registries."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import cephbench

SRC = Path(cephbench.__file__).parent

# Each module in a child forked from a parent that preloaded only third-party libraries (so a
# child takes milliseconds) and never imported a cephbench module: the child's import of its
# module is that module's first, as in a fresh interpreter.
ALONE = """
import importlib, os, sys, traceback
import click, jinja2, matplotlib, matplotlib.pyplot, numpy, pydantic, rich, scipy.stats, yaml
assert not [m for m in sys.modules if m.startswith("cephbench")]
failed = []
for name in sys.argv[1:]:
    pid = os.fork()
    if pid == 0:
        try:
            importlib.import_module(name)
        except BaseException:
            traceback.print_exc()
            os._exit(1)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    if status != 0:
        failed.append(name)
print("failed:", " ".join(failed))
sys.exit(1 if failed else 0)
"""


def modules() -> list[str]:
    names = []
    for path in sorted(SRC.rglob("*.py")):
        parts = path.relative_to(SRC.parent).with_suffix("").parts
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def test_every_module_imports_alone():
    names = modules()
    assert len(names) > 200 and "cephbench.tools.fio.plan" in names
    result = subprocess.run(
        [sys.executable, "-c", ALONE, *names], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout[-500:] + result.stderr[-3000:]


def undo_kinds() -> set[str]:
    """Every resource kind some module registers an undo function for (``@undoes(KIND)``),
    read from the source, a constant's value resolved within its module."""
    kinds = set()
    for path in SRC.rglob("*.py"):
        tree = ast.parse(path.read_text())
        consts = {
            t.id: n.value.value
            for n in tree.body
            if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
            for t in n.targets
            if isinstance(t, ast.Name)
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "undoes"
            ):
                arg = node.args[0]
                kinds.add(arg.value if isinstance(arg, ast.Constant) else consts[arg.id])
    return kinds


CLEANUP_LOADS = """
from cephbench.cli.cleanup import load_undo
from cephbench.resources.undo import UNDO
load_undo()
print(" ".join(sorted(UNDO)))
"""


def test_cleanup_finds_every_undo_function_through_the_registries():
    kinds = undo_kinds()
    assert {"file", "dir", "rbd_image", "ceph_pool", "ab_setting", "remote_process"} <= kinds
    result = subprocess.run(
        [sys.executable, "-c", CLEANUP_LOADS], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert set(result.stdout.split()) == kinds
