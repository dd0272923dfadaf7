"""`cephbench report`: self-contained HTML and Markdown with charts, from fixed stored runs
(the HTML rendered in a real headless Chromium: tests/fio/test_report.py)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from cephbench.analysis.compare import compare
from cephbench.report.sections.summary import summary
from cephbench.store import Store
from tests.helpers import store_run

EVIL = "<script>document.body.setAttribute('data-pwned','1')</script> & \"quoted\""
BASE = [[1000, 2000, 30000, 12000], [1010, 1990, 30500, 12100], [990, 2010, 29500, 11900]]
TUNED = [[1500, 2000, 30100, 12000], [1510, 2020, 29600, 12050], [1490, 1980, 30400, 11950]]


@pytest.fixture
def two_runs(db: Path) -> tuple[int, int]:
    a = store_run(db, EVIL, BASE)
    b = store_run(
        db,
        "tuned",
        TUNED,
        flags={"rand_rd": ("no_latency",)},
        env={
            "host": "lab1",
            "kernel": "6.5.0",
            "tools": {"fio": "fio-3.33"},
            "cluster": {
                "osds": [{"id": 0, "model": "QEMU HARDDISK"}],
                "pool": {"size": 3, "pg_num": 32},
            },
        },
    )
    return a, b


def test_html_is_self_contained_and_escapes_store_text(invoke, two_runs, tmp_path):
    out = tmp_path / "report.html"
    r = invoke("report", *map(str, two_runs), "-o", str(out))
    assert r.stdout.strip() == str(out)
    html = out.read_text()
    assert "<script" not in html  # the label is text, and the report itself needs no script
    assert (
        "&lt;script&gt;document.body.setAttribute(&#39;data-pwned&#39;,&#39;1&#39;)&lt;/script&gt;"
        in html
    )
    assert not re.search(r'(src|href)="(https?:)?//', html), "nothing may be fetched at view time"
    assert (
        html.count("<svg") == 1 + 4 * 2
    )  # the percent-difference chart, bars and percentiles per workload
    for text in (
        "4 significantly better",
        "Percent Difference",
        "+50.00% [+47.73, +52.27]",
        "no latency recorded",
        "QEMU HARDDISK",
        "pool.pg_num",
        "Environment differences",
    ):
        assert text in html, text


def test_markdown_report_writes_png_charts_beside_it(invoke, two_runs, tmp_path):
    out = tmp_path / "report.md"
    invoke("report", *map(str, two_runs), "-o", str(out))
    md = out.read_text()
    links = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md)
    assert len(links) == 9 and all(link.startswith("report_files/") for link in links)
    for link in links:
        assert (tmp_path / link).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "| seq_wr | 1000 ± 25 | 1500 ± 25 | +50.00% [+47.73, +52.27] |" in md
    assert "<script" not in md and "&lt;script&gt;" in md


def test_one_run_report_for_the_demo(invoke, db, tmp_path):
    run = store_run(db, "demo", [[1000, 2000, 30000, 12000]])
    invoke("report", str(run), "-o", str(tmp_path / "demo.md"))
    md = (tmp_path / "demo.md").read_text()
    assert "nothing to compare" in md and "| seq_wr | 1000 |" in md


def test_summary_counts_verdicts(db, two_runs):
    with Store(db) as s:
        cmp = compare([s.get_run(i) for i in two_runs])
    (line,) = summary(cmp)
    assert line.endswith(
        "4 significantly better, 0 significantly worse, 10 the same (95 % CI within ±5 %), "
        "2 without a figure on one side of 16 cells."
    )


def test_bad_output_name_is_a_usage_error(invoke, two_runs, tmp_path):
    r = invoke("report", "1", "-o", str(tmp_path / "report.pdf"), expect=2)
    assert "name the output .html" in r.stderr
    r = invoke("report", "1", "-o", str(tmp_path / "missing" / "r.html"), expect=2)
    assert "does not exist" in r.stderr


@pytest.mark.parametrize("name", ["randread_qd8", "sync_fdatasync", "numjobs4"])
def test_percentile_chart_labels_the_decades_only(invoke, db, name):
    """Real fio percentiles: within one decade (randread_qd8: 0.16-2.8 ms) and across two."""
    from cephbench.report import charts
    from tests.helpers import FIO_DATA

    invoke("import", str(FIO_DATA / f"{name}.json"), "--label", name)
    with Store(db) as s:
        cmp = compare([s.get_run(1)])
    assert cmp.workloads()
    for workload, op in cmp.workloads():
        with charts.style():
            fig = charts.percentile_chart(cmp, workload, op)
            fig.canvas.draw()
        ax = fig.axes[0]
        lo, hi = ax.get_ylim()
        shown = [
            (v, t.get_text())
            for v, t in zip(ax.get_yticks(), ax.get_yticklabels(), strict=True)
            if lo <= v <= hi
        ]
        assert len(shown) >= 2, (workload, lo, hi)
        assert all(float(np.log10(v)).is_integer() and text == f"{v:g}" for v, text in shown), shown
        minor = [
            (v, t.get_text())
            for v, t in zip(ax.get_yticks(minor=True), ax.get_yticklabels(minor=True), strict=True)
            if lo <= v <= hi
        ]
        assert minor and all(text == "" for _, text in minor), minor
        ys = np.concatenate([line.get_ydata() for line in ax.get_lines()])
        assert lo <= ys.min() and ys.max() <= hi
        charts.plt.close(fig)
