"""The package's shape: every module imports on its own (no import cycle between layers)."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import importlib, pkgutil, cephbench
for m in pkgutil.walk_packages(cephbench.__path__, "cephbench."):
    importlib.import_module(m.name)
"""


def test_every_module_imports():
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
