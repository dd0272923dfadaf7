"""What the importer finds in an input: tool outputs, each to become one stored run, and
those seen but not imported (cut off), named so that one cut output never costs the others."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

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
    """Outputs of this tool seen in the text but not imported, and why (cut off, ...). A Found
    with no outcomes only says what was skipped: it is no run."""
    started_at: str | None = None
    """When the output says it ran (ISO 8601 UTC, as runs keep time); None when it does not."""
    params: dict[str, Any] = field(default_factory=dict)
    """What the pasted command line says of how it ran (dd's operands), the run's params."""


def runs(
    parser: str,
    version: str | None,
    workloads: list[WorkloadOutcome],
    text: str,
    skipped: tuple[str, ...] = (),
    times: list[str | None] | None = None,
) -> list[Found]:
    """Workloads in the order found, as runs: a name seen again starts a new run, started
    when its first workload with a time (``times``, one per workload) says.

    ``compare`` matches workloads by name across runs, and ``cephbench run rados`` stores
    write, seq and rand as workloads of one run (``run osd``: one per OSD): a pasted write,
    seq and rand is therefore one run, comparable with those; the same mode again is a
    second attempt, so a second run.
    """
    out: list[list[WorkloadOutcome]] = [[]]
    started: list[list[str]] = [[]]
    for w, when in zip(workloads, times or [None] * len(workloads), strict=True):
        if any(seen.name == w.name for seen in out[-1]):
            out.append([])
            started.append([])
        out[-1].append(w)
        started[-1] += [when] if when else []
    found = [
        Found(
            parser,
            version,
            tuple(group),
            text,
            tuple(f"{w.name}: {msg}" for w in group for msg in w.warnings),
            started_at=min(when, default=None),
        )
        for group, when in zip(out, started, strict=True)
        if group
    ]
    if skipped:
        found = found or [Found(parser, version, (), text)]
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
            and prev.outcomes
            and f.outcomes
            and not {o.name for o in prev.outcomes} & {o.name for o in f.outcomes}
        ):
            out[-1] = Found(
                f.parser,
                prev.tool_version or f.tool_version,
                prev.outcomes + f.outcomes,
                prev.text + "\n" + f.text,
                prev.warnings + f.warnings,
                prev.skipped + f.skipped,
                min(filter(None, (prev.started_at, f.started_at)), default=None),
            )
        else:
            out.append(f)
    return out


CEPH_VERSION = re.compile(r"\bceph version (?P<v>\d+\.\d+\S*)")


def ceph_version(text: str) -> str | None:
    """The Ceph version when a paste shows it (``ceph -v``), else None: Ceph's tools print none."""
    m = CEPH_VERSION.search(text)
    return m["v"] if m else None


def printed_time(text: str, *formats: str) -> str | None:
    """A time as an output printed it (``strptime`` ``formats``, tried in order), as runs keep
    time: ISO 8601 UTC, to the second; None when it is none of them. A time printed without a
    zone (fio's ``ctime``) is taken as UTC: the output does not say which zone it was."""
    text = " ".join(text.split())  # ctime pads a day below 10 with a space
    for fmt in formats:
        try:
            when = datetime.strptime(text, fmt)
        except ValueError:
            continue
        return _utc(when if when.tzinfo else when.replace(tzinfo=UTC))
    return None


def epoch_time(seconds: object) -> str | None:
    """Seconds since 1970 (fio's JSON ``timestamp``, iperf3's ``timesecs``) as runs keep
    time; None when it is no such figure."""
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds <= 0:
        return None
    try:
        return _utc(datetime.fromtimestamp(seconds, UTC))
    except (OverflowError, OSError, ValueError):
        return None


def _utc(when: datetime) -> str:
    return when.astimezone(UTC).replace(microsecond=0).isoformat(timespec="seconds")
