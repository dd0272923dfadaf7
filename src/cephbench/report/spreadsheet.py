"""CSV for spreadsheets: ``show``, ``runs`` and ``compare`` with ``--format csv``.

One header row, then one row per result (``show``, ``runs``) or per workload, direction and
compared configuration (``compare``). Every figure is written from the same JSON document the
command prints with ``--format json``, as Python writes a float (the shortest text that reads
back as the same number): a spreadsheet gets exactly the stored figures, never rounded. The
unit is in every column's name, as in the JSON (``bw_bytes_per_s``, ``lat_p99_us``,
``runtime_s``); the two JSON names that lack one gain it here (``bs`` is ``bs_bytes``,
``rwmixread`` is ``rwmixread_pct``). A figure the tool did not measure is an empty cell.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from typing import Any

from cephbench.model import Run

RUN_COLUMNS = ("run_id", "label", "suite", "target", "status", "started_at")
RESULT_COLUMNS = (
    ("workload", "workload"),
    ("repeat", "repeat"),
    ("op", "op"),
    ("rw", "rw"),
    ("bs_bytes", "bs"),
    ("iodepth", "iodepth"),
    ("numjobs", "numjobs"),
    ("rwmixread_pct", "rwmixread"),
    ("runtime_s", "runtime_s"),
    ("iops", "iops"),
    ("bw_bytes_per_s", "bw_bytes_per_s"),
    ("io_bytes", "io_bytes"),
    ("total_ios", "total_ios"),
    ("lat_mean_us", "lat_mean_us"),
    ("clat_mean_us", "clat_mean_us"),
    ("slat_mean_us", "slat_mean_us"),
    ("lat_p50_us", "lat_p50_us"),
    ("lat_p90_us", "lat_p90_us"),
    ("lat_p99_us", "lat_p99_us"),
    ("lat_p999_us", "lat_p999_us"),
    ("lat_max_us", "lat_max_us"),
    ("lat_kind", "lat_kind"),
    ("error", "error"),
    ("flags", "flags"),
)
"""(CSV column, key of the result in the JSON): the common figures of every result."""

COMPARE_FIELDS = (
    ("", "values"),
    ("_n", "n"),
    ("_ci95_low", "ci95"),
    ("_ci95_high", "ci95"),
    ("_pct_diff", "pct_diff"),
    ("_pct_diff_ci95_low", "pct_diff_ci95"),
    ("_pct_diff_ci95_high", "pct_diff_ci95"),
    ("_p_adjusted", "p_adjusted"),
    ("_significant", "significant"),
)
"""Per metric of a comparison: (suffix of the CSV column, key of the row in the JSON)."""


def results_csv(runs: Sequence[Run]) -> str:
    """One row per result of ``runs``, in order; the tools' further figures (``metrics``:
    rados bench's ``iops_stddev``, iperf3's ``retransmits``...) as columns of their own
    after the common ones, named as the tool names them."""
    docs = [(run, [r.to_json() for r in run.results]) for run in runs]
    core = {c for c, _ in RESULT_COLUMNS} | set(RUN_COLUMNS)
    extra = sorted(
        {k for _, rs in docs for r in rs for k in r.get("metrics", {})} - core,
    )
    rows: list[list[Any]] = []
    for run, results in docs:
        head = [run.id, run.label, run.suite, run.target, run.status, run.started_at]
        for r in results:
            cells = [r.get(key) for _, key in RESULT_COLUMNS]
            cells[-1] = " ".join(r["flags"])
            metrics = r.get("metrics", {})
            rows.append([*head, *cells, *(metrics.get(k) for k in extra)])
    return _write([*RUN_COLUMNS, *(c for c, _ in RESULT_COLUMNS), *extra], rows)


def comparison_csv(doc: dict[str, Any]) -> str:
    """A comparison (``cephbench.comparison/1``) as one row per workload, direction and
    configuration (a column of the comparison: runs sharing a label), each compared metric
    in columns named after it: ``iops`` (the mean), ``iops_n``, ``iops_ci95_low``,
    ``iops_ci95_high``, ``iops_pct_diff`` (vs the baseline; empty on the baseline's rows),
    its CI, ``iops_p_adjusted``, ``iops_significant``; then ``bw_bytes_per_s_*`` and so on."""
    metrics = list(dict.fromkeys(row["metric"] for row in doc["rows"]))
    cells: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    for row in doc["rows"]:
        cells.setdefault((row["workload"], row["op"]), {})[row["metric"]] = row
    header = ["workload", "op", "configuration", "baseline", "run_ids"]
    header += [f"{m}{suffix}" for m in metrics for suffix, _ in COMPARE_FIELDS]
    rows = []
    for (workload, op), by_metric in cells.items():
        for col in doc["columns"]:
            key = col["key"]
            line: list[Any] = [
                workload,
                op,
                col["name"],
                int(key) == doc["baseline"],
                " ".join(map(str, col["runs"])),
            ]
            for m in metrics:
                line += _metric_cells(by_metric.get(m), key)
            rows.append(line)
    return _write(header, rows)


def _metric_cells(row: dict[str, Any] | None, key: str) -> list[Any]:
    if row is None:
        return [None] * len(COMPARE_FIELDS)
    out = []
    for suffix, field in COMPARE_FIELDS:
        value = row[field].get(key)
        if isinstance(value, list):  # a CI: [low, high]
            value = value[0] if suffix.endswith("_low") else value[1]
        out.append(value)
    return out


def _write(header: Iterable[str], rows: Iterable[Sequence[Any]]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([_cell(v) for v in row] for row in rows)
    return buf.getvalue()


def _cell(value: Any) -> Any:
    """None is an empty cell; booleans are true/false (as in the JSON); numbers as Python
    writes them (``repr``: exact)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value
