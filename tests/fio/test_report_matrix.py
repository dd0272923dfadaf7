"""A stored matrix run's HTML report (tests/unit/test_report_matrix.py) rendered in a real
headless Chromium."""

from __future__ import annotations

from tests.helpers import chromium, console_messages, needs_chromium
from tests.unit import test_report_matrix

# the pure tests' fixtures
reports, _close_figures = test_report_matrix.reports, test_report_matrix._close_figures


@needs_chromium
def test_matrix_report_renders_in_chromium(reports, tmp_path):
    page = (reports / "report.html").as_uri()
    dom = chromium(tmp_path, "--dump-dom", page)
    assert console_messages(dom.stderr) == []
    assert dom.stdout.count("<svg") == 2 + 4 * 3 + 8
