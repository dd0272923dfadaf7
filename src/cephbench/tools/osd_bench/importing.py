"""``ceph tell osd.N bench`` outputs as people paste them: a workload per OSD, an OSD that
did not answer kept as a failure, one cut off named and skipped."""

from __future__ import annotations

from cephbench.model import WorkloadOutcome
from cephbench.tools.found import Found, ceph_version, runs
from cephbench.tools.osd_bench import paste as osd_bench_text


def looks_like(text: str) -> bool:
    return '"bytes_written"' in text or "bench: wrote " in text


def from_text(text: str, before: str = "") -> list[Found]:
    workloads, skipped = [], []
    for o in osd_bench_text.parse_all(text):
        if o.cut:
            skipped.append(o.cut)
            continue
        if o.result is None:
            workloads.append(WorkloadOutcome(o.name, error=o.error))
            continue
        warnings = (
            () if o.result.runtime_s is not None else ("no elapsed_sec printed: run time null",)
        )
        workloads.append(WorkloadOutcome(o.name, (o.result,), warnings=warnings))
    return runs("osd-bench", ceph_version(text), workloads, text, tuple(skipped))
