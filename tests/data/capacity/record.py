"""Record the fio outputs of real capacity steps for the pure tests (tests/unit/test_capacity*).

Runs one fixed-rate step per rate on a file: target through cephbench's run machinery
(:func:`cephbench.capacity.steps.run_step`) and writes each step's fio json+ as
``file_step_<rate>.json``. Usage: python tests/data/capacity/record.py DIR [RATE ...]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from cephbench.capacity.steps import StepSpec, run_step
from cephbench.store import Store

HERE = Path(__file__).parent


def main() -> None:
    directory = sys.argv[1]
    rates = [int(r) for r in sys.argv[2:]] or [2000, 8000, 16000, 32000, 64000, 128000]
    spec = StepSpec(seconds=3, ramp=1, size="64m", iodepth=32)
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "record.db")
        for rate in rates:
            step = run_step(store, spec, rate, 0, target=f"file:{directory}", label="record")
            (output,) = store.outputs(step.run_id or 0)
            (HERE / f"file_step_{rate}.json").write_text(output["stdout"])
            print(rate, step.achieved_iops, step.latency_us(99.0))


if __name__ == "__main__":
    main()
