"""Fuzz the importer with mutated real outputs: N inputs (default 10^5), each planned and
stored as `cephbench import` does; prints how many imported, how many failed cleanly, and
any that failed otherwise.

    .venv/bin/python bench/fuzz_import.py [--count 100000] [--seed 1]

Every failure must be a cephbench error with a one-line message, and a failed import must
leave the store as it was (same runs, workloads and results).
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.corpus import entries  # noqa: E402
from tests.data.make_expected_tools import fixtures  # noqa: E402
from tests.mutate import mutate  # noqa: E402

from cephbench.errors import CephbenchError  # noqa: E402
from cephbench.importing import importer  # noqa: E402
from cephbench.store import Store  # noqa: E402


def samples() -> list[str]:
    paths = {e.path for e in entries()} | set(fixtures())
    paths |= {
        p
        for p in (ROOT / "tests/data/fio").glob("*/*")
        if p.suffix in (".json", ".txt") and not p.name.endswith(".expected.json")
    }
    return [p.read_text(encoding="utf-8", errors="replace") for p in sorted(paths)]


def counts(db: Path) -> tuple[int, ...]:
    with sqlite3.connect(db) as conn:
        return tuple(
            conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
            for t in ("runs", "workloads", "results")
        )


def fuzz(count: int, seed: int) -> tuple[Counter, list[str]]:
    rng, texts, outcome, bad = random.Random(seed), samples(), Counter(), []
    with tempfile.TemporaryDirectory(prefix="cephbench-fuzz-") as tmp:
        db = Path(tmp) / "results.db"
        store = Store(db)
        for i in range(count):
            if i and i % 5000 == 0:  # keep the store small: a fresh one now and then
                store.close()
                db.unlink()
                store = Store(db)
            text = mutate(rng.choice(texts), rng)
            before = counts(db)
            try:
                importer.save(store, importer.plan("fuzz", text, None))
                outcome["imported"] += 1
            except CephbenchError as e:
                outcome["refused"] += 1
                if "\n" in e.message or not e.message.strip():
                    bad.append(f"input {i}: not one line: {e.message!r:.200}")
                if counts(db) != before:
                    bad.append(f"input {i}: the store changed on error")
            except Exception as e:
                bad.append(f"input {i}: {type(e).__name__}: {e!s:.200}")
        store.close()
    return outcome, bad


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    start = time.monotonic()
    outcome, bad = fuzz(args.count, args.seed)
    print(
        f"{args.count} mutated inputs in {time.monotonic() - start:.0f} s: "
        f"{outcome['imported']} imported, {outcome['refused']} refused with a one-line error, "
        f"{len(bad)} otherwise"
    )
    print("\n".join(bad[:20]))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
