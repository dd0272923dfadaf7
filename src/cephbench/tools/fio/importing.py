"""fio's outputs as people paste them: JSON documents (json, json+, client/server) and the
normal text output, each document one run."""

from __future__ import annotations

from cephbench.importing.found import Found
from cephbench.tools.fio.parse import extract_all, parse_document
from cephbench.tools.fio.text import parse_text_all


def looks_like_json(text: str) -> bool:
    return '"fio version"' in text and ('"jobs"' in text or '"client_stats"' in text)


def looks_like_text(text: str) -> bool:
    return "(groupid=" in text and ("IOPS=" in text or "iops=" in text)


def from_json(text: str, before: str = "") -> list[Found]:
    return [
        Found("fio-json", doc.version, tuple(j.outcome() for j in parse_document(doc)), text)
        for doc in extract_all(text)
    ]


def from_text(text: str, before: str = "") -> list[Found]:
    return [
        Found("fio-text", doc.version, tuple(j.outcome() for j in doc.jobs), text)
        for doc in parse_text_all(text)
    ]
