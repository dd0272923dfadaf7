"""iperf3 as a tool: the ``network`` suite between the lab's hosts, shown as a table of
host pairs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from cephbench.tools.base import Importer, RunContext, Step, Tool, ToolSuite

if TYPE_CHECKING:
    from cephbench.model import Run
    from cephbench.report.table import Table


class Iperf3(Tool):
    name = "iperf3"
    version_argv = ("iperf3", "--version")
    suites = (
        ToolSuite(
            "network",
            "iperf3 between every ordered pair of the cluster's hosts (in the lab: its namespaces), 10 s each",
            "ceph:cluster",
            10.0,
        ),
    )

    def importers(self) -> list[Importer]:
        from cephbench.tools.iperf3 import importing

        return [Importer("iperf3", importing.looks_like, importing.from_text)]

    def steps(self, ctx: RunContext) -> Iterator[Step]:
        from cephbench.tools.iperf3.steps import network_steps

        ctx.progress.start(None)
        for repeat in range(ctx.schedule.repeats):
            yield from network_steps(ctx, repeat)

    def table(self, run: Run) -> Table:
        from cephbench.tools.iperf3.table import network_table

        return network_table(run)
