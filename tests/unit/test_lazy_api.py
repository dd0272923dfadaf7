"""The packages whose API is imported on first use (PEP 562): every name gives the object it
names, whatever was imported before (a submodule of the same name would shadow it)."""

from __future__ import annotations

import importlib
import pkgutil
import types

import pytest


@pytest.mark.parametrize("package", ["cephbench.lab", "cephbench.tools.fio.logs"])
def test_every_name_of_the_api_is_what_it_names(package):
    pkg = importlib.import_module(package)
    for sub in pkgutil.iter_modules(pkg.__path__):  # every submodule loaded first
        importlib.import_module(f"{package}.{sub.name}")
    for name, module in pkg._WHERE.items():
        got = getattr(pkg, name)
        assert not isinstance(got, types.ModuleType), f"{package}.{name} is a module"
        assert got is getattr(importlib.import_module(module), name)
    assert set(pkg.__all__) == set(pkg._WHERE)
