"""Tools: the programs cephbench runs and reads (fio, rados bench, osd bench, iperf3).

One package per tool, registered like targets and commands: a name mapped to
``module:Class``, imported only when used (``cephbench.registry``); third-party packages add
tools through the ``cephbench.tools`` entry-point group. ``base.Tool`` is the interface.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from cephbench.registry import Registry

if TYPE_CHECKING:
    from cephbench.model import Run
    from cephbench.tools.base import Tool, ToolSuite

BUILTIN_TOOLS: dict[str, str] = {
    "fio": "cephbench.tools.fio.tool:Fio",
    "rados-bench": "cephbench.tools.rados_bench.tool:RadosBench",
    "osd-bench": "cephbench.tools.osd_bench.tool:OsdBench",
    "iperf3": "cephbench.tools.iperf3.tool:Iperf3",
    "dd": "cephbench.tools.dd.tool:Dd",
    "diagnose": "cephbench.diagnose.tool:Diagnose",
}

REGISTRY = Registry(BUILTIN_TOOLS, group="cephbench.tools")


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
