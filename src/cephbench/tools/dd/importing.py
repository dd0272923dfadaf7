"""dd outputs as people paste them: a sequential read or write per summary, its command
line's operands kept as the run's parameters."""

from __future__ import annotations

from dataclasses import replace

from cephbench.errors import ParseError
from cephbench.model import WorkloadOutcome
from cephbench.tools.dd import paste
from cephbench.tools.found import Found, runs


def looks_like(text: str) -> bool:
    return " copied, " in text and bool(paste.SUMMARY.search(text))


def from_text(text: str, before: str = "") -> list[Found]:
    copies = paste.parse_all(text, before)
    if not copies:
        raise ParseError("no dd summary (N bytes (...) copied, S s, R MB/s) found")
    workloads = [
        WorkloadOutcome(c.result.workload, (c.result,), warnings=c.warnings) for c in copies
    ]
    found, i = runs("dd", None, workloads, text), 0
    out = []
    for f in found:  # each run's parameters: the operands of its copies' command lines
        group, i = copies[i : i + len(f.outcomes)], i + len(f.outcomes)
        params = {c.result.workload: c.operands for c in group if c.operands}
        out.append(replace(f, params={"dd": params} if params else {}))
    return out
