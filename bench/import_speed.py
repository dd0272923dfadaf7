"""Import speed: 1,000 fio JSON outputs in one `cephbench import`, as files/s and MB/s.

    .venv/bin/python bench/import_speed.py [--files 1000]

The files are copies of the recorded fio 3.33 outputs in tests/data/fio/3.33 (json+ with
latency bins, so each is tens of kB like real ones), cycled to the count asked for.
"""

from __future__ import annotations

import argparse
import itertools
import json
import tempfile
import time
from pathlib import Path

from cephbench.system.process import run

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted(
    p
    for p in (ROOT / "tests/data/fio/3.33").glob("*.json")
    if not p.name.endswith(".expected.json")
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cephbench-import-") as tmp:
        folder = Path(tmp) / "results"
        folder.mkdir()
        paths = []
        for i, sample in zip(range(args.files), itertools.cycle(SAMPLES)):
            path = folder / f"{i:04d}-{sample.name}"
            path.write_text(sample.read_text())
            paths.append(str(path))
        size = sum(Path(p).stat().st_size for p in paths)
        db = Path(tmp) / "results.db"
        start = time.monotonic()
        run(
            [
                str(ROOT / ".venv/bin/cephbench"),
                "import",
                *paths,
                "--db",
                str(db),
                "--format",
                "json",
            ],
            check=True,
            timeout=3600,
        )
        seconds = time.monotonic() - start
        listed = run(
            [str(ROOT / ".venv/bin/cephbench"), "runs", "--db", str(db), "--format", "json"],
            check=True,
        )
        stored = len(json.loads(listed.stdout)["runs"])
    print(f"{len(paths)} files, {size / 1e6:.1f} MB, stored {stored} runs in {seconds:.2f} s")
    print(f"{len(paths) / seconds:.0f} files/s, {size / 1e6 / seconds:.1f} MB/s")


if __name__ == "__main__":
    main()
