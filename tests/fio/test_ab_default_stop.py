"""`cephbench ab` with no --rounds on a file target, end to end with real fio: by default it
adds blocks until every workload's IOPS CI is within ±5 %, then calls a change inside the band
"same" and prints the smallest change it could have detected (issue 25, item 7).

The experiment is an A/A one, on purpose: side B sets vm.swappiness to the value it already
has (the only change kind that needs no Ceph is a sysctl), so nothing on the machine changes,
and the workload is paced by fio (rate_iops) so both sides' IOPS agree closely and the
confidence sequence closes within the target after a few blocks. Rounds run 2 s: a stall at
the end of a shorter paced round (the machine's other load) costs it too much. How many blocks
that takes depends on the machine's other load, which the test does not control: the stop and
the verdict are checked against the figures the experiment itself reports (the stopping rule's
arithmetic on every kind of data is the pure tests' job, tests/unit/test_ab_verdicts.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.contract import validate
from tests.helpers import needs_fio, needs_root

SUITE = """name: paced
description: 4k random reads for 2 s, paced at 400 IOPS
global: {ioengine: psync, time_based: true, runtime: 2s, size: 4m}
workloads:
  - {name: rand_rd, rw: randread, bs: 4k, iodepth: 1, numjobs: 1, options: {rate_iops: 400}}
"""


@needs_fio
@needs_root
def test_ab_runs_to_the_target_by_default_and_says_what_it_resolves(
    invoke, tmp_path: Path, bench_dir: Path
):
    suite = tmp_path / "paced.yaml"
    suite.write_text(SUITE)
    swappiness = Path("/proc/sys/vm/swappiness").read_text().strip()
    args = ["ab", str(suite), "--target", f"file:{bench_dir}"]
    args += ["--b", f"sysctl vm.swappiness={swappiness}", "--b-label", "same"]
    doc = validate(json.loads(invoke(*args, "--max-rounds", "16", "--format", "json").stdout))
    assert doc["target_ci_pct"] == 5 and doc["sequential"]
    (row,) = [r for r in doc["rows"] if r["metric"] == "iops"]
    assert row["mde_pct"] is not None
    if doc["stopped"] == "target_ci":  # the usual case: paced rounds agree within ±2 %
        assert 4 <= len(doc["order"]) < 16 and row["mde_pct"] <= 5
    else:  # a machine so busy (a lab starting beside it) that 16 rounds cannot reach ±5 %
        assert doc["stopped"] == "max_rounds" and len(doc["order"]) == 16 and row["mde_pct"] > 5
    # the verdict follows the interval of the difference: wholly inside ±5 % is "same"
    lo, hi = row["pct_diff_ci95"]["b"]
    assert (row["verdict"] == "same") == (lo >= -5 and hi <= 5), row
    assert Path("/proc/sys/vm/swappiness").read_text().strip() == swappiness
    # the table: the verdict beside the smallest change it could have detected
    with_rounds = invoke(*args, "--rounds", "4", "--format", "md").stdout
    assert "| Workload | A | same | Δ [95 % CI] | Verdict | Smallest detectable |" in with_rounds
    assert re.search(
        r"\| rand_rd \| \d+ \| \d+ \| [+-]\d+\.\d\d% \[.*\] \| \w+ \| ±\d+\.\d\d% \|", with_rounds
    )
