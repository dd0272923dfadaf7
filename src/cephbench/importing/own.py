"""Importing cephbench's own JSON (``show --format json``, ``export``): runs moved between
machines come back as they were, not as a paste.

The importer recognises such a document by its ``"schema": "cephbench.`` key (before any
tool's output: an exported run's raw outputs hold fio JSON) and finds one run per run in
it. Saving goes through here, not through the importer's ``save``: the run keeps its label
(unless ``--label`` is given), suite, target, status, times, environment, params, results,
failures, raw outputs (each linked to the workloads it produced), cluster fingerprint and
series. What changes: the id (the next free one) and one key in the environment,
``imported_from`` (a list, one item per import: the source file and the run's id there). A
run exported while still ``running`` is stored ``aborted`` (nothing will finish it here).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any

from cephbench.contracts import EXPORT
from cephbench.contracts.read import RunRecord, kind_of, load_runs
from cephbench.errors import ParseError
from cephbench.model import Run, Series, WorkloadOutcome
from cephbench.store import Store
from cephbench.tools.found import Found

PARSER = "cephbench"
SCHEMA_KEY = re.compile(r'"schema"\s*:\s*"cephbench\.')


def looks_like_own(text: str) -> bool:
    return SCHEMA_KEY.search(text) is not None


def _documents(text: str) -> list[Any]:
    """The JSON documents in ``text``, one after another (whitespace between them)."""
    decoder, docs, i = json.JSONDecoder(), [], 0
    start = text.find("{")
    if start < 0:
        raise ParseError("no JSON object in it")
    i = start
    while i < len(text):
        try:
            doc, i = decoder.raw_decode(text, i)
        except json.JSONDecodeError as e:
            raise ParseError(f"not valid JSON at line {e.lineno}: {e.msg}") from None
        docs.append(doc)
        while i < len(text) and text[i].isspace():
            i += 1
    return docs


def _run_texts(text: str) -> list[tuple[str, RunRecord]]:
    """Each run of the documents in ``text``: its own JSON text, and what it reads as."""
    out = []
    for doc in _documents(text):
        records = load_runs(doc)
        docs = doc["runs"] if kind_of(doc) == EXPORT else [doc]
        out += [(json.dumps(d), r) for d, r in zip(docs, records, strict=True)]
    return out


def read(text: str) -> list[Found]:
    """The importer's parser: one Found per run, its text the run's own JSON (so the
    importer's merging of neighbouring blocks loses nothing: ``plan`` reads texts again)."""
    found = []
    for run_text, record in _run_texts(text):
        run = record.run
        outcomes = [WorkloadOutcome(f.workload, error=f.error) for f in run.failures]
        outcomes += [WorkloadOutcome(r.workload, (r,)) for r in run.results]
        tools = run.environment.get("tools")
        version = tools.get(run.tool) if isinstance(tools, dict) else None
        found.append(Found(PARSER, version, tuple(outcomes), run_text))
    return found


@dataclass(frozen=True)
class OwnPlanned:
    """A run read from cephbench's JSON, as it will be stored (what --dry-run shows)."""

    record: RunRecord
    source: str
    label: str | None
    """``--label`` of the import: replaces the run's own when given."""
    warnings: tuple[str, ...] = ()

    @property
    def found(self) -> Found:
        """What the import report lists of it: cephbench's JSON, the tool's version, workloads."""
        run = self.record.run
        tools = run.environment.get("tools")
        version = tools.get(run.tool) if isinstance(tools, dict) else None
        names = dict.fromkeys(
            [*(r.workload for r in run.results), *(f.workload for f in run.failures)]
        )
        return Found(PARSER, version, tuple(WorkloadOutcome(n) for n in names), "")

    def as_run(self, run_id: int | None = None) -> Run:
        run = self.record.run
        env = dict(run.environment)
        env["imported_from"] = [
            *env.get("imported_from", []),
            {"source": self.source, "run_id": run.id},
        ]
        status, error = run.status, run.error
        if status == "running":
            status, error = "aborted", "exported while still running"
        return replace(
            run,
            id=run_id,
            label=self.label or run.label,
            environment=env,
            status=status,
            error=error,
        )


def plan(name: str, text: str, label: str | None, force: str | None = None) -> list:
    """``importer.plan``, with each run of cephbench's own JSON planned to be stored whole."""
    from cephbench.importing import importer  # it registers this module's parser

    out: list = []
    for p in importer.plan(name, text, label, force):
        if p.found.parser != PARSER:
            out.append(p)
            continue
        out += [OwnPlanned(record, name, label) for _, record in _run_texts(p.found.text)]
    return out


def save(store: Store, planned: list) -> list[int]:
    """Store the runs of one input, all or nothing; cephbench's own ones whole."""
    from cephbench.importing import importer

    with store.transaction():
        return [
            save_record(store, p.record, p.as_run())
            if isinstance(p, OwnPlanned)
            else importer.save(store, [p])[0]
            for p in planned
        ]


def save_record(store: Store, record: RunRecord, run: Run) -> int:
    """Store ``run`` (the record's, with import bookkeeping) with what the record carries.

    Workloads are stored with the output that produced them, outputs in their order; those
    no stored output produced follow, per repeat, in the order of the run's results."""
    run_id = store.start_run(
        label=run.label,
        suite=run.suite,
        target=run.target,
        environment=run.environment,
        params=run.params,
        started_at=run.started_at,
        imported_at=run.imported_at,
    )
    outcomes: dict[tuple[int, str], WorkloadOutcome] = {}
    for r in run.results:
        key = (r.repeat, r.workload)
        prev = outcomes.get(key, WorkloadOutcome(r.workload))
        outcomes[key] = replace(prev, results=(*prev.results, r))
    for f in run.failures:
        outcomes[(f.repeat, f.workload)] = WorkloadOutcome(f.workload, error=f.error or "failed")
    for o in record.outputs or ():
        produced = [outcomes.pop((o.repeat, n)) for n in o.workloads if (o.repeat, n) in outcomes]
        store.record_batch(run_id, o.repeat, o.raw, produced)
    for repeat in dict.fromkeys(k[0] for k in outcomes):
        store.record_batch(
            run_id, repeat, None, [w for (rep, _), w in outcomes.items() if rep == repeat]
        )
    store.add_series(
        run_id,
        [
            Series(
                s["repeat"],
                s["workload"],
                s["op"],
                s["name"],
                tuple(p[0] for p in s["points"]),
                tuple(p[1] for p in s["points"]),
            )
            for s in record.series
        ],
    )
    if record.fingerprint is not None:
        store.save_fingerprint(run_id, *record.fingerprint)
    store.finish_run(run_id, run.status, run.error, ended_at=run.ended_at)
    return run_id
