"""Every real output others published (tests/data/<tool>/<version>/, with its provenance),
imported through the real import path into a store and compared exactly with the figures
expected of it (see tests/corpus.py for the convention)."""

from __future__ import annotations

import pytest

from cephbench.store import Store
from tests.corpus import differences as corpus_differences
from tests.corpus import entries, import_entry

ENTRIES = entries()


def test_the_corpus_covers_every_tool():
    assert {"rados-bench", "iperf3"} <= {e.tool for e in ENTRIES}
    assert any(
        r.get("workload", "").startswith("osd.") for e in ENTRIES for r in e.expected["results"]
    )


def _param(entry):
    """An entry cephbench is known to import wrong (``known_wrong`` in its expected figures,
    saying what) is a strict xfail: it shows, and it fails the day the import is fixed."""
    why = entry.expected.get("known_wrong")
    marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
    return pytest.param(entry, marks=marks, id=entry.id)


@pytest.mark.parametrize("entry", [_param(e) for e in ENTRIES])
def test_imports_exactly(entry, tmp_path):
    with Store(tmp_path / "results.db") as store:
        assert corpus_differences(entry, import_entry(entry, store)) == []
