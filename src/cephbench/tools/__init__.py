"""Tools: the programs cephbench runs and reads (fio, rados bench, osd bench, iperf3).

One package per tool, registered like targets and commands: a name mapped to
``module:Class``, imported only when used (``cephbench.registry``); third-party packages add
tools through the ``cephbench.tools`` entry-point group. ``base.Tool`` is the interface.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, NamedTuple

from cephbench.registry import Registry

if TYPE_CHECKING:
    from cephbench.model import Run
    from cephbench.tools.base import Tool, ToolSuite


class Entry(NamedTuple):
    """A built-in tool: where it lives, and what ``cephbench import`` says of it without
    importing it (its ``--help`` and its messages stay light; a test keeps them true)."""

    target: str  # "module:Class", imported only when the tool is used
    parsers: tuple[str, ...] = ()  # its importers' names (``import --as NAME``)
    imports: str | None = None  # the outputs its importers read, in words


BUILTIN: dict[str, Entry] = {
    "fio": Entry("cephbench.tools.fio.tool:Fio", ("fio-json", "fio-text"), "fio (JSON or normal)"),
    "rados-bench": Entry(
        "cephbench.tools.rados_bench.tool:RadosBench", ("rados-bench",), "rados bench"
    ),
    "osd-bench": Entry(
        "cephbench.tools.osd_bench.tool:OsdBench", ("osd-bench",), "ceph tell osd bench"
    ),
    "iperf3": Entry("cephbench.tools.iperf3.tool:Iperf3", ("iperf3",), "iperf3"),
    "dd": Entry("cephbench.tools.dd.tool:Dd", ("dd",), "dd"),
    "kbench": Entry("cephbench.tools.kbench.tool:Kbench", ("kbench",), "kbench's summary"),
    "kubestr": Entry("cephbench.tools.kubestr.tool:Kubestr", ("kubestr",), "kubestr's fio"),
    "diagnose": Entry("cephbench.diagnose.tool:Diagnose"),
}
BUILTIN_TOOLS = {name: entry.target for name, entry in BUILTIN.items()}

REGISTRY = Registry(BUILTIN_TOOLS, group="cephbench.tools")


def parser_names() -> list[str]:
    """The built-in tools' importers, by name, without importing a tool."""
    return [parser for entry in BUILTIN.values() for parser in entry.parsers]


def importable() -> str:
    """``fio (JSON or normal), rados bench, ... or dd``: what the built-in tools import."""
    kinds = [entry.imports for entry in BUILTIN.values() if entry.imports]
    return f"{', '.join(kinds[:-1])} or {kinds[-1]}"


def names() -> list[str]:
    return REGISTRY.names()


@cache
def get(name: str) -> Tool:
    return REGISTRY.load(name)()


def fixed_suites() -> dict[str, tuple[Tool, ToolSuite]]:
    """Every fixed suite a tool offers (``rados``, ``osd``, ``network``), by name."""
    return {s.name: (tool, s) for tool in map(get, names()) for s in tool.suites}


def of_run(run: Run) -> Tool:
    """The tool whose figures a stored run holds (run by cephbench, or imported)."""
    name = run.tool
    return get(name if name in REGISTRY else "fio")
