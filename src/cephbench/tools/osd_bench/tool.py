"""``ceph tell osd.N bench`` as a tool: the ``osd`` suite, a workload per up OSD, shown as
the per-OSD table users post."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from cephbench.tools.base import Importer, RunContext, RunPlan, Step, Tool, ToolSuite

if TYPE_CHECKING:
    from cephbench.model import Run
    from cephbench.tables.table import Table
    from cephbench.targets import Target
    from cephbench.tools.plan import ToolPlan


class OsdBench(Tool):
    name = "osd-bench"
    version_argv = ("ceph", "--version")
    bs_option = "bs"
    suites = (
        ToolSuite(
            "osd",
            "ceph tell osd.N bench on every up OSD, one after another (1 GiB in 4 MiB writes)",
            "ceph:cluster",
            None,
        ),
    )

    def environment(self, plan: RunPlan, target: Target) -> dict[str, Any]:
        from cephbench.tools.osd_bench.steps import osd_details

        conn = target.cluster
        assert conn is not None, "osd-bench runs on Ceph targets only"
        return {"osds": osd_details(conn)}

    def importers(self) -> list[Importer]:
        from cephbench.tools.osd_bench import importing

        return [Importer("osd-bench", importing.looks_like, importing.from_text)]

    def steps(self, ctx: RunContext[ToolPlan]) -> Iterator[Step]:
        from cephbench.tools.osd_bench.steps import osd_steps

        ctx.progress.start(None)
        for repeat in range(ctx.schedule.repeats):
            yield from osd_steps(ctx, repeat)

    def table(self, run: Run) -> Table:
        from cephbench.tools.osd_bench.table import osd_table

        return osd_table(run)
