"""The corpus of real outputs others published: discovery and exact comparison, shared by
tests/unit/test_corpus.py and bench/import_corpus.py.

An entry is ``tests/data/<tool>/<version>/<name>.<ext>`` with ``<name>.source.md`` (where it
was published) and ``<name>.expected.json``: an object whose ``results`` lists, in import
order, the fields each imported result must have (``metrics`` a subset of the result's); and
optionally ``runs`` (per run: ``parser``, ``workloads``, ``tool_version``), ``failures``
(``[workload, error]``), ``skipped`` (how many outputs were skipped) and ``known_wrong`` (what
cephbench imports wrong in it: the entry stays, as a strict xfail). Figures compare to
1e-6 relative (JSON figures are exact; text ones are transcribed at the printed precision and
converted by a fixed factor), everything else exactly.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from cephbench.importing import importer
from cephbench.store import Store

DATA = Path(__file__).parent / "data"
NOT_INPUTS = (".expected.json", ".source.md", ".fio", ".stderr")
REL = 1e-6
FIO_FIELDS = (  # what the fio tests compare of each result, client or aggregate
    "op",
    "iops",
    "bw_bytes_per_s",
    "io_bytes",
    "runtime_s",
    "total_ios",
    "lat_mean_us",
    "clat_mean_us",
    "slat_mean_us",
    "lat_max_us",
    "lat_p99_us",
    "lat_kind",
)


@dataclass(frozen=True)
class Entry:
    tool: str
    version: str
    path: Path
    expected: dict

    @property
    def id(self) -> str:
        return f"{self.tool}/{self.version}/{self.path.name}"


def entries() -> list[Entry]:
    """Every corpus entry under tests/data, of every tool."""
    out = []
    for source in sorted(DATA.glob("*/*/*.source.md")):
        stem = source.name[: -len(".source.md")]
        golden = source.with_name(f"{stem}.expected.json")
        if not golden.exists():
            continue
        expected = json.loads(golden.read_text())
        if not isinstance(expected, dict) or "results" not in expected:
            continue  # a lab recording's note, not a corpus entry
        inputs = sorted(
            p
            for p in source.parent.glob(f"{stem}.*")
            if not p.name.endswith(NOT_INPUTS) and p.name[len(stem) + 1 :].count(".") == 0
        )
        for path in inputs:
            out.append(Entry(source.parent.parent.name, source.parent.name, path, expected))
    return out


def import_entry(entry: Entry, store: Store) -> list:
    """The entry imported as ``cephbench import`` does it: planned, stored, read back."""
    planned = importer.plan(
        entry.path.name, entry.path.read_text(encoding="utf-8", errors="replace"), None
    )
    ids = importer.save(store, planned)
    return [(p, store.get_run(i)) for p, i in zip(planned, ids, strict=True)]


def _same(want, got) -> bool:
    if isinstance(want, float) or isinstance(got, float):
        if want is None or got is None or isinstance(want, bool) or isinstance(got, bool):
            return want == got
        return math.isclose(float(want), float(got), rel_tol=REL, abs_tol=0.0)
    return want == got


def differences(entry: Entry, imported: list) -> list[str]:
    """What differs between the entry's expected figures and what was imported; [] if exact."""
    exp, diffs = entry.expected, []
    runs = [run for _, run in imported]
    results = [r.to_json() for run in runs for r in run.results]
    if len(results) != len(exp["results"]):
        diffs.append(f"{len(results)} results, expected {len(exp['results'])}")
    for i, (want, got) in enumerate(zip(exp["results"], results, strict=False)):
        for key, value in want.items():
            if key == "metrics":
                for m, v in value.items():
                    if not _same(v, got["metrics"].get(m)):
                        diffs.append(
                            f"result {i} metrics.{m}: {got['metrics'].get(m)!r}, expected {v!r}"
                        )
            elif not _same(value, got.get(key)):
                diffs.append(f"result {i} {key}: {got.get(key)!r}, expected {value!r}")
    if "runs" in exp:
        found = [
            {
                "parser": p.found.parser,
                "tool_version": p.found.tool_version,
                "workloads": [o.name for o in p.found.outcomes],
            }
            for p, _ in imported
        ]
        if len(found) != len(exp["runs"]):
            diffs.append(f"{len(found)} runs, expected {len(exp['runs'])}")
        for want, got in zip(exp["runs"], found, strict=False):
            diffs += [
                f"run {k}: {got[k]!r}, expected {v!r}" for k, v in want.items() if got[k] != v
            ]
    if "failures" in exp:
        failures = [[f.workload, f.error] for run in runs for f in run.failures]
        if failures != exp["failures"]:
            diffs.append(f"failures {failures!r}, expected {exp['failures']!r}")
    skipped = sum(len(p.found.skipped) for p, _ in imported)
    if skipped != exp.get("skipped", 0):
        diffs.append(f"{skipped} outputs skipped, expected {exp.get('skipped', 0)}")
    return diffs
