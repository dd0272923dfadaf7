"""rados bench as a tool: the ``rados`` suite on a pool (``rados:POOL`` or ``rados:lab``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from cephbench.ceph.objects import undo_objects
from cephbench.tools.base import Importer, RunContext, Step, Tool, ToolSuite

if TYPE_CHECKING:
    from cephbench.tools.plan import ToolPlan


class RadosBench(Tool):
    name = "rados-bench"
    version_argv = ("rados", "--version")
    target_kinds = ("rados",)
    reads = True
    undo = (undo_objects,)  # the objects a write bench leaves for the read benches
    suites = (
        ToolSuite(
            "rados",
            "rados bench write (objects kept), then seq and rand reads of them, then cleanup; "
            "4 MiB objects, 16 concurrent ops, 60 s each",
            "rados:lab",
            60.0,
            ("write", "seq", "rand"),
        ),
    )

    def importers(self) -> list[Importer]:
        from cephbench.tools.rados_bench import importing

        return [Importer("rados-bench", importing.looks_like, importing.from_text)]

    def steps(self, ctx: RunContext[ToolPlan]) -> Iterator[Step]:
        from cephbench.tools.rados_bench.steps import rados_steps

        ctx.progress.start(ctx.plan.expected_seconds(ctx.schedule.repeats))
        for repeat in range(ctx.schedule.repeats):
            yield from rados_steps(ctx, repeat)
