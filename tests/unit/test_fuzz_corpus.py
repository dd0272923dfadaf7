"""Mutated real outputs (the corpus and our recordings) through the whole import: each is
stored, or refused with a one-line cephbench error that leaves the store as it was.
bench/fuzz_import.py runs the same with 10^5 inputs."""

from __future__ import annotations

import random
import sqlite3

from cephbench.errors import CephbenchError
from cephbench.importing import importer
from cephbench.store import Store
from tests.corpus import entries
from tests.data.make_expected_tools import fixtures
from tests.mutate import mutate

TEXTS = [p.read_text() for p in sorted({e.path for e in entries()} | set(fixtures()))]


def _counts(db) -> tuple[int, ...]:
    with sqlite3.connect(db) as conn:
        return tuple(
            conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ("runs", "results")
        )


def test_mutated_outputs_import_or_fail_cleanly(tmp_path):
    rng, db, refused = random.Random(17), tmp_path / "results.db", 0
    with Store(db) as store:
        for _ in range(600):
            text, before = mutate(rng.choice(TEXTS), rng), _counts(db)
            try:
                importer.save(store, importer.plan("fuzz", text, None))
            except CephbenchError as e:
                refused += 1
                assert "\n" not in e.message and e.message.strip()
                assert _counts(db) == before
    assert 0 < refused < 600  # both outcomes were exercised
