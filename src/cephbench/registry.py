"""The one lazy registry: a name mapped to ``module:attribute``, imported only when used.

Commands, tools, targets, diagnose probes, report sections and tuning setting kinds are all
registered this way: built-ins in one literal dict where the kind is defined (one line each),
third-party packages through an entry-point group. Nothing is imported until it is looked up,
so ``cephbench --help`` stays fast and a layer can name a plugin above it without importing
it. Standard library only, and none of it that takes long to import: the CLI's start-up
imports this module.
"""

from __future__ import annotations

import importlib
import os
import sys

TYPE_CHECKING = False  # typing costs 10 ms to import: `cephbench CMD --help` imports this module
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping
    from typing import Any

COMMANDS_GROUP = "cephbench.commands"
"""The entry-point group of third-party commands (``cephbench.cli.COMMANDS``)."""


def may_have_entry_points(group: str) -> bool:
    """Whether an installed distribution may declare entry points of ``group``.

    Importing importlib.metadata takes about as long as importing click; a look through the
    ``entry_points.txt`` files on sys.path takes a millisecond and usually rules them out.
    What it cannot look into (a zip or an egg on sys.path, another finder) counts as maybe.
    """
    from importlib.machinery import PathFinder

    if any(hasattr(f, "find_distributions") and f is not PathFinder for f in sys.meta_path):
        return True
    for entry in sys.path:
        path = entry or "."
        if not os.path.isdir(path) or path.endswith(".egg"):
            if os.path.exists(path):
                return True
            continue
        try:
            names = os.listdir(path)
        except OSError:
            continue
        for name in names:
            if name.lower().endswith((".dist-info", ".egg-info")):
                try:
                    with open(os.path.join(path, name, "entry_points.txt"), encoding="utf-8") as f:
                        if group in f.read():
                            return True
                except OSError:
                    pass
    return False


class Registry:
    """Built-ins first, in the order given, then entry points of ``group`` not shadowing them."""

    def __init__(
        self,
        builtins: Mapping[str, str],
        group: str | None = None,
        may_have_plugins: Callable[[], bool] | None = None,
    ):
        self.builtins = dict(builtins)
        self.group = group
        self._may_have_plugins = may_have_plugins
        self._specs: dict[str, str] | None = None
        self._loaded: dict[str, Any] = {}

    def specs(self) -> dict[str, str]:
        """Every name and its ``module:attribute``, built-ins first (entry points read once)."""
        if self._specs is None:
            found = dict(self.builtins)
            if self.group and (self._may_have_plugins is None or self._may_have_plugins()):
                from importlib.metadata import entry_points  # ~10 ms: only when looked up

                for ep in entry_points(group=self.group):
                    found.setdefault(ep.name, ep.value)
            self._specs = found
        return self._specs

    def names(self) -> list[str]:
        return list(self.specs())

    def __contains__(self, name: object) -> bool:
        return name in self.builtins or name in self.specs()

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def load(self, name: str) -> Any:
        """The registered attribute (a class, a function, a command), imported on first use;
        KeyError for a name nobody registered."""
        if name not in self._loaded:
            module_name, _, attr = self.specs()[name].partition(":")
            self._loaded[name] = getattr(importlib.import_module(module_name), attr)
        return self._loaded[name]

    def load_all(self) -> dict[str, Any]:
        """Every registered attribute, in registry order (imports every module)."""
        return {name: self.load(name) for name in self.names()}


def lazy_api(package: str, where: Mapping[str, str]) -> Callable[[str], Any]:
    """A package's module-level ``__getattr__`` (PEP 562) for an API whose names (name ->
    the module that defines it) are imported on first use, then kept in the package. No name
    may be a submodule's too: once that submodule is imported, the package's attribute is the
    module, and ``__getattr__`` is never asked."""
    namespace = importlib.import_module(package).__dict__

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    return __getattr__
