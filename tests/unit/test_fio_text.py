"""fio's normal output, 2.x and 3.x, read exactly as printed, however it was pasted."""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cephbench.errors import ParseError
from cephbench.tools.fio.parse import parse
from cephbench.tools.fio.text import parse_text
from tests.helpers import DATA, FIO_DATA

PAIRS = sorted(p for p in FIO_DATA.glob("*.txt"))
SAMPLE_2X = DATA / "fio" / "2.1.11" / "psync-randrw.txt"


def _figures(outcomes):
    return {(o.name, r.op): r for o in outcomes if not o.error for r in o.results}


@pytest.mark.parametrize("path", PAIRS, ids=lambda p: p.stem)
def test_text_agrees_with_json_of_the_same_run(path):
    stderr = path.with_suffix(".stderr")
    from_json = _figures(
        parse(
            path.with_suffix(".json").read_text(), 0, stderr.read_text() if stderr.exists() else ""
        )
    )
    from_text = _figures(parse_text(path.read_text()).jobs)
    assert from_text.keys() == from_json.keys()
    for key, t in from_text.items():
        j = from_json[key]
        assert (t.rw, t.bs, t.iodepth, t.numjobs, t.lat_kind) == (
            j.rw,
            j.bs,
            j.iodepth,
            j.numjobs,
            j.lat_kind,
        )
        assert t.iops == pytest.approx(j.iops, rel=0.005)  # fio prints 3 significant digits
        assert t.bw_bytes_per_s == pytest.approx(j.bw_bytes_per_s, rel=0.006)
        assert t.runtime_s == pytest.approx(j.runtime_s, abs=0.001)
        if j.lat_kind is None:
            assert t.lat_mean_us is None and t.lat_p99_us is None
            continue
        assert t.lat_mean_us == pytest.approx(j.lat_mean_us, rel=0.001, abs=0.01)
        assert t.lat_max_us == pytest.approx(j.lat_max_us, rel=0.001, abs=1)
        if "percentiles_unmerged" not in t.flags:
            assert t.lat_p99_us == pytest.approx(j.lat_p99_us, rel=0.001, abs=1)


def test_fio_2x_figures_exactly_as_printed():
    expected = json.loads(SAMPLE_2X.with_suffix(".expected.json").read_text())
    doc = parse_text(SAMPLE_2X.read_text())
    assert doc.version == expected["version"]
    got = [r.to_json() for o in doc.jobs for r in o.results]
    for g, e in zip(got, expected["results"], strict=True):
        for key, value in e.items():
            assert g[key] == (pytest.approx(value) if isinstance(value, float) else value), key


def _mangled(text: str) -> dict[str, str]:
    stripped = "\n".join(line.lstrip() for line in text.splitlines())
    no_trailers = text.split("Run status group")[0]
    return {
        "as is": text,
        "indentation lost": stripped,
        "prompt and command before": "[root@node1 ~]# fio --name=x --rw=randrw --bs=4k\n" + text,
        "markdown fence": "```\n" + text + "\n```\n",
        "crlf": text.replace("\n", "\r\n"),
        "no trailers": no_trailers,
        "all at once": "$ fio job.fio\n```text\n"
        + stripped.split("Run status group")[0].replace("\n", "\r\n")
        + "```",
    }


@pytest.mark.parametrize(
    "path", [SAMPLE_2X, FIO_DATA / "randrw_70.txt", FIO_DATA / "groups4.txt"], ids=lambda p: p.name
)
def test_pasting_damage_changes_no_figure(path):
    variants = _mangled(path.read_text())
    reference = [r.to_json() for o in parse_text(variants.pop("as is")).jobs for r in o.results]
    for name, text in variants.items():
        got = [r.to_json() for o in parse_text(text).jobs for r in o.results]
        assert got == reference, name


def test_failed_job_keeps_fios_reason():
    (good, full) = parse_text((FIO_DATA / "error_enospc.txt").read_text()).jobs
    assert good.error == 0 and full.error == 28
    assert "No space left on device" in full.message


@pytest.mark.parametrize(
    "text", ["", "hello", "x: (groupid=0, jobs=1): err= 0: pid=1\n", "read: IOPS=3, BW=1MiB/s"]
)
def test_no_results_is_a_parse_error(text):
    with pytest.raises(ParseError):
        parse_text(text)


TEXTS = [p.read_text() for p in [*PAIRS, SAMPLE_2X]]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(TEXTS), st.data())
def test_fuzz_truncated_or_damaged(text, data):
    cut = data.draw(st.integers(0, len(text)))
    noise = data.draw(st.text(max_size=20))
    at = data.draw(st.integers(0, cut))
    damaged = text[:at] + noise + text[at:cut]
    try:
        doc = parse_text(damaged)
    except ParseError:
        return
    assert all(r.op in ("read", "write", "trim") for o in doc.jobs for r in o.results)


@settings(max_examples=150, deadline=None)
@given(st.text())
def test_fuzz_arbitrary_text(text):
    with contextlib.suppress(ParseError):
        parse_text(text)


VPS = DATA / "fio" / "3.1" / "vps_libaio_4k.md"


def test_progress_line_glued_to_the_job_header_keeps_the_job():
    from cephbench.tools.fio.text import parse_text_all

    text = VPS.read_text()
    glued = text.replace("[eta 00m:00s]\nmyjob: (groupid", "[eta 00m:00s]myjob: (groupid")
    assert glued != text
    figures = [[r.to_json() for o in d.jobs for r in o.results] for d in parse_text_all(text)]
    assert [
        [r.to_json() for o in d.jobs for r in o.results] for d in parse_text_all(glued)
    ] == figures
    assert len(figures) == 10


def test_several_runs_in_one_paste_stay_apart():
    from cephbench.tools.fio.text import parse_text_all

    text = VPS.read_text().replace("```", "")
    docs = parse_text_all("\n".join(line.lstrip() for line in text.splitlines()))
    assert [d.version for d in docs] == ["fio-3.1"] * 10
    assert [d.jobs[0].results[0].op for d in docs] == ["write", "read"] * 5
