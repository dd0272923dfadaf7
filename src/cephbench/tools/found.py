"""What the importer finds in an input: tool outputs, each to become one stored run."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from cephbench.model import WorkloadOutcome


@dataclass(frozen=True)
class Found:
    """One tool output found in an input: it becomes one stored run."""

    parser: str
    tool_version: str | None
    outcomes: tuple[WorkloadOutcome, ...]
    text: str
    warnings: tuple[str, ...] = ()
    """What the parser could not read as printed (a figure derived, a mode unknown, ...)."""
    skipped: tuple[str, ...] = ()
    """Outputs of this tool seen in the text but not imported, and why (cut off, ...)."""


def runs(
    parser: str,
    version: str | None,
    workloads: list[WorkloadOutcome],
    text: str,
    skipped: tuple[str, ...] = (),
) -> list[Found]:
    """Workloads in the order found, as runs: a name seen again starts a new run.

    ``compare`` matches workloads by name across runs, and ``cephbench run rados`` stores
    write, seq and rand as workloads of one run (``run osd``: one per OSD): a pasted write,
    seq and rand is therefore one run, comparable with those; the same mode again is a
    second attempt, so a second run.
    """
    out: list[list[WorkloadOutcome]] = [[]]
    for w in workloads:
        if any(seen.name == w.name for seen in out[-1]):
            out.append([])
        out[-1].append(w)
    found = [
        Found(
            parser,
            version,
            tuple(group),
            text,
            tuple(f"{w.name}: {msg}" for w in group for msg in w.warnings),
        )
        for group in out
        if group
    ]
    if found and skipped:
        found[-1] = replace(found[-1], skipped=skipped)
    return found


def merge(found: list[Found], parsers: frozenset[str]) -> list[Found]:
    """Join consecutive runs of one of ``parsers`` whose workloads differ (a blog post with
    write, seq and rand in three fenced blocks is one run, as in one block)."""
    out: list[Found] = []
    for f in found:
        prev = out[-1] if out else None
        if (
            prev
            and prev.parser == f.parser
            and f.parser in parsers
            and not {o.name for o in prev.outcomes} & {o.name for o in f.outcomes}
        ):
            out[-1] = Found(
                f.parser,
                prev.tool_version or f.tool_version,
                prev.outcomes + f.outcomes,
                prev.text + "\n" + f.text,
                prev.warnings + f.warnings,
                prev.skipped + f.skipped,
            )
        else:
            out.append(f)
    return out


CEPH_VERSION = re.compile(r"\bceph version (?P<v>\d+\.\d+\S*)")


def ceph_version(text: str) -> str | None:
    """The Ceph version when a paste shows it (``ceph -v``), else None: Ceph's tools print none."""
    m = CEPH_VERSION.search(text)
    return m["v"] if m else None
