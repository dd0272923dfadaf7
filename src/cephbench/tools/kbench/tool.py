"""kbench as a tool: nothing cephbench runs (no suites), only what ``cephbench import`` reads."""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from cephbench.errors import UsageError
from cephbench.tools.base import Importer, RunContext, Step, Tool


class Kbench(Tool):
    name = "kbench"
    version_argv = ("kbench", "--version")
    target_kinds: ClassVar[tuple[str, ...]] = ()

    def importers(self) -> list[Importer]:
        from cephbench.tools.kbench import importing

        return [Importer("kbench", importing.looks_like, importing.from_text)]

    def steps(self, ctx: RunContext) -> Iterator[Step]:
        raise UsageError("kbench is read by cephbench import only: it has no suite to run")
