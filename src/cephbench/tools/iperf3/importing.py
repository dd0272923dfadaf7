"""iperf3 outputs as people paste them: ``-J`` JSON from either side, or the normal output's
sender/receiver lines; a side the output does not show is null, never 0."""

from __future__ import annotations

import re

from cephbench.errors import ParseError
from cephbench.model import Result, WorkloadOutcome
from cephbench.tools.found import Found, epoch_time, printed_time, runs
from cephbench.tools.iperf3 import driver as iperf3
from cephbench.tools.iperf3 import paste as iperf3_text


def from_text(text: str, before: str = "") -> list[Found]:
    """Its ``-J`` JSON documents when the text holds any, else its human output."""
    docs = iperf3.documents(text)
    if docs:
        workloads = [_json_workload(d) for d in docs]
        version = next((d["start"]["version"] for d in docs if _version(d)), None)
        return runs("iperf3", version, workloads, text, times=[_json_time(d) for d in docs])
    skipped = tuple(iperf3_text.truncated(text))
    try:
        rows = iperf3_text.parse_text(text)
    except ParseError:
        if not skipped:
            raise
        rows = []  # only cut-off tests: named, none stored
    workloads = [_text_workload(r) for r in rows]
    when = _text_time(text)
    times = [when] * len(workloads) if len(workloads) == 1 else None
    return runs("iperf3", iperf3_text.version(text), workloads, text, skipped, times)


def _json_time(doc: dict) -> str | None:
    stamp = doc.get("start", {}).get("timestamp") if isinstance(doc.get("start"), dict) else None
    return epoch_time(stamp.get("timesecs")) if isinstance(stamp, dict) else None


TIME = re.compile(r"^Time: (?P<at>.+?)\s*$", re.MULTILINE)
"""The time ``-V`` prints at the start of a test: ``Time: Sat, 21 Nov 2026 13:21:48 GMT``."""


def _text_time(text: str) -> str | None:
    """The test's time when one test was pasted with ``-V``; with several, whose is unknown."""
    m = TIME.search(text)
    return printed_time(m["at"], "%a, %d %b %Y %H:%M:%S %Z") if m else None


def _version(doc: dict) -> bool:
    return isinstance(doc.get("start"), dict) and isinstance(doc["start"].get("version"), str)


def _json_workload(doc: dict) -> WorkloadOutcome:
    name = iperf3.workload_name(doc)
    if doc.get("error"):
        return WorkloadOutcome(name, error=f"iperf3 error: {doc['error']}")
    return _text_workload(iperf3.from_json(doc, name))


def _text_workload(r: Result) -> WorkloadOutcome:
    metrics = dict(r.metrics)
    warnings = []
    if "sent_bits_per_second" not in metrics:
        warnings.append("no sender figures in this output (a server's): sent bits/s and Retr null")
    if r.bw_bytes_per_s is None:
        warnings.append("no receiver figures in this output: bandwidth null")
    return WorkloadOutcome(r.workload, (r,), warnings=tuple(warnings))


IPERF3_JSON = re.compile(r'"version"\s*:\s*"iperf 3')


def looks_like(text: str) -> bool:
    """Its JSON, or a summary line of its human output (``... bits/sec ... sender``)."""
    return (
        '"sum_received"' in text
        or bool(IPERF3_JSON.search(text))
        or any(
            "bits/sec" in line and line.rstrip().endswith(("sender", "receiver"))
            for line in text.splitlines()
        )
    )
