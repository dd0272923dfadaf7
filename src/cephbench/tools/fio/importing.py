"""fio's outputs as people paste them: JSON documents (json, json+, client/server) and the
normal text output, each document one run, dated when fio says it ran (the JSON's
``timestamp``, the time on a text job's header line); a text job cut off is skipped, named."""

from __future__ import annotations

import re

from cephbench.tools.fio.parse import extract_all, parse_document
from cephbench.tools.fio.text import parse_text_all
from cephbench.tools.found import Found, epoch_time, printed_time

_JSON_START = re.compile(r'\{\s*"fio version"\s*:')
"""How every fio JSON document begins (fio 2.1 to 3.42, json, json+ and client/server): an
object whose first key is ``"fio version"``. A script that reads fio's JSON names the keys
too, but not this way, and is no damaged output."""


def looks_like_json(text: str) -> bool:
    return bool(_JSON_START.search(text)) and ('"jobs"' in text or '"client_stats"' in text)


def looks_like_text(text: str) -> bool:
    return "(groupid=" in text and ("IOPS=" in text or "iops=" in text)


def from_json(text: str, before: str = "") -> list[Found]:
    return [
        Found(
            "fio-json",
            doc.version,
            tuple(j.outcome() for j in parse_document(doc)),
            text,
            started_at=epoch_time(doc.data.get("timestamp")),
        )
        for doc in extract_all(text)
    ]


def from_text(text: str, before: str = "") -> list[Found]:
    return [
        Found(
            "fio-text",
            doc.version,
            tuple(j.outcome() for j in doc.jobs),
            text,
            doc.warnings,
            doc.cut,
            printed_time(doc.when, CTIME) if doc.when else None,
        )
        for doc in parse_text_all(text)
    ]


CTIME = "%a %b %d %H:%M:%S %Y"
"""How fio prints the time on a job's header line (C's ``ctime``)."""
