"""Import outputs users already have: detect what each input holds, parse it, store it.

An input is a file (or stdin). Markdown and other prose are split into their fenced blocks;
each fio output found (a JSON document, or a normal-output block) becomes one run; rados
bench, ceph tell osd bench and iperf3 outputs become runs of their workloads (see
``found.runs``). A file imports completely or not at all; one that nothing recognises fails
with its name and why. Parsers are registered by name, so ``--as NAME`` can force one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from cephbench.errors import ParseError, UsageError
from cephbench.importing import own
from cephbench.importing import tools as import_tools
from cephbench.importing.found import Found, merge
from cephbench.model import Failure, Run, WorkloadOutcome, now
from cephbench.store import Store
from cephbench.tools.fio.parse import extract_all, parse_document
from cephbench.tools.fio.text import parse_text_all

FENCE = re.compile(r"^(```|~~~)[^\n]*\n(.*?)^\1\s*$", re.MULTILINE | re.DOTALL)


def _fio_json(text: str) -> list[Found]:
    return [
        Found("fio-json", doc.version, tuple(parse_document(doc)), text) for doc in extract_all(text)
    ]


def _fio_text(text: str) -> list[Found]:
    return [Found("fio-text", doc.version, tuple(doc.jobs), text) for doc in parse_text_all(text)]


PARSERS: dict[str, Callable[[str], list[Found]]] = {
    "fio-json": _fio_json, "fio-text": _fio_text, "rados-bench": import_tools.rados_bench,
    "osd-bench": import_tools.osd_bench, "iperf3": import_tools.iperf3_output,
    own.PARSER: own.read,
}
# fio first: its outputs are the most common, and nothing of the others' is in them.
DETECT: list[tuple[str, Callable[[str], bool]]] = [
    (own.PARSER, own.looks_like_own),  # before fio: an exported run's raw outputs hold fio JSON
    ("fio-json", lambda t: '"fio version"' in t and ('"jobs"' in t or '"client_stats"' in t)),
    ("fio-text", lambda t: "(groupid=" in t and ("IOPS=" in t or "iops=" in t)),
    ("rados-bench", lambda t: "Total writes made" in t or "Total reads made" in t),
    ("osd-bench", lambda t: '"bytes_written"' in t or "bench: wrote " in t),
    ("iperf3", import_tools.looks_like_iperf3),
]
TOOLS = {"fio-json": "fio", "fio-text": "fio"}
"""The tool name kept in a run's environment, where it is not the parser's name (``cephbench
run`` keeps ``rados-bench``, ``osd-bench``, ``iperf3`` and ``fio``)."""
FORMATS = "fio (JSON or normal), rados bench, ceph tell osd bench or iperf3"


def detect(text: str) -> str | None:
    return next((name for name, test in DETECT if test(text)), None)


def blocks(text: str) -> list[str]:
    """The fenced blocks of Markdown-like text, or the whole text when it has none."""
    text = text.replace("\r\n", "\n")
    fenced = [m.group(2) for m in FENCE.finditer(text)]
    return fenced or [text]


def read(name: str, text: str, force: str | None = None) -> list[Found]:
    """Everything recognisable in one input; ParseError (naming it) when there is nothing."""
    if force is not None and force not in PARSERS:
        raise UsageError(f"no parser named {force}", hint=f"choose one of: {', '.join(PARSERS)}")
    found: list[Found] = []
    for block in blocks(text):
        kind = force or detect(block)
        if kind is None:
            continue
        try:
            found += PARSERS[kind](block)
        except ParseError as e:
            raise ParseError(f"{name}: {e.message} (read as {kind})") from None
    if not found:
        raise ParseError(f"{name}: no {FORMATS} output recognised",
                         hint=f"pass --as {'|'.join(PARSERS)} to say what it is")
    return merge(found, frozenset(PARSERS) - set(TOOLS))


@dataclass(frozen=True)
class Planned:
    """A run as it would be stored (what --dry-run shows)."""

    label: str | None
    source: str
    found: Found
    warnings: tuple[str, ...] = field(default_factory=tuple)

    def as_run(self, run_id: int | None = None) -> Run:
        results = tuple(r for o in self.found.outcomes if not o.failure for r in o.results)
        failures = tuple(Failure(o.name, 0, o.failure) for o in self.found.outcomes if o.failure)
        return Run(id=run_id, label=self.label, suite="import", target=self.source, status="complete",
                   started_at=now(), environment=self.environment, params={}, results=results,
                   failures=failures)

    @property
    def environment(self) -> dict:
        return {"import": {"source": self.source, "parser": self.found.parser,
                           "tool_version": self.found.tool_version, "warnings": list(self.warnings)},
                "tools": {TOOLS.get(self.found.parser, self.found.parser): self.found.tool_version}
                if self.found.tool_version else {}}


WARN_FLAGS = {"no_latency": "latency not recorded",
              "iops_derived": "IOPS not printed: derived from the figures that were (flag iops_derived)"}


def plan(name: str, text: str, label: str | None, force: str | None = None) -> list[Planned]:
    found = read(name, text, force)
    out = []
    for i, f in enumerate(found):
        warnings = f.warnings + tuple(
            f"{o.name} {r.op}: {WARN_FLAGS[flag]}" for o in f.outcomes for r in o.results
            for flag in r.flags if flag in WARN_FLAGS)
        source = name if len(found) == 1 else f"{name}#{i + 1}"
        out.append(Planned(label, source, f, warnings))
    return out


def save(store: Store, planned: list[Planned]) -> list[int]:
    """Store the runs of one input, all or nothing."""
    ids = []
    with store.transaction():
        for p in planned:
            run_id = store.start_run(label=p.label, suite="import", target=p.source,
                                     environment=p.environment, params={"imported": True})
            outcomes = [WorkloadOutcome(o.name, error=o.failure) if o.failure
                        else WorkloadOutcome(o.name, results=o.results) for o in p.found.outcomes]
            store.record_batch(run_id, 0, None, outcomes)
            store.finish_run(run_id, "complete")
            ids.append(run_id)
    return ids
