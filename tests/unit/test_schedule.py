"""Which workloads run in each repeat: fixed, resumed, adaptive to a target CI."""

from __future__ import annotations

from cephbench.model import Result
from cephbench.tools.schedule import Schedule, main_figure


def _r(name: str, repeat: int, iops: float, op: str = "read") -> Result:
    return Result(workload=name, repeat=repeat, op=op, iops=iops, bw_bytes_per_s=iops * 4096)


def test_fixed_repeats_run_everything_each_time():
    s = Schedule(["a", "b"], 3)
    assert [s.pending(r) for r in range(4)] == [["a", "b"], ["a", "b"], ["a", "b"], []]


def test_a_resumed_run_does_only_what_has_no_figures():
    s = Schedule.from_results(["a", "b", "c"], 2, [_r("a", 0, 10), _r("b", 0, 10), _r("a", 1, 10)])
    assert (s.pending(0), s.pending(1)) == (["c"], ["b", "c"])
    assert s.remaining()
    done = Schedule.from_results(["a"], 1, [_r("a", 0, 10)])
    assert not done.remaining()


def test_adaptive_stops_a_workload_once_its_ci_is_tight_enough():
    s = Schedule(["steady", "noisy"], 10, target_ci=0.02)
    for repeat, (a, b) in enumerate([(1000, 500), (1001, 900), (999, 300)]):
        assert s.pending(repeat) == ["steady", "noisy"]
        s.add("steady", repeat, a)
        s.add("noisy", repeat, b)
    assert s.reached("steady") and not s.reached("noisy")
    assert s.pending(3) == ["noisy"]
    summary = s.summary()
    assert summary["steady"]["repeats"] == 3 and summary["steady"]["reached"] is True
    assert summary["noisy"]["reached"] is False and summary["noisy"]["ci_half_width"] > 0.5


def test_adaptive_needs_three_samples_even_when_two_agree():
    s = Schedule(["a"], 10, target_ci=0.5)
    s.add("a", 0, 100.0)
    s.add("a", 1, 100.0)
    assert s.pending(2) == ["a"]


def test_adaptive_stops_at_the_cap_and_the_time_budget():
    s = Schedule(["a"], 3, target_ci=0.001, max_time=60)
    for r in range(3):
        s.add("a", r, 100.0 + r * 10)
    assert s.pending(3) == [] and not s.reached("a")
    t = Schedule(["a"], 10, target_ci=0.001, max_time=60)
    assert t.pending(0, elapsed=59) == ["a"] and t.pending(0, elapsed=61) == []


def test_main_figure_adds_directions_and_falls_back_to_bandwidth():
    assert main_figure([_r("m", 0, 70, "read"), _r("m", 0, 30, "write")]) == 100
    assert main_figure([Result(workload="x", repeat=0, op="write", bw_bytes_per_s=5.0)]) == 5.0
    assert main_figure([]) is None
