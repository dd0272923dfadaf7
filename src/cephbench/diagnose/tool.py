"""``diagnose`` as a tool the runner runs: its steps are the probes' commands (each raw
output stored with the run), then the evidence and the diagnosis, stored as two outputs of
their own (``diagnose-evidence``, ``diagnosis``) so ``show``, ``report`` and ``compare`` read
them back without the cluster."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from typing import TYPE_CHECKING

from cephbench.diagnose.facts import undo_config
from cephbench.hosts.remote import undo_dir, undo_process
from cephbench.resources.shield import shielded_exit
from cephbench.tools.base import RunContext, Step, Tool

if TYPE_CHECKING:
    from cephbench.model import Run
    from cephbench.tables.table import Table

EVIDENCE_TOOL = "diagnose-evidence"
DIAGNOSIS_TOOL = "diagnosis"


class Diagnose(Tool):
    name = "diagnose"
    version_argv = ("rbd", "--version")  # the same line as ``ceph --version``, 50x sooner
    target_kinds = ("rbd",)
    accounted = False  # its own load is not a result to explain; its time budget is tight
    undo = (undo_config, undo_process, undo_dir)  # OSD settings it changes; its ssh probes

    def steps(self, ctx: RunContext) -> Iterator[Step]:
        from cephbench.diagnose.findings import diagnose
        from cephbench.diagnose.probes import probes
        from cephbench.diagnose.session import DiagnoseOptions, Session, record

        options = DiagnoseOptions(**ctx.plan.options)
        ctx.progress.start(None)
        # configuration changed for the run goes back however the steps end (Ctrl-C too)
        with shielded_exit(ExitStack()) as restore:
            session = Session(ctx, options, restore)
            restore.callback(session.settle)  # nothing begun is left running
            chosen = probes()
            session.early = {r: None for probe in chosen for r in probe.reads}
            for probe in chosen:
                probe.begin(session)
            for probe in chosen:
                yield from probe.run(session)
                ctx.progress.update(0, probe.name, 0.0)
        if session.pending:
            outcomes, windows = zip(*session.pending, strict=True)
            yield Step(0, None, list(outcomes), list(windows))
        evidence = session.evidence
        yield Step(0, record(EVIDENCE_TOOL, json.dumps(evidence, sort_keys=True)), [])
        diagnosis = diagnose(evidence)
        yield Step(0, record(DIAGNOSIS_TOOL, json.dumps(diagnosis.to_json())), [])

    def table(self, run: Run) -> Table:
        from cephbench.tables.run_table import run_table

        return run_table(run)
