"""kubestr as a tool: nothing cephbench runs (no suites), only what ``cephbench import`` reads."""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from cephbench.errors import UsageError
from cephbench.tools.base import Importer, RunContext, Step, Tool


class Kubestr(Tool):
    name = "kubestr"
    version_argv = ("kubestr", "version")
    target_kinds: ClassVar[tuple[str, ...]] = ()

    def importers(self) -> list[Importer]:
        from cephbench.tools.kubestr import importing

        return [Importer("kubestr", importing.looks_like, importing.from_text)]

    def steps(self, ctx: RunContext) -> Iterator[Step]:
        raise UsageError("kubestr is read by cephbench import only: it has no suite to run")
