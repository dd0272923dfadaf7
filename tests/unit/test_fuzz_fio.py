"""Whatever fio-like text comes in, the parser returns results or raises ParseError, nothing else."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cephbench.errors import ParseError
from cephbench.tools.fio.parse import parse
from tests.fuzzing import json_values, replace_somewhere
from tests.helpers import FIO_DATA

SAMPLES = [
    p.read_text() for p in sorted(FIO_DATA.glob("*.json")) if not p.name.endswith(".expected.json")
]
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _parses_or_refuses(text: str) -> None:
    try:
        outcomes = parse(text)
    except ParseError:
        return
    for o in outcomes:
        assert all(r.op in ("read", "write", "trim") for r in o.results)


@FUZZ
@given(st.text())
def test_arbitrary_text(text):
    _parses_or_refuses(text)


@FUZZ
@given(st.sampled_from(SAMPLES), st.data())
def test_truncated_real_output(sample, data):
    cut = data.draw(st.integers(0, len(sample)))
    _parses_or_refuses(sample[:cut])


@FUZZ
@given(st.sampled_from(SAMPLES), st.data(), json_values)
def test_real_output_with_a_field_replaced(sample, data, value):
    """Replace one value somewhere in a real document with anything JSON can hold."""
    start = sample.index("{")
    doc = json.loads(sample[start:])
    doc = replace_somewhere(doc, data, value, depth=6)
    _parses_or_refuses(json.dumps(doc))


CORPUS = [
    p
    for p in sorted((FIO_DATA.parent).glob("*/*"))
    if p.is_file()
    and (p.suffix in (".md", ".txt") or p.name.endswith(".json"))
    and not p.name.endswith((".expected.json", ".source.md"))
]
CORPUS_TEXTS = [p.read_text() for p in CORPUS]


def _imports_or_refuses(text: str) -> None:
    """The importer on mutated published outputs: results, or one clear line; never a traceback."""
    from cephbench.errors import UsageError
    from cephbench.importing.importer import read

    try:
        found = read("fuzzed.txt", text)
    except (ParseError, UsageError) as e:
        assert "\n" not in e.message and e.message.startswith("fuzzed.txt: ")
        return
    for f in found:
        for o in f.outcomes:
            assert all(r.op in ("read", "write", "trim") for r in o.results)
            assert all(r.iops is None or r.iops >= 0 for r in o.results)


@FUZZ
@given(st.sampled_from(CORPUS_TEXTS), st.data())
def test_published_outputs_mutated(sample, data):
    """Cut, duplicated, de-indented or noise-spliced copies of the published corpus."""
    cut = data.draw(st.integers(0, len(sample)))
    at = data.draw(st.integers(0, cut))
    noise = data.draw(
        st.sampled_from(
            [
                "",
                "\n",
                "fio: terminating on signal 2\n",
                "$ ",
                "}",
                "{",
                "Warning: Permanently added 'h' (ED25519) to known hosts.\n",
                "k",
                "M",
                "[eta 00m:00s]",
            ]
        )
    )
    text = sample[:at] + noise + sample[at:cut]
    if data.draw(st.booleans()):
        text = "\n".join(line.lstrip() for line in text.splitlines())
    if data.draw(st.booleans()):
        text = text + "\n" + text
    _imports_or_refuses(text)
