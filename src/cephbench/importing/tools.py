"""Import parsers of Ceph's own tools and iperf3: text in, runs (``Found``) out, pure.

Each reads every output of its tool in one text (one block of a Markdown file, or a whole
file) with the drivers' parsers, and groups the workloads into runs (``found.runs``). None
of these tools prints its version in the output people paste; where the text shows it
(``ceph -v``, ``iperf3 -V``) it is kept, else it is None.
"""

from __future__ import annotations

import re

from cephbench.importing.found import Found, Workload, runs
from cephbench.model import Result
from cephbench.tools.iperf3 import driver as iperf3
from cephbench.tools.iperf3 import paste as iperf3_text
from cephbench.tools.osd_bench import paste as osd_bench_text
from cephbench.tools.rados_bench import paste as rados_bench_paste


def rados_bench(text: str, before: str = "") -> list[Found]:
    """Every complete rados bench output; those cut off before their summary are skipped and
    named. ``before``: the text above the block (its last command line may be the output's)."""
    workloads = [
        Workload(p.output.mode, (p.result(),), warnings=p.warnings)
        for p in rados_bench_paste.parse_pasted(text, before)
    ]
    skipped = tuple(rados_bench_paste.truncated(text))
    return runs("rados-bench", _ceph_version(text) or _ceph_version(before), workloads, text, skipped)


def osd_bench(text: str) -> list[Found]:
    workloads = []
    for o in osd_bench_text.parse_all(text):
        if o.result is None:
            workloads.append(Workload(o.name, failure=o.error))
            continue
        warnings = () if o.result.runtime_s is not None else ("no elapsed_sec printed: run time null",)
        workloads.append(Workload(o.name, (o.result,), warnings=warnings))
    return runs("osd-bench", _ceph_version(text), workloads, text)


def iperf3_output(text: str) -> list[Found]:
    """Its ``-J`` JSON documents when the text holds any, else its human output."""
    docs = iperf3.documents(text)
    if docs:
        workloads = [_json_workload(d) for d in docs]
        version = next((d["start"]["version"] for d in docs if _version(d)), None)
    else:
        workloads = [_text_workload(r) for r in iperf3_text.parse_text(text)]
        version = iperf3_text.version(text)
    return runs("iperf3", version, workloads, text)


CEPH_VERSION = re.compile(r"\bceph version (?P<v>\d+\.\d+\S*)")


def _ceph_version(text: str) -> str | None:
    """The Ceph version when the paste shows it (``ceph -v``), else None: the tools print none."""
    m = CEPH_VERSION.search(text)
    return m["v"] if m else None


def _version(doc: dict) -> bool:
    return isinstance(doc.get("start"), dict) and isinstance(doc["start"].get("version"), str)


def _json_workload(doc: dict) -> Workload:
    name = iperf3.workload_name(doc)
    if doc.get("error"):
        return Workload(name, failure=f"iperf3 error: {doc['error']}")
    return _text_workload(iperf3.from_json(doc, name))


def _text_workload(r: Result) -> Workload:
    metrics = dict(r.metrics)
    warnings = []
    if "sent_bits_per_second" not in metrics:
        warnings.append("no sender figures in this output (a server's): sent bits/s and Retr null")
    if r.bw_bytes_per_s is None:
        warnings.append("no receiver figures in this output: bandwidth null")
    return Workload(r.workload, (r,), warnings=tuple(warnings))


IPERF3_JSON = re.compile(r'"version"\s*:\s*"iperf 3')


def looks_like_iperf3(text: str) -> bool:
    """Its JSON, or a summary line of its human output (``... bits/sec ... sender``)."""
    return '"sum_received"' in text or bool(IPERF3_JSON.search(text)) or any(
        "bits/sec" in line and line.rstrip().endswith(("sender", "receiver")) for line in text.splitlines())

