"""Sweeps: comma lists expanded into points, ordered, named; bad lists refused clearly."""

from __future__ import annotations

import pytest

from cephbench.errors import UsageError
from cephbench.planning.plan import make_plan
from cephbench.tools.fio.steady_criterion import SteadyState
from cephbench.tools.fio.sweep import Axes
from cephbench.tools.plan import Overrides


def _points(plan) -> list[tuple]:
    out = []
    for job in plan.jobfile.jobs:
        o = plan.jobfile.merged(job)
        out.append(
            (job.name, o["rw"], o.get("rwmixread"), o["bs"], int(o["numjobs"]), int(o["iodepth"]))
        )
    return out


def test_matrix_is_the_product_with_iodepth_innermost():
    axes = Axes.parse(rw="randread,randwrite", bs="4k,1M", iodepth="1,8", numjobs="1,2")
    plan = make_plan("matrix", Overrides(), axes=axes)
    points = _points(plan)
    assert len(points) == 16
    assert points[:4] == [
        ("randread-4k-qd1-nj1", "randread", None, "4k", 1, 1),
        ("randread-4k-qd8-nj1", "randread", None, "4k", 1, 8),
        ("randread-4k-qd1-nj2", "randread", None, "4k", 2, 1),
        ("randread-4k-qd8-nj2", "randread", None, "4k", 2, 8),
    ]
    assert points[4][0] == "randread-1M-qd1-nj1" and points[8][0] == "randwrite-4k-qd1-nj1"
    assert plan.chained and [w.seconds for w in plan.workloads] == [60.0] * 16


def test_matrix_with_single_values_is_one_named_point():
    plan = make_plan("matrix", Overrides(iodepth="4", bs="64k"), axes=Axes())
    assert [j.name for j in plan.jobfile.jobs] == ["randread-64k-qd4-nj1"]
    assert plan.jobfile.merged(plan.jobfile.jobs[0])["iodepth"] == "4"


def test_rwmixread_multiplies_only_mixed_points():
    axes = Axes.parse(rw="randread,randrw", rwmixread="50,70,90")
    names = [j.name for j in make_plan("matrix", Overrides(), axes=axes).jobfile.jobs]
    assert names == [
        "randread-4k-qd1-nj1",
        "randrw-mix50-4k-qd1-nj1",
        "randrw-mix70-4k-qd1-nj1",
        "randrw-mix90-4k-qd1-nj1",
    ]


def test_a_suite_swept_keeps_its_workload_names_as_the_base():
    plan = make_plan("latency", Overrides(), axes=Axes.parse(iodepth="1,2,4"))
    names = [j.name for j in plan.jobfile.jobs]
    assert names[:3] == ["lat_rand_rd-qd1", "lat_rand_rd-qd2", "lat_rand_rd-qd4"]
    assert len(names) == 6


def test_plan_only_keeps_the_named_points_in_order():
    plan = make_plan("matrix", Overrides(), axes=Axes.parse(iodepth="1,2,4"))
    assert [
        j.name for j in plan.only({"randread-4k-qd4-nj1", "randread-4k-qd1-nj1"}).jobfile.jobs
    ] == ["randread-4k-qd1-nj1", "randread-4k-qd4-nj1"]


@pytest.mark.parametrize(
    "lists, message",
    [
        ({"iodepth": "1,,4"}, "an empty value"),
        ({"iodepth": "1,x"}, "whole numbers"),
        ({"numjobs": "0,1"}, "between 1 and 4096"),
        ({"rw": "randread,sideways"}, "not an fio rw"),
        ({"bs": "4k,huge"}, "not a size"),
        ({"iodepth": "4,4"}, "given twice"),
        ({"rwmixread": "50,101"}, "between 0 and 100"),
    ],
)
def test_bad_lists_are_refused_with_the_reason(lists, message):
    with pytest.raises(UsageError, match=message):
        Axes.parse(**lists)


def test_steady_state_options_and_their_checks():
    ss = SteadyState.parse("iops:0.3%", None, "5", "120")
    assert ss.options() == {
        "steadystate": "iops:0.3%",
        "steadystate_duration": "30s",
        "steadystate_ramp_time": "5s",
        "time_based": "1",
        "runtime": "120s",
    }
    plan = make_plan("matrix", Overrides(), axes=Axes.parse(iodepth="1,2"), steady=ss)
    assert plan.jobfile.merged(plan.jobfile.jobs[0])["steadystate"] == "iops:0.3%"
    assert [w.seconds for w in plan.workloads] == [120.0, 120.0]  # the ETA counts the cap
    with pytest.raises(UsageError, match="not a criterion"):
        SteadyState.parse("latency:1ms", None, None, None)
    with pytest.raises(UsageError, match="longer than --max-runtime"):
        SteadyState.parse("bw_slope:0.1%", "60", None, "30")


def test_tool_suites_do_not_sweep():
    with pytest.raises(UsageError, match="no sweeps"):
        make_plan("rados", Overrides(), axes=Axes.parse(iodepth="1,2"))


def test_a_long_sweep_is_split_so_a_crash_loses_at_most_ten_minutes():
    plan = make_plan("matrix", Overrides(), axes=Axes.parse(iodepth="1,2,4,8", numjobs="1,2,4,8"))
    batches = plan.batches({"filename": "/tmp/x"})
    assert [len(b.jobfile.jobs) for b in batches] == [10, 6]  # 60 s points, 600 s a process
    assert all(b.chained for b in batches)
