"""fio as a tool: the YAML suites and users' own job files, on every fio target."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from cephbench.errors import UsageError
from cephbench.hosts.cephfs import undo_remote_mount
from cephbench.hosts.remote import undo_dir, undo_process
from cephbench.tools.base import Importer, RunContext, RunPlan, Step, Tool

if TYPE_CHECKING:
    from cephbench.ceph.tools import CephTools
    from cephbench.targets import Target
    from cephbench.tools.fio.plan import Plan


class Fio(Tool):
    name = "fio"
    target_kinds = ("file", "device", "rbd", "cephfs", "pvc")
    resumable = True
    undo = (undo_process, undo_dir, undo_remote_mount)  # --clients: servers, dirs, mounts

    def versions(self, tools: CephTools | None = None) -> dict[str, str]:
        from cephbench.tools.fio import command as fio_command

        return {"fio": fio_command.version(tools)}

    def check_target(self, plan: RunPlan, target: Target) -> None:
        metadata = bool(getattr(plan, "metadata", False))  # a fio Plan of metadata engines
        if plan.size is None and target.kind in ("file", "cephfs") and not metadata:
            raise UsageError(
                "the job file sets no size for its data file", hint="add --size, e.g. --size 1G"
            )
        if metadata:
            if target.kind not in ("file", "cephfs"):
                raise UsageError(
                    f"metadata workloads create files in a directory, not on {target.spec}",
                    hint="use file:DIR or cephfs:FSNAME",
                )
            target.wants_tree = True
        if target.kind not in self.target_kinds:
            *others, last = (f"{k}:" for k in self.target_kinds)
            raise UsageError(
                f"fio runs on {', '.join(others)} and {last} targets, not on {target.spec}",
                hint="the rados suite runs on rados:POOL; osd and network on ceph:cluster",
            )

    def steps(self, ctx: RunContext[Plan]) -> Iterator[Step]:
        from cephbench.tools.fio.steps import fio_steps

        return fio_steps(ctx)

    def importers(self) -> list[Importer]:
        from cephbench.tools.fio import importing

        return [
            Importer("fio-json", importing.looks_like_json, importing.from_json),
            Importer("fio-text", importing.looks_like_text, importing.from_text),
        ]
