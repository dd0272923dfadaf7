"""The capacity search, the knee and the stopping rule (cephbench/capacity/search.py), on
steps recorded from real fio (tests/data/capacity) and on step tables for the edge cases."""

from __future__ import annotations

from pathlib import Path

import pytest

from cephbench.capacity.search import (
    Rule,
    SearchPlan,
    Step,
    bracket,
    estimate,
    knee,
    next_rate,
    outcome,
    status,
)
from cephbench.tools.fio.parse import parse

DATA = Path(__file__).parents[1] / "data" / "capacity"
RECORDED = (2000, 8000, 16000, 32000, 64000, 128000)


def recorded(rate: int) -> Step:
    """A recorded step as cephbench parses it: fio's json+, one workload, its merged bins."""
    (job,) = parse((DATA / f"file_step_{rate}.json").read_text())
    (result,) = job.results
    assert result.lat_kind == "lat"  # total latency: what the rule is about
    return Step(rate, result.iops or 0.0, result.percentiles)


def table(*rows: tuple[float, float, float], repeat: int = 0) -> list[Step]:
    """Steps from (offered, achieved, p99 in µs)."""
    return [Step(o, a, ((50.0, p / 2), (99.0, p)), repeat) for o, a, p in rows]


MS = 1000.0


def test_recorded_steps_judged_by_their_merged_percentiles() -> None:
    steps = [recorded(r) for r in RECORDED]
    rule = Rule(10 * MS)
    assert [outcome(s, rule) for s in steps] == ["pass"] * 4 + ["behind"] * 2
    # the percentile the rule reads is fio's, as recorded: 99.00th of the 2,000 IOPS step
    assert steps[0].latency_us(99.0) == 9109.504
    assert steps[0].latency_us(99.9) is not None
    b = bracket(steps, rule)
    assert b.passing is steps[3] and b.failing is steps[4]
    assert b.capacity == 32000


def test_a_noisy_low_step_over_the_target_leaves_no_capacity_below_it() -> None:
    steps = [recorded(r) for r in RECORDED]
    rule = Rule(6 * MS)  # the 2,000 IOPS step's p99 was 9.1 ms on the busy machine
    b = bracket(steps, rule)
    assert b.failing is steps[0] and b.passing is None
    assert len(b.ignored) == 3  # the passes above a fail do not count


def test_search_brackets_then_bisects_to_the_resolution() -> None:
    true_capacity = 3000.0

    def measure(rate: float) -> Step:
        p99 = 2 * MS if rate <= true_capacity else 9 * MS
        return Step(rate, rate, ((99.0, p99),))

    rule, plan = Rule(5 * MS), SearchPlan(start=500, resolution=0.05)
    steps: list[Step] = []
    while (rate := next_rate(steps, rule, plan)) is not None:
        assert rate not in [s.offered_iops for s in steps]
        steps.append(measure(rate))
    assert status(steps, rule, plan) == "found"
    b = bracket(steps, rule)
    assert b.passing is not None and b.failing is not None
    assert b.passing.offered_iops <= true_capacity < b.failing.offered_iops
    assert b.failing.offered_iops <= b.passing.offered_iops * 1.05
    assert [s.offered_iops for s in steps[:4]] == [500, 1000, 2000, 4000]


def test_search_goes_down_when_the_start_fails() -> None:
    rule, plan = Rule(5 * MS), SearchPlan(start=1000)
    steps = table((1000, 600, 20 * MS))
    assert next_rate(steps, rule, plan) == 500
    steps += table((500, 500, 4 * MS))
    assert next_rate(steps, rule, plan) == 707


def test_behind_fails_even_with_a_low_latency() -> None:
    rule = Rule(5 * MS, tolerance=0.05)
    (ok, behind) = table((1000, 951, 1 * MS), (1000, 949, 1 * MS))
    assert outcome(ok, rule) == "pass"
    assert outcome(behind, rule) == "behind"


def test_a_percentile_not_recorded_cannot_be_judged() -> None:
    rule = Rule(5 * MS, percentile=99.9)
    steps = table((1000, 1000, 1 * MS))
    assert outcome(steps[0], rule) == "unknown"
    with pytest.raises(ValueError, match=r"no p99\.9"):
        bracket(steps, rule)


def test_every_rate_failing_ends_below_the_minimum() -> None:
    rule, plan = Rule(1.0), SearchPlan(start=4)
    steps: list[Step] = []
    while (rate := next_rate(steps, rule, plan)) is not None:
        steps += table((rate, rate, 5 * MS))
    assert status(steps, rule, plan) == "below_min"
    assert bracket(steps, rule).capacity is None


def test_every_rate_passing_ends_at_the_maximum() -> None:
    rule, plan = Rule(5 * MS), SearchPlan(start=1000, max_rate=8000)
    steps: list[Step] = []
    while (rate := next_rate(steps, rule, plan)) is not None:
        steps += table((rate, rate, 1 * MS))
    assert status(steps, rule, plan) == "above_max"
    assert [s.offered_iops for s in steps] == [1000, 2000, 4000, 8000]


def test_adjacent_whole_rates_are_found() -> None:
    rule, plan = Rule(5 * MS), SearchPlan(start=1, resolution=0.01)
    steps = table((1, 1, 1 * MS), (2, 2, 9 * MS))
    assert status(steps, rule, plan) == "found"


def test_knee_of_a_convex_curve() -> None:
    steps = table(
        (1000, 1000, 1.0 * MS),
        (2000, 2000, 1.1 * MS),
        (3000, 3000, 1.3 * MS),
        (4000, 4000, 2.0 * MS),
        (5000, 5000, 8.0 * MS),
    )
    k = knee(steps, 99.0)
    assert k is not None and k.offered_iops == 4000 and k.latency_us == 2.0 * MS


def test_knee_needs_three_rates_that_kept_up_and_a_rise() -> None:
    assert knee(table((1000, 1000, MS), (2000, 2000, 2 * MS)), 99.0) is None
    flat = table((1000, 1000, MS), (2000, 2000, MS), (3000, 3000, MS))
    assert knee(flat, 99.0) is None
    behind = table((1000, 1000, MS), (2000, 2000, 2 * MS), (3000, 1000, 3 * MS))
    assert knee(behind, 99.0) is None  # the step that fell behind is not on the curve


def test_no_knee_where_the_recorded_curve_does_not_rise() -> None:
    # the busy machine's p99 was highest at the lowest rate: a curve with no knee, not a guess
    steps = [recorded(r) for r in RECORDED]
    assert knee(steps, 99.0) is None
    assert knee(steps[1:4], 99.0) is not None  # 8,000 to 32,000 IOPS does rise


def test_stopping_rule_converges_on_close_repeats() -> None:
    e = estimate([3000, 3100, 2950], ci=0.10)
    assert e.verdict == "converged"
    assert e.ci95 is not None and e.ci95[0] < 3016.7 < e.ci95[1]
    assert e.ci_pct is not None and e.ci_pct <= 10


def test_stopping_rule_wants_the_minimum_repeats() -> None:
    assert estimate([3000, 3000.1], ci=0.10).verdict == "more"
    assert estimate([3000], ci=0.10).verdict == "more"
    assert estimate([], ci=0.10).verdict == "more"


def test_stopping_rule_says_inconclusive_when_repeats_disagree() -> None:
    spread = [1000, 3000, 2000, 1500, 2600, 1200]
    assert estimate(spread[:3], ci=0.10, max_repeats=6).verdict == "more"
    e = estimate(spread, ci=0.10, max_repeats=6)
    assert e.verdict == "inconclusive" and "wider than ±10 %" in e.reason


def test_stopping_rule_inconclusive_without_a_capacity() -> None:
    e = estimate([3000, None, 3100])
    assert e.verdict == "inconclusive" and e.mean is None


def test_rule_refuses_nonsense() -> None:
    with pytest.raises(ValueError):
        Rule(0)
    with pytest.raises(ValueError):
        Rule(5 * MS, percentile=100)
    with pytest.raises(ValueError):
        SearchPlan(start=0.5)


def test_the_ci_is_plain_floats():
    e = estimate([3000, 3100, 2950])
    assert e.ci95 is not None and all(type(x) is float for x in e.ci95)


@pytest.mark.parametrize("generators", [2, 3, 7])
def test_a_rate_split_across_generators_is_a_multiple_of_them(generators: int) -> None:
    """With --clients or --pods every generator is offered the same whole rate (fio's
    rate_iops is an integer): each step's rate is a multiple of their number, the search
    still brackets the capacity to the resolution, or to one I/O per second from each."""
    true_capacity = 3001.0

    def measure(rate: float) -> Step:
        p99 = 2 * MS if rate <= true_capacity else 9 * MS
        return Step(rate, rate, ((99.0, p99),))

    rule = Rule(5 * MS)
    plan = SearchPlan(start=500, resolution=0.001, granularity=generators)
    steps: list[Step] = []
    while (rate := next_rate(steps, rule, plan)) is not None:
        assert rate % generators == 0 and rate not in [s.offered_iops for s in steps]
        steps.append(measure(rate))
    assert status(steps, rule, plan) == "found"
    b = bracket(steps, rule)
    assert b.passing is not None and b.failing is not None
    assert b.passing.offered_iops <= true_capacity < b.failing.offered_iops
    assert b.failing.offered_iops - b.passing.offered_iops == generators


def test_below_one_io_per_second_from_each_generator_is_below_the_minimum() -> None:
    rule, plan = Rule(1.0), SearchPlan(start=40, granularity=4)
    steps: list[Step] = []
    while (rate := next_rate(steps, rule, plan)) is not None:
        steps += table((rate, rate, 5 * MS))
    assert [s.offered_iops for s in steps] == [40, 20, 8, 4]  # 10 -> 8: a multiple of 4
    assert status(steps, rule, plan) == "below_min"


def test_each_generators_share_is_its_rate_iops() -> None:
    from cephbench.capacity.steps import StepSpec

    spec = StepSpec(generators=3, spread="clients")
    options = spec.suite(300)["workloads"][0]["options"]
    assert options["rate_iops"] == 100
    assert spec.suite(300)["description"].endswith(", 100 from each of 3 clients")
    assert spec.load_json() == {"generators": 3, "spread": "clients"}
    # independent arrivals: fio's default seeds would make every generator's the same
    assert options["randrepeat"] == 0
    assert "randrepeat" not in StepSpec().suite(300)["workloads"][0]["options"]
    assert (
        StepSpec().load_json() == {}
        and StepSpec().suite(300)["workloads"][0]["options"]["rate_iops"] == 300
    )
