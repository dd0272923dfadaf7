"""dd as a tool: nothing cephbench runs (no suites), only what ``cephbench import`` reads."""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from cephbench.errors import UsageError
from cephbench.tools.base import Importer, RunContext, Step, Tool


class Dd(Tool):
    name = "dd"
    version_argv = ("dd", "--version")
    target_kinds: ClassVar[tuple[str, ...]] = ()

    def importers(self) -> list[Importer]:
        from cephbench.tools.dd import importing

        return [Importer("dd", importing.looks_like, importing.from_text)]

    def steps(self, ctx: RunContext) -> Iterator[Step]:
        raise UsageError("dd is read by cephbench import only: it has no suite to run")
