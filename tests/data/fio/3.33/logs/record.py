"""Re-record the fio log fixtures: ``.venv/bin/python tests/data/fio/3.33/logs/record.py [CASE...]``.

Each ``<case>/job.fio`` is run with this machine's fio in ``<case>/`` (where fio writes the
logs) on a data file in a temporary directory; fio's own ``json+`` report of the same run goes
to ``<case>/fio.json``, so the logs can be checked against what fio measured. Then
``<case>/expected.json`` is written from cephbench's reader (``--expected-only`` skips fio):
review its diff. The tests hold the reader to it, and check it against ``fio.json``.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from cephbench.system.process import run
from cephbench.tools.fio import logs

HERE = Path(__file__).parent
CASES = {
    # case: the arguments of logs.collect for it
    "avg_numjobs2": {"prefix": "rr", "interval_ms": 200},
    "avg_gaps": {"prefix": "gp", "interval_ms": 100},
    "perio_numjobs2": {"prefix": "rr", "interval_ms": 1000},
    "randrw_perio": {"prefix": "mixed", "interval_ms": 500},
    "epoch_avg": {"prefix": "ep", "interval_ms": 250},
    "max_value": {"prefix": "mx", "interval_ms": 250, "max_values": True},
    "shared_file": {"prefix": "sh", "interval_ms": 250},
}


def record(case: Path) -> None:
    for old in case.glob("*.log"):
        old.unlink()
    with tempfile.TemporaryDirectory(dir="/var/tmp") as data:
        run(
            ["fio", "--output-format=json", "--output=fio.json", "job.fio"],
            cwd=str(case),
            env={"FIO_DATA": data},
            check=True,
            timeout=120,
        )
    for empty in case.glob("*.log"):
        if empty.stat().st_size == 0:  # sync engines write no submission latency
            empty.unlink()
    print(
        f"{case.name}: "
        + ", ".join(f"{p.name} {p.stat().st_size} B" for p in sorted(case.glob("*.log"))),
        file=sys.stderr,
    )


def expected(case: Path) -> dict:
    args = CASES[case.name]
    paths = logs.find_logs(case, args["prefix"])
    found = [logs.read_log(p) for p in paths]
    summary = (
        [
            s.__dict__ | {"percentiles": [list(p) for p in s.percentiles]}
            for s in logs.latency_summary([g for g in found if g.kind == "lat"])
        ]
        if not any(g.averaged for g in found)
        else []
    )
    series = logs.collect(case, workload=case.name, **args)
    return {
        "collect": args,
        "files": [p.name for p in paths],
        "latency": summary,
        "series": [
            {"op": s.op, "metric": s.metric, "t_s": s.t_s.tolist(), "values": s.values.tolist()}
            for s in series
        ],
    }


def main() -> None:
    names = [a for a in sys.argv[1:] if not a.startswith("--")] or list(CASES)
    for name in names:
        case = HERE / name
        if "--expected-only" not in sys.argv:
            record(case)
        (case / "expected.json").write_text(json.dumps(expected(case), indent=1) + "\n")


if __name__ == "__main__":
    main()
