"""rados bench outputs as people paste them: every complete write, seq or rand output; a
write, seq and rand together are one run, like ``cephbench run rados``. Outputs cut off are
named and skipped, the complete ones beside them imported."""

from __future__ import annotations

from cephbench.errors import ParseError
from cephbench.model import WorkloadOutcome
from cephbench.tools.found import Found, ceph_version, runs
from cephbench.tools.rados_bench import paste as rados_bench_paste


def looks_like(text: str) -> bool:
    return "Total writes made" in text or "Total reads made" in text


def from_text(text: str, before: str = "") -> list[Found]:
    """Every complete rados bench output; those cut off before their summary are skipped and
    named. ``before``: the text above the block (its last command line may be the output's)."""
    skipped = tuple(rados_bench_paste.truncated(text))
    try:
        pasted = rados_bench_paste.parse_pasted(text, before)
    except ParseError:
        if not skipped:
            raise
        pasted = []  # only cut-off outputs: named, none stored
    workloads = [WorkloadOutcome(p.output.mode, (p.result(),), warnings=p.warnings) for p in pasted]
    version = ceph_version(text) or ceph_version(before)
    times = [p.started_at for p in pasted]
    return runs("rados-bench", version, workloads, text, skipped, times)


def cut_off(text: str) -> list[str]:
    """rados bench outputs in ``text`` cut off before their summary, and where."""
    return rados_bench_paste.truncated(text) if "bench" in text else []
