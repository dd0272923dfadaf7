"""Issue 25, the report's details a new user trips on: one run's report shows the run's own
table and charts that fit one run (17), run labels that do not overlap (18), parameters as a
table (19), sweeps of runs 10x apart readable (20), network figures in bits per second (8),
footnote markers only where some rows differ (14)."""

from __future__ import annotations

import re

import matplotlib.pyplot as plt
import pytest

from cephbench.analysis.compare import compare, group_runs
from cephbench.model import Result
from cephbench.report.charts import metric_bars
from cephbench.report.heatmap import heatmap_chart
from cephbench.report.matrix import scaling_chart
from cephbench.report.network import network_heatmap
from cephbench.report.sweep_points import pivot
from cephbench.store import Store
from cephbench.tools.iperf3.matrix import matrix
from tests.helpers import store_run
from tests.unit.test_report_matrix import K4, QDS, READ_4K, matrix_run

CONNECTION = {
    "conf": "/etc/ceph/lab.conf",
    "id": "bench",
    "keyring": "/etc/ceph/secret.keyring",
    "cluster": "ceph",
    "timeout": 30,
    "lab_dir": None,
}


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_one_run_report_shows_its_own_table_and_no_comparison_chart(db, invoke, tmp_path):
    run = store_run(db, "demo", [[1000, 2000, 30000, 12000]])
    invoke("report", str(run), "-o", str(tmp_path / "r.html"))
    html = (tmp_path / "r.html").read_text()
    assert f"Run {run} — demo — quick on file:/mnt/bench (complete)" in html  # show's table
    assert "whiskers 95 % CI" not in html and "one repeat per run" in html
    assert html.count("<svg") == 1 + 4  # every workload's bars in one chart; percentiles each
    assert "Percent Difference" not in html
    assert "Environment differences" not in html and "compared runs" not in html  # one run


def test_bar_labels_of_long_run_names_are_wrapped_not_overlapping(db):
    a = store_run(db, "samsung 870 evo raw device", [[1000, 2000, 30000, 12000]])
    b = store_run(db, "Attempt 2 noop scheduler", [[1100, 2100, 31000, 12500]])
    with Store(db) as s:
        cmp = compare([s.get_run(a), s.get_run(b)])
    fig = metric_bars(cmp, "seq_wr", "write")
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        first, second = (t.get_window_extent(renderer) for t in ax.get_xticklabels())
        assert first.x1 < second.x0, [t.get_text() for t in ax.get_xticklabels()]
    assert "whiskers" not in fig.get_suptitle()  # one repeat: no whiskers promised


def test_parameters_are_a_short_table_with_the_cluster_as_conf_and_id(db, invoke, tmp_path):
    params = {
        "tool": "fio",
        "connection": CONNECTION,
        "sweep": {"iodepth": [1, 16], "bs": ["4k"]},
        "overrides": {"runtime": "10"},
    }
    run = store_run(db, "ceph", [[1000, 2000, 30000, 12000]], params=params)
    for name in ("r.html", "r.md"):
        invoke("report", str(run), "-o", str(tmp_path / name))
        text = (tmp_path / name).read_text()
        assert '"connection"' not in text and "secret.keyring" not in text, name
        for cell in ("conf /etc/ceph/lab.conf, id bench", "iodepth 1, 16", "runtime=10"):
            assert cell in text, (name, cell)
    md = (tmp_path / "r.md").read_text()
    assert "| Cluster | conf /etc/ceph/lab.conf, id bench |" in md
    assert "| Repeats | 1 |" in md


def test_runs_10x_apart_get_a_log_axis_a_scale_each_and_a_relative_panel():
    sweep = pivot(group_runs([matrix_run("RAW"), matrix_run("Ceph", run_id=2, factor=0.08)]))
    fig = scaling_chart(sweep, READ_4K, "iodepth")
    assert fig.axes[0].get_yscale() == "log" and "log scale" in fig.axes[0].get_ylabel()
    relative = [ln for ln in fig.axes[3].get_lines() if ln.get_label() == "Ceph"]
    assert relative[0].get_ydata() == pytest.approx([8] * len(QDS))
    assert "8 %" in {t.get_text() for t in fig.axes[3].texts}
    heat = heatmap_chart(sweep, ("randread", None, "read"))
    bars = [ax.get_ylabel() for ax in heat.axes if ax.get_ylabel().startswith("IOPS (IO/s)")]
    assert len(bars) == 2 * 2  # a colour bar per run and block size
    assert any(ax.get_ylabel() == "% of RAW IOPS" for ax in heat.axes)


def test_runs_close_together_keep_one_linear_axis_and_one_scale():
    sweep = pivot(group_runs([matrix_run("RAW"), matrix_run("Ceph", run_id=2, factor=0.5)]))
    assert scaling_chart(sweep, READ_4K, "iodepth").axes[0].get_yscale() == "linear"
    heat = heatmap_chart(sweep, ("randread", None, "read"))
    assert sum(ax.get_ylabel().startswith("IOPS (IO/s)") for ax in heat.axes) == 2
    assert K4 in {g.bs for g in sweep.groups}


def test_network_heatmap_below_a_gigabit_is_in_mbit():
    cells = [
        Result(f"{a}->{b}", 0, "write", metrics=(("bits_per_second", 9.4e8),))
        for a in "xy"
        for b in "xy"
        if a != b
    ]
    fig = network_heatmap(matrix(cells), "t")
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "940.00" in texts
    assert any(ax.get_ylabel() == "Mbit/s received" for ax in fig.axes)


def test_compare_md_a_flag_every_row_has_is_one_note(db, invoke):
    everywhere = {w: ("not_steady",) for w in ("seq_wr", "seq_rd", "rand_rd", "rand_wr")}
    a = store_run(db, "a", [[1000, 2000, 30000, 12000]], flags=everywhere)
    b = store_run(db, "b", [[1100, 2100, 31000, 12500]], flags=everywhere)
    out = invoke("compare", str(a), str(b), "--format", "md").stdout
    assert not re.search(r"\| \w+ \[1\] \|", out), out
    assert "Every row: " in out and "[1] " not in out
