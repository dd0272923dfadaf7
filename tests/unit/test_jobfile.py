"""fio job files: parsed as fio reads them, rendered back so fio reads the same thing."""

from __future__ import annotations

import pytest

from cephbench.errors import UsageError
from cephbench.planning.plan import make_plan
from cephbench.tools.fio.jobfile import load_jobfile, parse_jobfile
from cephbench.tools.plan import Overrides
from tests.helpers import FIO_DATA


def test_sections_flags_and_comments():
    jf = parse_jobfile(
        "; comment\n[global]\ndirect=1\ntime_based\n# more\n[a]\nrw = read\n[b]\nstonewall\n"
    )
    assert jf.global_.options == (("direct", "1"), ("time_based", None))
    assert [j.name for j in jf.jobs] == ["a", "b"]
    assert jf.jobs[0].get("rw") == "read"
    assert jf.merged(jf.jobs[1]) == {"direct": "1", "time_based": None, "stonewall": None}


def test_render_round_trips():
    jf = load_jobfile(FIO_DATA / "groups4.fio")
    again = parse_jobfile(jf.render())
    assert again == jf


def test_include(tmp_path):
    (tmp_path / "common.fio").write_text("ioengine=libaio\n")
    (tmp_path / "main.fio").write_text("[global]\ninclude common.fio\n[j]\nrw=read\n")
    jf = load_jobfile(tmp_path / "main.fio")
    assert jf.global_.get("ioengine") == "libaio"


@pytest.mark.parametrize(
    "text, problem",
    [
        ("rw=read\n", r"my.fio:1: .* before any \[section\]"),
        ("[global]\ndirect=1\n", "has no jobs"),
        ("[broken\nrw=read\n", "malformed section header"),
    ],
)
def test_errors_name_the_line(text, problem):
    with pytest.raises(UsageError, match=problem):
        parse_jobfile(text, "my.fio")


def test_target_replaces_filename_and_directory():
    plan = make_plan(str(FIO_DATA / "concurrent.fio"), Overrides())
    rendered = plan.for_target({"filename": "/bench/x"})
    assert rendered.global_.get("filename") == "/bench/x"
    assert all(not j.has("filename") and not j.has("directory") for j in rendered.jobs)


def test_overrides_apply_to_every_job():
    plan = make_plan(str(FIO_DATA / "groups4.fio"), Overrides(runtime="3", bs="8k", iodepth=2))
    for job in plan.jobfile.jobs:
        merged = plan.jobfile.merged(job)
        assert (merged["runtime"], merged["bs"], merged["iodepth"]) == ("3", "8k", "2")
    assert [w.seconds for w in plan.workloads] == [3.0] * 4


def test_stonewall_groups_are_kept():
    plan = make_plan(str(FIO_DATA / "groups4.fio"), Overrides())
    assert all(j.has("stonewall") for j in plan.jobfile.jobs)
