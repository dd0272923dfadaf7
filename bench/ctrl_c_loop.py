"""Loop the lab's Ctrl-C test: an RBD run stopped by SIGINT as fio starts must end "aborted"
with nothing left, every time. Runs it N times in one pytest session (one lab) and prints
how many passed.

    .venv/bin/python bench/ctrl_c_loop.py --rounds 20
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEST = "tests/lab/test_health_lab.py::test_ctrl_c_leaves_no_pool_image_or_noscrub"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cephbench-ctrl-c-") as tmp:
        env = {
            **os.environ,
            "CEPHBENCH_CTRL_C_LOOP": str(args.rounds),
            "CEPHBENCH_LAB_DIR": str(Path(tmp) / "no-lab"),
        }  # the test session brings its own
        started = time.monotonic()
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                TEST,
                "-q",
                "-p",
                "no:cacheprovider",
                "--basetemp",
                str(Path(tmp) / "pytest"),
                "-rf",
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        seconds = time.monotonic() - started
    passed = _count(result.stdout, "passed")
    failed = _count(result.stdout, "failed") + _count(result.stdout, "error")
    for line in result.stdout.splitlines():
        if line.startswith(("FAILED", "ERROR")):
            print(line)
    print(
        f"Ctrl-C during an RBD run: {passed} of {args.rounds} passed, {failed} failed "
        f"({seconds:.0f} s in all, lab start included)"
    )
    return 0 if passed == args.rounds else 1


def _count(summary: str, word: str) -> int:
    m = re.search(rf"(\d+) {word}", summary.splitlines()[-1] if summary.strip() else "")
    return int(m.group(1)) if m else 0


if __name__ == "__main__":
    sys.exit(main())
