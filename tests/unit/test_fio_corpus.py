"""Published fio outputs (other people's, of many versions and pasting shapes) import exactly.

Each corpus file under tests/data/fio/<version>/ has ``<name>.source.md`` (where it was found)
and ``<name>.expected.json``: for JSON computed by json_expected.py (not cephbench's parser),
for text transcribed from what the output prints. The whole import path is used (fenced
blocks, detection, every document), as ``cephbench import`` reads a file.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from cephbench.importing.importer import read
from tests.corpus import FIO_FIELDS
from tests.helpers import DATA

NOTES = sorted((DATA / "fio").glob("*/*.source.md"))


def _source(note: Path) -> Path:
    stem = note.name[: -len(".source.md")]
    (path,) = [
        p
        for p in note.parent.glob(stem + ".*")
        if not p.name.endswith((".source.md", ".expected.json"))
    ]
    return path


def _imported(path: Path) -> list[dict]:
    return [
        {
            "tool_version": f.tool_version,
            "workloads": [
                {
                    "name": o.name,
                    "failure": o.error,
                    "results": []
                    if o.error
                    else [{k: getattr(r, k) for k in FIO_FIELDS} for r in o.results],
                }
                for o in f.outcomes
            ],
        }
        for f in read(path.name, path.read_text())
    ]


def _mismatches(got, expected, rel: float, where: str = "") -> list[str]:
    if isinstance(expected, dict):
        return [
            m
            for k in expected
            if not k.startswith("_")
            for m in _mismatches(got.get(k), expected[k], rel, f"{where}.{k}")
        ]
    if isinstance(expected, list):
        if not isinstance(got, list) or len(got) != len(expected):
            return [
                f"{where}: {len(got) if isinstance(got, list) else got!r} items, "
                f"expected {len(expected)}"
            ]
        return [
            m
            for i, (g, e) in enumerate(zip(got, expected, strict=True))
            for m in _mismatches(g, e, rel, f"{where}[{i}]")
        ]
    if isinstance(expected, float) and isinstance(got, int | float) and not isinstance(got, bool):
        return [] if math.isclose(got, expected, rel_tol=rel) else [f"{where}: {got} != {expected}"]
    if isinstance(expected, str) and where.endswith(".failure"):
        return [] if got and expected in got else [f"{where}: {got!r} lacks {expected!r}"]
    return [] if got == expected else [f"{where}: {got!r} != {expected!r}"]


@pytest.mark.parametrize("note", NOTES, ids=lambda p: f"{p.parent.name}/{p.name[:-10]}")
def test_published_output_imports_exactly(note):
    expected = json.loads(
        note.with_name(note.name[: -len(".source.md")] + ".expected.json").read_text()
    )
    rel = 1e-6 if expected["kind"] == "json" else 1e-9  # text: printed figures, converted exactly
    wrong = _mismatches({"runs": _imported(_source(note))}, {"runs": expected["runs"]}, rel)
    assert not wrong, "\n".join(wrong)


def test_every_corpus_file_says_where_it_came_from():
    assert len(NOTES) >= 5
    for note in NOTES:
        text = note.read_text()
        assert "Source:" in text and ("Shape: json" in text or "Shape: text" in text), note
        _source(note)  # exactly one output beside it
