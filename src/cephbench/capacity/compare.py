"""Two capacity searches compared (``capacity --compare A B``): before and after a tune,
healthy against recovering, one release against another. Pure.

Welch's t-test on the repeats' capacities gives the difference (B - A) and its 95 % CI, in
percent of A. The verdict: ``same`` when that whole CI lies within ±``same_within`` (A's CI
target unless given), ``higher`` or ``lower`` when it excludes 0 and reaches past the band,
``inconclusive`` otherwise, or when a search found no capacity or has too few repeats.
Searches under different rules (percentile, target, workload) measure different things and
are refused.
"""

from __future__ import annotations

from typing import Any

from cephbench.capacity.model import Capacity

COMPARISON_SCHEMA = "cephbench.capacity-comparison/1"


def comparable(a: Capacity, b: Capacity) -> str | None:
    """Why ``a`` and ``b`` cannot be compared; None when they can."""
    ra, rb = a.spec.rule, b.spec.rule
    if (ra.percentile, ra.target_us) != (rb.percentile, rb.target_us):
        return (
            f"search {a.id} keeps p{ra.percentile:g} under {ra.target_us:g} us, search {b.id} "
            f"p{rb.percentile:g} under {rb.target_us:g} us"
        )
    wa, wb = (a.spec.step.rw, a.spec.step.bs), (b.spec.step.rw, b.spec.step.bs)
    if wa != wb:
        return f"search {a.id} measured {' '.join(wa)}, search {b.id} {' '.join(wb)}"
    return None


def compare(a: Capacity, b: Capacity, same_within: float | None = None) -> dict[str, Any]:
    """The ``cephbench.capacity-comparison/1`` document of ``b`` against ``a``."""
    from cephbench.analysis.stats import pct_diff, welch

    band = (a.spec.ci if same_within is None else same_within) * 100
    ea, eb = a.estimate, b.estimate
    found_a = [c for c in a.capacities if c is not None]
    found_b = [c for c in b.capacities if c is not None]
    diff = pct_diff(ea.mean, eb.mean)
    ci: list[float] | None = None
    if None in a.capacities or None in b.capacities or not found_a or not found_b:
        verdict, reason = "inconclusive", "a search found no capacity"
    elif (test := welch(found_a, found_b)) is None or ea.mean is None:
        verdict, reason = "inconclusive", "a search has fewer than 2 repeats"
    else:
        ci = [x / ea.mean * 100 for x in test.diff_ci95]
        if -band <= ci[0] and ci[1] <= band:
            verdict, reason = "same", f"the whole CI within ±{band:g} %"
        elif ci[0] > 0 or ci[1] < 0:
            verdict = "higher" if ci[0] > 0 else "lower"
            reason = f"p = {test.p:.3g}"
        else:
            verdict, reason = "inconclusive", f"the CI reaches past ±{band:g} % and includes 0"
    return {
        "schema": COMPARISON_SCHEMA,
        "a": a.to_json(),
        "b": b.to_json(),
        "diff_pct": diff,
        "diff_ci95_pct": ci,
        "same_within_pct": band,
        "verdict": verdict,
        "reason": reason,
    }
