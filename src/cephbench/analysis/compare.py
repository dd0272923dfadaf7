"""Compare stored runs: match workloads, summarise each cell, test each difference. Pure.

Runs are grouped into *columns* by label (several runs with one label pool their samples,
as repeats do); a run without a label is its own column, named ``#id``. The first column is
the baseline. Workloads are matched by name and direction (op) when the names agree, else by
their parameters (a blog's ``test`` is the user's ``randrw_4k``: ``matching.py``);
one present in only some columns is still a row (its missing cells empty) and is listed in
``missing``.

See :mod:`cephbench.analysis.stats` for the test, the correction and why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from cephbench.analysis import equivalence, stats
from cephbench.analysis.clients import ClientSpread, client_spread
from cephbench.analysis.envdiff import EnvDifference, env_diff
from cephbench.analysis.matching import Matching, ParamsMatch, match_workloads
from cephbench.contracts import COMPARISON
from cephbench.errors import UsageError
from cephbench.model import Failure, Result, StoredRun
from cephbench.system.units import bits_unit


@dataclass(frozen=True)
class Metric:
    key: str
    """The Result attribute (and the JSON name): raw units."""
    title: str
    unit: str
    scale: float
    """Raw value x scale = displayed value (bytes/s -> MiB/s, us -> ms)."""
    higher_is_better: bool

    def value(self, r: Result) -> float | None:
        return getattr(r, self.key)


METRICS = (
    Metric("iops", "IOPS", "IO/s", 1.0, True),
    Metric("bw_bytes_per_s", "Bandwidth", "MiB/s", 1 / 2**20, True),
    Metric("lat_mean_us", "Avg Latency", "ms", 1e-3, False),
    Metric("lat_p99_us", "99th Percentile Latency", "ms", 1e-3, False),
)
NETWORK_RW = ("tcp", "udp")
"""The ``rw`` of network figures (iperf3's protocols): their bandwidth is bits per second."""


def metrics_of(runs: Sequence[StoredRun]) -> tuple[Metric, ...]:
    """:data:`METRICS`, bandwidth in Gbit/s or Mbit/s (by the largest figure) when every
    result is a network figure, as ``show`` prints them."""
    results = [r for run in runs for r in run.results]
    if not results or any(r.rw not in NETWORK_RW for r in results):
        return METRICS
    largest = max((r.bw_bytes_per_s * 8 for r in results if r.bw_bytes_per_s), default=None)
    unit, bits = bits_unit(largest)
    return tuple(
        replace(m, unit=unit, scale=8 / bits) if m.key == "bw_bytes_per_s" else m for m in METRICS
    )


@dataclass(frozen=True)
class Column:
    key: str
    """The first run's id, as text: the key of this column in JSON."""
    name: str
    runs: tuple[StoredRun, ...]


@dataclass(frozen=True)
class Cell:
    samples: tuple[float, ...]
    summary: stats.Summary | None
    """None when no sample has the figure (not recorded, or the workload did not run)."""
    flags: tuple[str, ...] = ()


@dataclass(frozen=True)
class Diff:
    pct: float | None
    ci95: tuple[float, float] | None
    """The percent difference's 95 % CI (with repeats)."""
    p: float | None = None
    p_adjusted: float | None = None
    significant: bool | None = None
    """True/False from the test; None when either side has a single sample."""


@dataclass(frozen=True)
class Row:
    workload: str
    op: str
    metric: Metric
    cells: dict[str, Cell]
    diffs: dict[str, Diff] = field(default_factory=dict)
    """Column key -> difference to the baseline (every column but the baseline)."""

    def verdict(self, key: str, same_within: float = equivalence.SAME_WITHIN) -> str:
        """``better``, ``worse`` (significant), ``same`` (the CI within ±``same_within`` %),
        ``inconclusive`` (neither), ``unknown`` (1 sample) or ``missing`` (a side has no
        figure): :func:`cephbench.analysis.equivalence.verdict`."""
        d = self.diffs[key]
        return equivalence.verdict(
            d.pct, d.ci95, d.significant, self.metric.higher_is_better, same_within
        )


@dataclass(frozen=True)
class Comparison:
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]
    missing: tuple[tuple[str, str, tuple[str, ...]], ...]
    """(workload, op, names of the columns that have it) for workloads not in every column."""
    failures: tuple[tuple[str, Failure], ...]
    warnings: tuple[str, ...]
    env: tuple[EnvDifference, ...]
    alpha: float = stats.ALPHA
    clusters: dict[int, dict] = field(default_factory=dict)
    """Run id -> its Ceph cluster facts, for runs on a cluster."""
    clients: tuple[ClientSpread, ...] = ()
    """The per-client spread of the workloads of runs from many clients (``--clients``)."""
    by_params: tuple[ParamsMatch, ...] = ()
    """The workloads of a column matched to a row by their parameters, not their name."""

    @property
    def baseline(self) -> Column:
        return self.columns[0]

    @property
    def tested(self) -> bool:
        """Whether any cell has a verdict (i.e. some columns have repeats)."""
        return any(d.significant is not None for r in self.rows for d in r.diffs.values())

    def workloads(self) -> list[tuple[str, str]]:
        return list(dict.fromkeys((r.workload, r.op) for r in self.rows))


def group_runs(runs: Sequence[StoredRun]) -> tuple[Column, ...]:
    """Columns by label, in first-seen order; unlabelled runs each their own."""
    groups: dict[str, list[StoredRun]] = {}
    for run in runs:
        groups.setdefault(run.label or f"#{run.id}", []).append(run)
    return tuple(Column(str(rs[0].id), name, tuple(rs)) for name, rs in groups.items())


def compare(
    runs: Sequence[StoredRun],
    alpha: float = stats.ALPHA,
    clusters: dict[int, dict] | None = None,
    match: str = "auto",
) -> Comparison:
    """Compare ``runs`` (the first is the baseline); one column is allowed (a report of one run).

    ``clusters``: run id -> Ceph cluster facts (:func:`cephbench.analysis.envdiff.cluster_context`).
    ``match``: one of :data:`cephbench.analysis.matching.MATCHES` (see
    :func:`~cephbench.analysis.matching.match_workloads`).
    """
    if len({r.id for r in runs}) != len(runs):
        raise UsageError("a run is given twice", hint="name each run once")
    columns = group_runs(runs)
    matching = match_workloads(columns, match)
    keys = list(matching.keys)
    metrics = metrics_of(runs)
    rows = [_row(w, op, m, columns, matching) for (w, op) in keys for m in metrics]
    rows = _correct(rows, alpha)
    missing = []
    for w, op in keys:
        have = tuple(c.name for c in columns if any(_results(c, w, op, matching)))
        if len(have) < len(columns):
            missing.append((w, op, have))
    failures = tuple((c.name, f) for c in columns for run in c.runs for f in run.failures)
    return Comparison(
        columns,
        tuple(rows),
        tuple(missing),
        failures,
        tuple(_unstable(rows, columns)),
        tuple(env_diff(runs, clusters)),
        alpha,
        dict(clusters or {}),
        client_spread([(c.key, c.runs) for c in columns], keys),
        matching.by_params,
    )


def baseline_note(cmp: Comparison) -> str:
    """The footnote saying what a percent difference is relative to. The baseline's name is a
    free-form label (``baseline``, ``#3``, ``tuned again``), so it is quoted as a name and never
    put into the sentence as a word of it."""
    return (
        "Percent difference = (run − baseline) / baseline; the baseline is the first column, "
        f"“{cmp.baseline.name}”."
    )


def regressions(cmp: Comparison, threshold_pct: float) -> list[tuple[Row, Column]]:
    """Cells worse than the baseline by more than ``threshold_pct`` and not shown to be noise.

    A difference counts when the test calls it significant, or when it cannot be tested
    (single samples): a gate that cannot tell must not pass silently; the CLI says which.
    """
    out = []
    for row in cmp.rows:
        for col in cmp.columns[1:]:
            d = row.diffs[col.key]
            if d.pct is None or d.significant is False:
                continue
            worse = -d.pct if row.metric.higher_is_better else d.pct
            if worse > threshold_pct:
                out.append((row, col))
    return out


def to_json(cmp: Comparison) -> dict[str, Any]:
    """The stable JSON shape of ``cephbench compare --format json``: ``cephbench.comparison/1``."""
    base = cmp.baseline
    runs = [r.id for c in cmp.columns for r in c.runs]
    rows = []
    for row in cmp.rows:
        s = {k: c.summary for k, c in row.cells.items()}
        rows.append(
            {
                "workload": row.workload,
                "op": row.op,
                "metric": row.metric.key,
                "higher_is_better": row.metric.higher_is_better,
                "values": {k: v.mean if v else None for k, v in s.items()},
                "n": {k: v.n if v else 0 for k, v in s.items()},
                "ci95": {k: list(v.ci95) if v and v.ci95 else None for k, v in s.items()},
                "flags": {k: list(c.flags) for k, c in row.cells.items()},
                "pct_diff": {k: _round(d.pct) for k, d in row.diffs.items()},
                "pct_diff_ci95": {
                    k: [_round(x) for x in d.ci95] if d.ci95 else None for k, d in row.diffs.items()
                },
                "p_adjusted": {k: d.p_adjusted for k, d in row.diffs.items()},
                "significant": {k: d.significant for k, d in row.diffs.items()},
            }
        )
    out = {
        "schema": COMPARISON,
        "baseline": int(base.key),
        "runs": runs,
        "columns": [
            {"key": c.key, "name": c.name, "runs": [r.id for r in c.runs]} for c in cmp.columns
        ],
        "test": "Welch's t-test, Benjamini-Hochberg across cells",
        "alpha": cmp.alpha,
        "rows": rows,
        "missing": [{"workload": w, "op": op, "in": list(have)} for w, op, have in cmp.missing],
        "failures": [
            {"column": n, "run_workload": f.workload, "repeat": f.repeat, "error": f.error}
            for n, f in cmp.failures
        ],
        "warnings": list(cmp.warnings),
        "env_diff": [d.to_json() for d in cmp.env],
    }
    if cmp.clients:  # runs from many clients only: other comparisons' JSON is as it was
        out["client_spread"] = [s.to_json() for s in cmp.clients]
    return out


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 2)


def _results(col: Column, workload: str, op: str, matching: Matching) -> list[Result]:
    """The column's results on the row of ``workload`` and ``op`` (whatever their own name)."""
    mapped = matching.of[col.key]
    return [
        r
        for run in col.runs
        for r in run.results
        if mapped.get((r.workload, r.op)) == (workload, op)
    ]


def _cell(col: Column, workload: str, op: str, metric: Metric, matching: Matching) -> Cell:
    results = _results(col, workload, op, matching)
    samples = tuple(v for v in (metric.value(r) for r in results) if v is not None)
    flags = tuple(dict.fromkeys(f for r in results for f in r.flags))
    return Cell(samples, stats.summarize(samples) if samples else None, flags)


def _row(
    workload: str, op: str, metric: Metric, columns: Sequence[Column], matching: Matching
) -> Row:
    cells = {c.key: _cell(c, workload, op, metric, matching) for c in columns}
    base = cells[columns[0].key]
    diffs = {}
    for col in columns[1:]:
        new = cells[col.key]
        if base.summary is None or new.summary is None:
            diffs[col.key] = Diff(None, None)
            continue
        pct = stats.pct_diff(base.summary.mean, new.summary.mean)
        test = stats.welch(base.samples, new.samples)
        ci = None
        if test is not None and pct is not None:
            ci = (
                test.diff_ci95[0] / abs(base.summary.mean) * 100,
                test.diff_ci95[1] / abs(base.summary.mean) * 100,
            )
        diffs[col.key] = Diff(pct, ci, test.p if test else None)
    return Row(workload, op, metric, cells, diffs)


def _correct(rows: list[Row], alpha: float) -> list[Row]:
    """Benjamini–Hochberg across every tested cell of the comparison."""
    tested = [
        (i, k, d.p) for i, row in enumerate(rows) for k, d in row.diffs.items() if d.p is not None
    ]
    adjusted = stats.benjamini_hochberg([p for _, _, p in tested])
    out = [Row(r.workload, r.op, r.metric, r.cells, dict(r.diffs)) for r in rows]
    for (i, k, _), p_adj in zip(tested, adjusted, strict=True):
        d = out[i].diffs[k]
        out[i].diffs[k] = Diff(d.pct, d.ci95, d.p, p_adj, p_adj <= alpha)
    return out


def _unstable(rows: Sequence[Row], columns: Sequence[Column]) -> list[str]:
    names = {c.key: c.name for c in columns}
    out = []
    for row in rows:
        for key, cell in row.cells.items():
            if cell.summary is None:
                continue
            cv = cell.summary.cv
            if cv is not None and cv > stats.UNSTABLE_CV:
                out.append(
                    f"{names[key]}: {_label(row.workload, row.op)} {row.metric.title} varies "
                    f"{cv:.1%} across its {cell.summary.n} samples (coefficient of variation "
                    f"above {stats.UNSTABLE_CV:.0%}): unstable"
                )
    return out


def _label(workload: str, op: str) -> str:
    return f"{workload} ({op})"
