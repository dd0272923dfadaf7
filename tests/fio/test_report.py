"""`cephbench report`'s HTML rendered in a real headless Chromium: no console error, the
store's text stays text, the charts are drawn."""

from __future__ import annotations

import numpy as np
from matplotlib import image

from tests.helpers import chromium, console_messages, needs_chromium
from tests.unit import test_report

two_runs = test_report.two_runs  # the pure tests' fixture


@needs_chromium
def test_console_detector_sees_errors(tmp_path):
    """The check below can fail: a page with a script error shows up in the console log."""
    bad = tmp_path / "bad.html"
    bad.write_text("<html><body><script>undefinedFunction()</script></body></html>")
    assert console_messages(chromium(tmp_path, "--dump-dom", bad.as_uri()).stderr)


@needs_chromium
def test_html_renders_in_chromium(invoke, two_runs, tmp_path):
    out = tmp_path / "report.html"
    invoke("report", *map(str, two_runs), "-o", str(out))
    dom = chromium(tmp_path, "--dump-dom", out.as_uri())
    assert console_messages(dom.stderr) == []
    assert 'data-pwned="1"' not in dom.stdout  # the label's script did not run...
    assert (
        "&lt;script&gt;document.body.setAttribute('data-pwned','1')&lt;/script&gt;" in dom.stdout
    )  # ...it is text
    shot = tmp_path / "shot.png"
    chromium(tmp_path, f"--screenshot={shot}", "--window-size=1200,2400", out.as_uri())
    pixels = image.imread(shot)[..., :3]
    ink = (pixels.mean(axis=2) < 0.9).mean()
    colour = (np.ptp(pixels, axis=2) > 0.2).mean()  # the chart bars
    assert ink > 0.02 and colour > 0.005, (ink, colour)
