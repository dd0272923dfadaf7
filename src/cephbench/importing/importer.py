"""Import outputs users already have: detect what each input holds, parse it, store it.

An input is a file (or stdin). Markdown and other prose are split into their fenced blocks;
each fio output found (a JSON document, or a normal-output block) becomes one run; rados
bench, ceph tell osd bench and iperf3 outputs become runs of their workloads (see
``found.runs``). An output cut off (a paste that ends too soon) is named and not stored; the
complete ones beside it are, naming it in their environment (``import.skipped``, beside the
``import.warnings``) so the run says so wherever it is shown. A file imports completely or
not at all; one that nothing recognises, or holds only cut-off outputs, fails with its name
and why. A run is dated when its output says it ran; the import's own time is kept beside it
(``Run.imported_at``). Parsers are registered by name, so ``--as NAME`` can force one.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from cephbench import tools
from cephbench.errors import ParseError, UsageError
from cephbench.importing import own
from cephbench.model import RESULT_FIELDS, Failure, Result, Run, flag_text, now
from cephbench.tools.base import Importer
from cephbench.tools.found import Found, merge
from cephbench.tools.iperf3 import paste as iperf3_paste
from cephbench.tools.rados_bench.importing import cut_off

if TYPE_CHECKING:
    from cephbench.store import Store

FENCE = re.compile(
    r"^(?P<fence>(?P<c>[`~])(?P=c){2,})[^\n]*\n(?P<body>.*?)^(?P=fence)(?P=c)*[ \t]*$",
    re.MULTILINE | re.DOTALL,
)
"""A Markdown fenced block: three or more backticks or tildes, closed by at least as many."""


class NoOutput(ParseError):
    """An input holds no output cephbench knows (not a damaged one: nothing recognisable)."""


def _registry() -> list[tuple[str, Importer]]:
    """(tool, importer) of every tool, fio first: its outputs are the most common, and
    nothing of the others' is in them."""
    return [(tool.name, imp) for tool in map(tools.get, tools.names()) for imp in tool.importers()]


def _own(text: str, before: str = "") -> list[Found]:
    return own.read(text)


_OWN = Importer(own.PARSER, own.looks_like_own, _own)
"""cephbench's own JSON (show, export): detected first, since an export's raw outputs hold fio
JSON."""
IMPORTERS: dict[str, Importer] = {_OWN.name: _OWN, **{imp.name: imp for _, imp in _registry()}}
"""Parsers by name: ``--as NAME`` forces one."""
TOOL_OF: dict[str, str] = {imp.name: tool for tool, imp in _registry()}
"""The tool whose output each parser reads (kept in the run's environment)."""
PARSERS = list(IMPORTERS)
DETECT: list[tuple[str, Callable[[str], bool]]] = [
    (imp.name, imp.detect) for imp in IMPORTERS.values()
]
FORMATS = tools.importable()


def detect(text: str) -> str | None:
    return next((name for name, test in DETECT if test(text)), None)


def blocks(text: str) -> list[str]:
    """The fenced blocks of Markdown-like text, or the whole text when it has none."""
    return [block for block, _ in sections(text)]


def sections(text: str) -> list[tuple[str, str]]:
    """Each fenced block (or the whole text when it has none) and the text above it since the
    previous block (prose, or the command line a write-up shows before its output); the text
    after the last block comes last, as a block of its own prose."""
    # a character is found far faster than a string (memchr): outputs of megabytes pass here
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    if not any(c in text and c * 3 in text for c in "`~"):  # no fence: no regex needed
        return [(text, "")]
    out, end = [], 0
    for m in FENCE.finditer(text):
        out.append((m.group("body"), text[end : m.start()]))
        end = m.end()
    if out and text[end:].strip():
        out.append(("", text[end:]))
    return out or [(text, "")]


def _outputs_in_prose(prose: str, above: str) -> list[Found]:
    """Tool outputs pasted into the prose between fenced blocks. Prose that only mentions a
    tool's words (and so reads as no output) is prose: nothing is taken from it."""
    kind = detect(prose) if prose.strip() else None
    if kind is None:
        return []
    try:
        return IMPORTERS[kind].parse(prose, above)
    except ParseError:
        return []


def _cut_off(block: str) -> list[str]:
    """Outputs in a block no parser took because they were cut off before their summary."""
    return cut_off(block) + (iperf3_paste.truncated(block) if "bits/sec" in block else [])


def read(name: str, text: str, force: str | None = None) -> list[Found]:
    """Everything recognisable in one input; ParseError (naming it) when there is nothing.

    Each fenced block is read by the parser of what it holds, so a post with fio and rados
    bench outputs gives runs of both. Outputs seen but not imported (a rados bench run cut off
    before its summary) are named in the runs' ``skipped``."""
    if force is not None and force not in PARSERS:
        raise UsageError(f"no parser named {force}", hint=f"choose one of: {', '.join(PARSERS)}")
    found: list[Found] = []
    skipped: list[str] = []
    above = ""  # the text above each block that is no tool's output: prose, command lines
    for block, before in sections(text):
        found += _outputs_in_prose(before, above)  # pasted without a fence between fenced ones
        above += before
        kind = force or detect(block)
        if kind is None:
            skipped += _cut_off(block)
            above += block
            continue
        try:
            found += IMPORTERS[kind].parse(block, above)
        except ParseError as e:
            raise ParseError(f"{name}: {e.message} (read as {kind})") from None
    # a cut-off output is no run: it is named (with the runs, or in the refusal), never stored
    cut = [f for f in found if not f.outcomes and f.skipped]
    skipped = [s for f in cut for s in f.skipped] + skipped
    found = [f for f in found if f.outcomes or not f.skipped]
    if not found and skipped:
        raise ParseError(
            f"{name}: nothing complete to import: {'; '.join(skipped)}",
            hint="the output was cut off: import it whole, as the tool printed it",
        )
    if not found:
        raise NoOutput(
            f"{name}: no {FORMATS} output recognised",
            hint=f"pass --as {'|'.join(PARSERS)} to say what it is",
        )
    if skipped:
        found[-1] = replace(found[-1], skipped=found[-1].skipped + tuple(skipped))
    return merge(found, frozenset(n for n, tool in TOOL_OF.items() if tool != "fio"))


@dataclass(frozen=True)
class Planned:
    """A run as it would be stored (what --dry-run shows)."""

    label: str | None
    source: str
    found: Found
    warnings: tuple[str, ...] = field(default_factory=tuple)
    imported_at: str = field(default_factory=now)
    """When it is imported: planned (a dry run's "would be"), then stored with this time."""

    def as_run(self, run_id: int | None = None) -> Run:
        results = tuple(r for o in self.found.outcomes if not o.error for r in o.results)
        failures = tuple(Failure(o.name, 0, o.error) for o in self.found.outcomes if o.error)
        return Run(
            id=run_id,
            label=self.label,
            suite="import",
            target=self.source,
            status="complete",
            started_at=self.started_at,
            environment=self.environment,
            params=self.found.params,
            results=results,
            failures=failures,
            imported_at=self.imported_at,
        )

    @property
    def started_at(self) -> str:
        """When the output says it ran; when it does not, the import's time."""
        return self.found.started_at or self.imported_at

    @property
    def environment(self) -> dict:
        tool = TOOL_OF.get(self.found.parser, self.found.parser)
        return {
            "import": {
                "source": self.source,
                "parser": self.found.parser,
                "tool": tool,
                "tool_version": self.found.tool_version,
                "warnings": list(self.warnings),
                # outputs cut off beside this run's complete ones: named wherever it is shown
                **({"skipped": list(self.found.skipped)} if self.found.skipped else {}),
            },
            "tools": {tool: self.found.tool_version} if self.found.tool_version else {},
        }


WARN_FLAGS = ("no_latency", "iops_derived", "clat_mean")
"""Flags an import warns about, in the flag's own words."""


INT_MAX = (1 << 63) - 1


def _figures(r: Result) -> Iterator[tuple[str, list]]:
    """Each field of a result and the numbers in it (a percentile's microseconds, a metric's
    value), read straight from the result: no JSON is built to check it."""
    for key in RESULT_FIELDS:
        value = getattr(r, key)
        if key in ("percentiles", "metrics"):
            yield key, [v for _, v in value]
        elif key != "flags":
            yield key, [value]


def _out_of_range(v: object) -> bool:
    if isinstance(v, bool) or not isinstance(v, int | float):
        return False
    return abs(v) > INT_MAX if isinstance(v, int) else not math.isfinite(v)


def _suspect(r: Result) -> bool:
    """Whether any figure of ``r`` may be out of range: one pass over its numbers, most of
    them floats (their sum is finite only when they all are; overflow goes to the slow path)."""
    values = [getattr(r, k) for k in _SCALARS]
    values += [us for _, us in r.percentiles]
    values += [v for _, v in r.metrics]
    floats = [v for v in values if v.__class__ is float]
    ints = [v for v in values if v.__class__ is int]
    return not math.isfinite(sum(floats)) or any(abs(v) > INT_MAX for v in ints)


_SCALARS = tuple(k for k in RESULT_FIELDS if k not in ("percentiles", "metrics", "flags"))


def _check_range(name: str, found: list[Found]) -> None:
    """ParseError for a figure the store cannot hold (an integer beyond 64 bits, an infinite
    float): a damaged output, refused before anything is stored."""
    for f in found:
        for o in f.outcomes:
            for r in o.results:
                if not _suspect(r):
                    continue
                for key, values in _figures(r):
                    bad = next((v for v in values if _out_of_range(v)), None)
                    if bad is not None:
                        raise ParseError(
                            f"{name}: {o.name}: {key} {bad!r:.40} is not a figure the output can "
                            "have printed (damaged?)",
                            hint="check the input and import it again",
                        )


def plan(name: str, text: str, label: str | None, force: str | None = None) -> list[Planned]:
    found = read(name, text, force)
    _check_range(name, found)
    at = now()
    out = []
    for i, f in enumerate(found):
        warnings = f.warnings + tuple(
            f"{o.name} {r.op}: {flag_text(flag)} (flag {flag})"
            for o in f.outcomes
            for r in o.results
            for flag in r.flags
            if flag in WARN_FLAGS
        )
        source = name if len(found) == 1 else f"{name}#{i + 1}"
        out.append(Planned(label, source, f, warnings, at))
    return out


def report(name: str, planned: list[Planned]) -> list[str]:
    """What ``import`` found in one input, one line each: per tool its version, runs and
    workloads; then every warning and every output skipped, and why."""
    tools: dict[str, list[Planned]] = {}
    for p in planned:
        tools.setdefault(p.found.parser, []).append(p)
    lines = []
    for parser, runs in tools.items():
        versions = sorted({p.found.tool_version for p in runs if p.found.tool_version})
        names = list(dict.fromkeys(o.name for p in runs for o in p.found.outcomes))
        shown = ", ".join(names[:8]) + (f", ... ({len(names)} in all)" if len(names) > 8 else "")
        lines.append(
            f"{name}: {parser}, version {', '.join(versions) or 'not shown'}: "
            f"{len(runs)} run{'s' * (len(runs) != 1)}, workloads {shown}"
        )
    for p in planned:
        lines += [f"{p.source}: warning: {w}" for w in p.warnings]
        lines += [f"{p.source}: skipped: {s}" for s in p.found.skipped]
    return lines


def save(store: Store, planned: list[Planned]) -> list[int]:
    """Store the runs of one input, all or nothing."""
    ids = []
    with store.transaction():
        for p in planned:
            run_id = store.start_run(
                label=p.label,
                suite="import",
                target=p.source,
                environment=p.environment,
                params={"imported": True, **p.found.params},
                started_at=p.started_at,
                imported_at=p.imported_at,
            )
            store.record_batch(run_id, 0, None, list(p.found.outcomes))
            store.finish_run(run_id, "complete", ended_at=p.started_at)
            ids.append(run_id)
    return ids
