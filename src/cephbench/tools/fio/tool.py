"""fio as a tool: the YAML suites and users' own job files, on every fio target."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from cephbench.errors import UsageError
from cephbench.hosts.remote import undo_dir, undo_process
from cephbench.tools.base import Importer, RunContext, Step, Tool


class Fio(Tool):
    name = "fio"
    target_kinds = ("file", "device", "rbd")
    resumable = True
    undo = (undo_process, undo_dir)  # fio servers on --clients, and their directories

    def versions(self) -> dict[str, str]:
        from cephbench.tools.fio import command as fio_command

        return {"fio": fio_command.version()}

    def check_target(self, plan: Any, target: Any) -> None:
        if plan.size is None and target.kind == "file":
            raise UsageError(
                "the job file sets no size for its data file", hint="add --size, e.g. --size 1G"
            )
        if target.kind in ("rados", "ceph"):
            raise UsageError(
                f"fio runs on file:, device: and rbd: targets, not on {target.spec}",
                hint="the rados suite runs on rados:POOL; osd and network on ceph:cluster",
            )

    def steps(self, ctx: RunContext) -> Iterator[Step]:
        from cephbench.tools.fio.steps import fio_steps

        return fio_steps(ctx)

    def importers(self) -> list[Importer]:
        from cephbench.tools.fio import importing

        return [
            Importer("fio-json", importing.looks_like_json, importing.from_json),
            Importer("fio-text", importing.looks_like_text, importing.from_text),
        ]
