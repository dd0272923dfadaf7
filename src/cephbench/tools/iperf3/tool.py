"""iperf3 as a tool: the ``network`` suite between hosts (the lab's, or real ones over ssh),
shown as a table of host pairs and their N×N matrix."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from cephbench.hosts.remote import undo_dir, undo_process
from cephbench.tools.base import Importer, RunContext, Step, Tool, ToolSuite
from cephbench.tools.iperf3.hostexec import undo_server

if TYPE_CHECKING:
    from cephbench.model import Run
    from cephbench.tables.table import Table
    from cephbench.tools.plan import ToolPlan


class Iperf3(Tool):
    name = "iperf3"
    version_argv = ("iperf3", "--version")
    undo = (undo_server, undo_process, undo_dir)  # iperf3 servers, in a namespace or over ssh
    suites = (
        ToolSuite(
            "network",
            "iperf3, ping RTT and an MTU check between every ordered pair of hosts (--hosts; "
            "default: the lab's), 10 s each",
            "ceph:cluster",
            10.0,
        ),
    )

    def importers(self) -> list[Importer]:
        from cephbench.tools.iperf3 import importing

        return [Importer("iperf3", importing.looks_like, importing.from_text)]

    def steps(self, ctx: RunContext[ToolPlan]) -> Iterator[Step]:
        from cephbench.tools.iperf3.steps import network_steps

        ctx.progress.start(None)
        for repeat in range(ctx.schedule.repeats):
            yield from network_steps(ctx, repeat)

    def table(self, run: Run) -> Table:
        from cephbench.tools.iperf3.table import network_table

        return network_table(run)

    def tables(self, run: Run) -> list[Table]:
        from cephbench.tools.iperf3.table import matrix_table, network_table

        mx = matrix_table(run)
        return [network_table(run), *([mx] if mx else [])]
