"""The corpus of published outputs: "N of N exact" per tool, then the import speed.

    .venv/bin/python bench/import_corpus.py [--files 1000]

Every entry under tests/data/<tool>/<version>/ (tests/corpus.py says what an entry is) is
imported through the real import path into a scratch store and compared with its expected
figures; then bench/import_speed.py times one `cephbench import` of 1,000 fio JSON files.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import import_speed  # noqa: E402
from tests.corpus import differences, entries, import_entry  # noqa: E402

from cephbench.errors import CephbenchError  # noqa: E402
from cephbench.store import Store  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    args = parser.parse_args()
    total, exact, wrong = Counter(), Counter(), []
    with tempfile.TemporaryDirectory(prefix="cephbench-corpus-") as tmp:
        for i, entry in enumerate(entries()):
            total[entry.tool] += 1
            try:
                with Store(Path(tmp) / f"{i}.db") as store:
                    diffs = differences(entry, import_entry(entry, store))
            except CephbenchError as e:
                diffs = [f"import failed: {e}"]
            if diffs:
                wrong.append(
                    f"  {entry.id}: {diffs[0]}"
                    + (f" (+{len(diffs) - 1})" if len(diffs) > 1 else "")
                )
            else:
                exact[entry.tool] += 1
    for tool in sorted(total):
        print(f"{tool}: {exact[tool]} of {total[tool]} exact")
    print("\n".join(wrong))
    sys.argv = [sys.argv[0], "--files", str(args.files)]
    import_speed.main()


if __name__ == "__main__":
    main()
