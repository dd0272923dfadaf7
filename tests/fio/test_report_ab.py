"""`cephbench report --experiment N`: the A/B experiment's report (tests/unit/test_report_ab.py)
rendered in a real headless Chromium."""

from __future__ import annotations

from tests.helpers import chromium, console_messages, needs_chromium
from tests.unit import test_report_ab

experiment = test_report_ab.experiment  # the pure tests' fixture


@needs_chromium
def test_the_experiment_report_renders_in_chromium(invoke, experiment, tmp_path):
    out = tmp_path / "ab.html"
    invoke("report", "--experiment", str(experiment), "-o", str(out))
    dom = chromium(tmp_path, "--dump-dom", out.as_uri())
    assert console_messages(dom.stderr) == []
    assert "nocache is worse on 1 of 4 workloads" in dom.stdout
