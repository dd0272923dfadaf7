"""Import speed: 1,000 fio JSON outputs in one `cephbench import`, as files/s and MB/s,
named one by one and as a directory.

    .venv/bin/python bench/import_speed.py [--files 1000]

The files are copies of the recorded fio 3.33 outputs in tests/data/fio/3.33 (json+ with
latency bins, so each is tens of kB like real ones), cycled to the count asked for.
"""

from __future__ import annotations

import argparse
import itertools
import json
import resource
import tempfile
import time
from pathlib import Path

from cephbench.system.process import run

ROOT = Path(__file__).resolve().parent.parent
CEPHBENCH = str(ROOT / ".venv/bin/cephbench")
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
        for n, (form, inputs) in enumerate((("files named", paths), ("a directory", [folder]))):
            db = Path(tmp) / f"results-{n}.db"
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.monotonic()
            run(
                [CEPHBENCH, "import", *map(str, inputs), "--db", str(db), "--format", "json"],
                check=True,
                timeout=3600,
            )
            seconds = time.monotonic() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
            listed = run([CEPHBENCH, "runs", "--db", str(db), "--format", "json"], check=True)
            stored = len(json.loads(listed.stdout)["runs"])
            mb = size / 1e6
            print(
                f"{form}: {len(paths)} files, {mb:.1f} MB, stored {stored} runs in {seconds:.2f} s:"
                f" {len(paths) / seconds:.0f} files/s, {mb / seconds:.1f} MB/s; CPU {cpu:.2f} s:"
                f" {len(paths) / cpu:.0f} files per CPU second (what to read on a busy machine)"
            )


if __name__ == "__main__":
    main()
