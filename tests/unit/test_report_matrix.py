"""Sweep (matrix) and time-series charts in reports: the pivot, each chart's artists against
the data drawn, stall detection, and a stored matrix run reported as HTML (rendered in
headless Chromium: tests/fio/test_report_matrix.py) and Markdown."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.colors import to_hex, to_rgba

from cephbench.analysis.compare import group_runs
from cephbench.model import Result, Run, Series, WorkloadOutcome
from cephbench.report.charts import PALETTE
from cephbench.report.heatmap import heatmap_chart
from cephbench.report.matrix import scaling_chart
from cephbench.report.response import response_chart
from cephbench.report.sections.sweep import sweep_section
from cephbench.report.stalls import select, stalls, timelines
from cephbench.report.sweep_points import Group, is_sweep, pivot
from cephbench.report.timeline import STALL_GID, timeline_chart
from cephbench.store import Store
from tests.helpers import invoke, store_run
from tests.helpers import result as suite_result

K4, K128 = 4096, 131072
QDS, NJS, BSS, RWS = (1, 4, 16, 64), (1, 2, 4), (K4, K128), ("randread", "randwrite")
NOT_STEADY = ("randread", K4, 64, 4)  # one repeat of this point never reached steady state
CI_CAP = ("randwrite", K128, 1, 1)  # every repeat of this point stopped at the cap
READ_4K = Group("randread", K4, None, "read")


def iops(rw: str, bs: int, qd: int, nj: int, factor: float = 1.0) -> float:
    """The mean of a point's three repeats (they are 0.98, 1 and 1.02 times it)."""
    return (
        (50_000 if bs == K4 else 8_000)
        * (1 if rw == "randread" else 0.5)
        * qd**0.5
        * nj**0.25
        * factor
    )


def matrix_results(
    factor: float = 1.0, skip: Iterable[tuple] = ()
) -> list[tuple[str, int, Result]]:
    """(workload, repeat, result) of a 2 rw × 2 bs × 4 iodepth × 3 numjobs matrix, 3 repeats."""
    out = []
    for rw in RWS:
        for bs in BSS:
            for nj in NJS:
                for qd in QDS:
                    if (rw, bs, qd, nj) in skip:
                        continue
                    name = f"{rw}-{bs // 1024}k-qd{qd}-nj{nj}"
                    for rep in range(3):
                        v = iops(rw, bs, qd, nj, factor) * (0.98 + 0.02 * rep)
                        flags = (
                            ("not_steady",) if (rw, bs, qd, nj) == NOT_STEADY and rep == 2 else ()
                        ) + (("ci_not_reached",) if (rw, bs, qd, nj) == CI_CAP else ())
                        out.append(
                            (
                                name,
                                rep,
                                Result(
                                    name,
                                    rep,
                                    "read" if rw == "randread" else "write",
                                    rw=rw,
                                    bs=bs,
                                    iodepth=qd,
                                    numjobs=nj,
                                    runtime_s=1.0,
                                    iops=v,
                                    bw_bytes_per_s=v * bs,
                                    lat_mean_us=qd * nj / v * 1e6,
                                    lat_p99_us=qd * nj / v * 3e6,
                                    lat_kind="lat",
                                    flags=flags,
                                ),
                            )
                        )
    return out


def matrix_run(label: str, run_id: int = 1, **kw) -> Run:
    return Run(
        run_id,
        label,
        "matrix",
        "file:/x",
        "complete",
        "2024-05-01T10:00:00+00:00",
        results=tuple(r for _, _, r in matrix_results(**kw)),
    )


def labelled_lines(ax) -> list:
    return [ln for ln in ax.get_lines() if not ln.get_label().startswith("_")]


def hollow_points(ax) -> list[tuple[float, float]]:
    return [
        (float(x), float(y))
        for ln in ax.get_lines()
        if ln.get_gid() == "unsettled" and to_rgba(ln.get_markerfacecolor()) == to_rgba("white")
        for x, y in zip(*ln.get_data(), strict=True)
    ]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# -- the pivot --------------------------------------------------------------------------------
def test_pivot_groups_points_and_summarises_repeats():
    sweep = pivot(group_runs([matrix_run("ssd")]))
    assert list(sweep.groups) == [
        READ_4K,
        Group("randread", K128, None, "read"),
        Group("randwrite", K4, None, "write"),
        Group("randwrite", K128, None, "write"),
    ]
    (points,) = sweep.groups[READ_4K]
    assert len(points) == 12 and sweep.values(READ_4K, "iodepth") == list(QDS)
    p = points[(16, 2)]
    assert p.figures["iops"].n == 3 and p.figures["iops"].mean == pytest.approx(
        iops("randread", K4, 16, 2)
    )
    assert p.figures["iops"].ci95 is not None and p.flags == ()
    assert points[(64, 4)].flags == ("not_steady",)  # one flagged repeat flags the point
    assert READ_4K.title == "randread, bs 4k"
    assert Group("randrw", 1 << 20, 70, "write").title == "randrw 70/30 (write), bs 1M"


def test_a_normal_suite_run_is_not_a_sweep():
    run = Run(
        2,
        "suite",
        "quick",
        "file:/x",
        "complete",
        "2024",
        results=tuple(
            suite_result(w, op, bs, 0, 1000.0, 250.0)
            for w, op, bs in (
                ("seq_wr", "write", K128),
                ("seq_rd", "read", K128),
                ("rand_rd", "read", K4),
            )
        ),
    )
    assert not is_sweep(run) and pivot(group_runs([run])).groups == {}
    assert sweep_section(pivot(group_runs([run])), lambda fig, name: name) is None
    assert is_sweep(matrix_run("ssd"))


def test_a_suite_report_has_no_sweep_or_time_series_section(db, invoke, tmp_path):
    run = store_run(db, "suite", [[1000, 2000, 30000, 12000]])
    invoke("report", str(run), "-o", str(tmp_path / "r.html"))
    html = (tmp_path / "r.html").read_text()
    assert (
        'id="sweep"' not in html and 'id="timeseries"' not in html and "sweep workloads" not in html
    )
    assert html.count("<svg") == 1 + 4  # one run: its bars in one chart, percentiles per workload


def test_two_workloads_at_one_point_are_not_taken_for_repeats():
    a = Result("a", 0, "read", rw="randread", bs=K4, iodepth=1, numjobs=1, iops=1.0)
    b = Result("b", 0, "read", rw="randread", bs=K4, iodepth=1, numjobs=1, iops=2.0)
    c = Result("c", 0, "read", rw="randread", bs=K4, iodepth=8, numjobs=1, iops=3.0)
    sweep = pivot(
        group_runs([Run(3, "x", "own", "file:/x", "complete", "2024", results=(a, b, c))])
    )
    assert (
        sweep.groups == {} and "workloads a, b of x all ran iodepth 1, numjobs 1" in sweep.notes[0]
    )
    section = sweep_section(sweep, lambda fig, name: name if fig else None)
    assert section["blocks"] == [] and section["notes"] == list(sweep.notes)  # said, not dropped


# -- sweep charts -----------------------------------------------------------------------------
def test_one_run_scaling_chart_has_a_line_per_numjobs_on_a_log2_axis():
    sweep = pivot(group_runs([matrix_run("ssd")]))
    fig = scaling_chart(sweep, READ_4K, "iodepth")
    ax_iops, ax_mean, ax_p99 = fig.axes
    assert [ln.get_label() for ln in labelled_lines(ax_iops)] == [
        "numjobs 1",
        "numjobs 2",
        "numjobs 4",
    ]
    for ln, nj in zip(labelled_lines(ax_iops), NJS, strict=True):
        assert list(ln.get_xdata()) == list(QDS)
        assert ln.get_ydata() == pytest.approx([iops("randread", K4, qd, nj) for qd in QDS])
    assert labelled_lines(ax_mean)[0].get_ydata()[0] == pytest.approx(
        np.mean([1 / (iops("randread", K4, 1, 1) * f) * 1e3 for f in (0.98, 1.0, 1.02)])
    )  # ms
    assert ax_iops.get_xscale() == "log" and [t.get_text() for t in ax_iops.get_xticklabels()] == [
        "1",
        "4",
        "16",
        "64",
    ]
    assert (ax_iops.get_ylabel(), ax_mean.get_ylabel(), ax_p99.get_ylabel()) == (
        "IOPS (IO/s)",
        "mean latency (ms, log scale)",
        "p99 latency (ms, log scale)",
    )
    assert "iodepth (I/Os in flight per job" in ax_p99.get_xlabel()
    assert all(ax.collections for ax in fig.axes)  # CI whiskers: the points have repeats
    by_nj = scaling_chart(sweep, READ_4K, "numjobs")
    assert (
        len(labelled_lines(by_nj.axes[0])) == len(QDS)
        and "numjobs (jobs" in by_nj.axes[0].get_xlabel()
    )


def test_flagged_points_are_hollow_and_explained():
    sweep = pivot(group_runs([matrix_run("ssd")]))
    fig = scaling_chart(sweep, READ_4K, "iodepth")
    ms = 256 / iops("randread", K4, 64, 4) * 1e3
    expected = [
        iops("randread", K4, 64, 4),
        ms,
        ms * 3,
    ]  # the point at qd64 nj4: IOPS, mean, p99 (ms)
    for ax, y in zip(fig.axes, expected, strict=True):
        ((x, drawn),) = hollow_points(ax)
        assert x == 64 and drawn == pytest.approx(y, rel=1e-3)
    assert "hollow: never reached steady state" in [
        t.get_text() for t in fig.legends[0].get_texts()
    ]
    capped = scaling_chart(sweep, Group("randwrite", K128, None, "write"), "iodepth")
    assert {x for ax in capped.axes for x, _ in hollow_points(ax)} == {1.0}
    assert "hollow: stopped before the CI target" in [
        t.get_text() for t in capped.legends[0].get_texts()
    ]
    unflagged = scaling_chart(sweep, Group("randread", K128, None, "read"), "iodepth")
    assert (
        not any(hollow_points(ax) for ax in unflagged.axes)
        and len(unflagged.legends[0].get_texts()) == 3
    )


def test_comparison_overlays_runs_in_their_colours_a_panel_per_numjobs():
    sweep = pivot(group_runs([matrix_run("raw SSD"), matrix_run("Ceph", run_id=2, factor=0.5)]))
    fig = scaling_chart(sweep, READ_4K, "iodepth")
    assert len(fig.axes) == 3 * len(NJS)  # IOPS, % of the baseline, latency × numjobs 1, 2, 4
    assert [ax.get_title() for ax in fig.axes[:3]] == ["numjobs 1", "numjobs 2", "numjobs 4"]
    assert [
        ln.get_linestyle() for ln in fig.axes[6].get_lines() if ln.get_gid() != "unsettled"
    ] == ["-", "--"] * 2
    for ax in fig.axes[:3] + fig.axes[6:]:
        lines = labelled_lines(ax)
        assert [ln.get_label() for ln in lines] == ["raw SSD", "Ceph"]
        assert [to_hex(ln.get_color()) for ln in lines] == [c.lower() for c in PALETTE[:2]]
    base, ceph = labelled_lines(fig.axes[1])  # IOPS at numjobs 2
    assert ceph.get_ydata() == pytest.approx(base.get_ydata() * 0.5)
    (relative,) = labelled_lines(fig.axes[4])  # Ceph as % of raw SSD at numjobs 2
    assert relative.get_label() == "Ceph" and relative.get_ydata() == pytest.approx([50] * len(QDS))
    resp = response_chart(sweep, READ_4K)
    assert len([ax for ax in resp.axes if ax.get_visible()]) == len(NJS)
    assert [ln.get_label() for ln in labelled_lines(resp.axes[0])] == ["raw SSD", "Ceph"]


def test_response_curve_joins_rising_iodepth_with_p99_dashed():
    fig = response_chart(pivot(group_runs([matrix_run("ssd")])), READ_4K)
    (ax,) = fig.axes
    lines = labelled_lines(ax)
    assert [ln.get_label() for ln in lines] == ["numjobs 1", "numjobs 2", "numjobs 4"]
    nj1 = lines[0]
    assert nj1.get_xdata() == pytest.approx([iops("randread", K4, qd, 1) for qd in QDS])
    assert list(nj1.get_ydata()) == sorted(nj1.get_ydata())  # latency rises with iodepth
    dashed = [ln for ln in ax.get_lines() if ln.get_linestyle() == "--"]
    assert len(dashed) == 3 and dashed[0].get_ydata() == pytest.approx(nj1.get_ydata() * 3)
    assert (ax.get_xlabel(), ax.get_ylabel()) == (
        "IOPS (IO/s)",
        "latency (ms)",
    )  # 20 to 450 us: linear
    assert ax.get_xlim()[0] == 0 and ax.get_ylim()[0] == 0
    assert {"qd1", "qd64"} <= {t.get_text() for t in ax.texts}


def test_heatmap_cells_are_the_data_missing_points_grey_flagged_starred():
    sweep = pivot(group_runs([matrix_run("ssd", skip=[("randread", K128, 16, 2)])]))
    fig = heatmap_chart(sweep, ("randread", None, "read"))
    panels = [ax for ax in fig.axes if ax.images]
    assert [ax.get_title() for ax in panels] == ["bs 4k", "bs 128k"]
    for ax, bs in zip(panels, BSS, strict=True):
        cells = ax.images[0].get_array()
        assert cells.shape == (len(NJS), len(QDS))
        for (i, j), v in np.ndenumerate(cells.filled(np.nan)):
            if bs == K128 and (QDS[j], NJS[i]) == (16, 2):
                assert np.ma.is_masked(cells[i, j])
            else:
                assert v == pytest.approx(iops("randread", bs, QDS[j], NJS[i]))
        assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "4", "16", "64"]
        assert (
            ax.get_xlabel() == "iodepth (I/Os in flight per job)"
            and ax.get_ylabel() == "numjobs (jobs)"
        )
    texts = [t.get_text() for t in panels[1].texts]
    assert texts.count("n/a") == 1
    assert [t.get_text() for t in panels[0].texts if t.get_text().endswith("*")] == [
        "566k*"
    ]  # qd64 nj4
    assert "* never reached steady state" in fig.get_suptitle()
    assert (
        sum(ax.get_ylabel().startswith("IOPS (IO/s)") for ax in fig.axes) == 2
    )  # a colour bar per bs


def test_a_294_point_matrix_makes_20_figures():
    big = [
        Result(
            f"p{rw}{bs}{qd}{nj}",
            0,
            "read",
            rw=rw,
            bs=bs,
            iodepth=qd,
            numjobs=nj,
            iops=qd * nj * 100.0,
            lat_mean_us=1000.0,
        )
        for rw in RWS
        for bs in (K4, K128, 1 << 20)
        for qd in (1, 2, 4, 8, 16, 32, 64)
        for nj in (1, 2, 4, 8, 16, 32, 64)
    ]
    assert len(big) == 294
    drawn = []
    section = sweep_section(
        pivot(group_runs([Run(1, "m", "matrix", "f", "complete", "t", results=tuple(big))])),
        lambda fig, name: drawn.append(name) or plt.close(fig) or name if fig else None,
    )
    assert len(drawn) == 20 and len(section["blocks"]) == 2 + 6


# -- time series ------------------------------------------------------------------------------
def steady_then_stall(
    repeat: int = 0, workload: str = "w", stall: bool = True, op: str = "write"
) -> list[Series]:
    t = np.arange(1.0, 31.0)
    rate = np.full(30, 1000.0) + np.arange(30) % 3
    lat = np.full(30, 2000.0)
    if stall:
        rate[10:14] = 0  # seconds 10..14: nothing completed
        lat[10:14] = 0
        lat[14] = 4_000_000  # the first I/O after the stall took 4 s
    return [
        Series(repeat, workload, op, "iops", t, rate),
        Series(repeat, workload, op, "lat_mean_us", t, lat),
        Series(repeat, workload, op, "lat_max_us", t, lat * 5),
    ]


def test_stalls_are_zero_intervals_and_holes_in_the_log():
    assert stalls([1, 2, 3, 4, 5], [5, 0, 0, 5, 5]) == [(1.0, 3.0)]
    assert stalls([1, 2, 3, 9, 10], [5, 5, 5, 5, 5]) == [
        (3.0, 8.0)
    ]  # nothing logged from 3 s to 8 s
    assert stalls([1, 2, 4, 5], [5, 5, 5, 5]) == [(2.0, 3.0)]  # one interval missing
    assert stalls([1, 2, 3], [5, 5, 5]) == []


def test_a_hole_in_the_log_breaks_the_line_and_is_shaded():
    t = np.array([0.5, 1.0, 1.5, 3.0, 3.5])  # nothing logged from 1.5 s to 2.5 s
    (tl,) = timelines([("r", 0, [Series(0, "w", "read", "iops", t, np.full(5, 100.0))])])
    fig = timeline_chart(tl)
    (line,) = fig.axes[0].get_lines()
    assert np.isnan(line.get_ydata()).sum() == 1 and line.get_xdata()[3] == 2.5
    (span,) = [p for p in fig.axes[0].patches if p.get_gid() == STALL_GID]
    assert (span.get_x(), span.get_width()) == (1.5, 1.0)


def test_timeline_shares_time_and_shades_the_stall_on_both_panels():
    (tl,) = timelines([("ssd (#1)", 0, steady_then_stall() + steady_then_stall(1, stall=False))])
    fig = timeline_chart(tl)
    rate_ax, lat_ax = fig.axes
    assert rate_ax.get_shared_x_axes().joined(rate_ax, lat_ax)
    assert (rate_ax.get_ylabel(), lat_ax.get_xlabel()) == (
        "IOPS (IO/s)",
        "time since the workload started (s)",
    )
    assert lat_ax.get_yscale() == "log"  # a 4 s spike over 2 ms: both readable
    for ax in (rate_ax, lat_ax):
        (span,) = [p for p in ax.patches if p.get_gid() == STALL_GID]
        assert span.get_x() == pytest.approx(10.0) and span.get_width() == pytest.approx(4.0)
    assert len(rate_ax.get_lines()) == 2 and len(lat_ax.get_lines()) == 4  # 2 repeats; mean and max
    assert min(rate_ax.get_lines()[0].get_ydata()) == 0
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend == [
        "repeat 1",
        "repeat 2",
        "mean latency",
        "max latency",
        "stall: nothing completed",
    ]
    assert "stalled 4 s" in fig.get_suptitle()


def test_rados_bench_bandwidth_stands_in_for_iops():
    t = np.arange(1.0, 11.0)
    (tl,) = timelines(
        [
            (
                "r",
                0,
                [
                    Series(0, "write", "", "bw_bytes_per_s", t, np.full(10, 2.0**20 * 100)),
                    Series(0, "write", "", "lat_mean_us", t, np.full(10, 16000.0)),
                ],
            )
        ]
    )
    fig = timeline_chart(tl)
    assert (
        fig.axes[0].get_ylabel() == "bandwidth (MiB/s)"
        and fig.axes[0].get_lines()[0].get_ydata()[-1] == 100
    )
    assert tl.title == "write" and fig.axes[1].get_ylabel() == "latency (ms)"


def test_many_workloads_chart_the_stalled_and_the_variable():
    series = [
        s for i in range(20) for s in steady_then_stall(workload=f"w{i:02d}", stall=i in (3, 17))
    ]
    series += [
        Series(0, "w05", "write", "iops", np.arange(1.0, 31.0), np.tile([500.0, 1500.0], 15))
    ]
    chosen, note = select(timelines([("ssd", 0, series)]), limit=4)
    # both stalls, then the most variable (w05's second trace swings 500..1500), in report order
    assert [tl.workload for tl in chosen] == ["w00", "w03", "w05", "w17"]
    assert note.startswith("20 workloads have time series: charted are the 4")
    assert "The other 16 are left out" in note and "none stalled" in note


# -- the report of a stored matrix ------------------------------------------------------------
def store_matrix(db: Path, label: str, factor: float, series: bool) -> int:
    with Store(db) as s:
        run_id = s.start_run(
            label=label,
            suite="matrix",
            target="file:/x",
            environment={"host": "lab1"},
            params={"repeat": 3},
            started_at="2024-05-01T10:00:00+00:00",
        )
        rows = matrix_results(factor)
        for rep in range(3):
            s.record_batch(
                run_id, rep, None, [WorkloadOutcome(w, (r,)) for w, rp, r in rows if rp == rep]
            )
        if series:
            names = list(dict.fromkeys(w for w, _, _ in rows))
            s.add_series(
                run_id,
                [
                    x
                    for i, w in enumerate(names)
                    for x in steady_then_stall(
                        workload=w, stall=i == 5, op="read" if w.startswith("randread") else "write"
                    )
                ],
            )
        s.finish_run(run_id, "complete")
    return run_id


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("matrix-report")
    db = out / "results.db"
    runs = [str(store_matrix(db, "raw SSD", 1.0, True)), str(store_matrix(db, "Ceph", 0.5, False))]
    for name, ids in (("report.html", runs), ("report.md", runs[:1])):  # a comparison; one run
        invoke("report", *ids, "-o", str(out / name), db=db)
    return out


def test_report_of_a_stored_matrix_has_the_sweep_and_time_series(reports):
    html = (reports / "report.html").read_text()
    for text in (
        '<h2 id="sweep">',
        '<h2 id="timeseries">',
        "randread, bs 128k",
        "The 48 sweep workloads are charted in the",
        "48 workloads have time series: charted are the 8",
        "48 sweep points in 4 groups",
    ):
        assert text in html, text
    # sweep: 2 heatmaps + 4 groups × 3; time series: 8; nothing one by one, no diff chart of 384 cells
    assert html.count("<svg") == 2 + 4 * 3 + 8
    assert (
        "randread-4k-qd4-nj2 (read) — raw SSD: over time, stalled 4 s in all" in html
    )  # the 6th workload


def test_markdown_report_of_a_matrix_links_pngs(reports):
    md = (reports / "report.md").read_text()
    links = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md)
    assert len(links) == 2 + 4 * 3 + 8 and "## Sweep" in md and "## Time series" in md
    assert all((reports / link).read_bytes()[:4] == b"\x89PNG" for link in links)
