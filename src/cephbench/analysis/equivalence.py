"""A difference's verdict, the one rule ``compare`` and ``ab`` share. Pure.

A test that finds no significant difference has not shown that there is none: a 95 % CI of
-97 %…+2275 % is not significant and says nothing. "The same" is a claim of its own, made
with an *equivalence band*: the difference is the same when its whole 95 % confidence
interval lies within ±band (an interval inside the band is the two one-sided tests of
equivalence, TOST, each at 2.5 %). So a difference is

- ``same``: the whole CI inside ±band, significant or not. A difference smaller than the band
  that a tight CI calls significant is real for the statistics and not for a benchmark: at
  that size it is as likely a systematic effect of the set-up (round order, a warm cache, a
  paced workload's edges) as of the change, and it is not worth acting on. criterion.rs's
  "change within noise threshold" is the same rule;
- ``better`` or ``worse``: significant (the test's own rule, Benjamini-Hochberg across cells;
  its CI excludes 0) and the CI reaching past the band, in the metric's good or bad direction;
- ``inconclusive``: neither: not significant, and the CI reaches past the band on at least one
  side, so a change the band counts as real may hide in it (more samples narrow it);
- ``unknown``: not testable (one sample or one block: no CI); ``missing``: a side has no figure.

The default band, ±5 %, is about the run-to-run spread of a storage benchmark on a quiet
machine, and the size of tuning change worth acting on; ``ab --same-within`` sets another.
"""

from __future__ import annotations

SAME_WITHIN = 5.0
"""The default equivalence band, in percent either side of no change."""
VERDICTS = ("better", "worse", "same", "inconclusive", "unknown", "missing")


def verdict(
    pct: float | None,
    ci: tuple[float, float] | None,
    significant: bool | None,
    higher_is_better: bool,
    same_within: float = SAME_WITHIN,
) -> str:
    """The verdict (one of :data:`VERDICTS`) of a percent difference ``pct`` with its CI
    ``ci`` (percent) and the test's significance (None: untested)."""
    if pct is None:
        return "missing"
    if significant is None:
        return "unknown"
    if ci is not None and -same_within <= ci[0] and ci[1] <= same_within:
        return "same"
    if significant:
        return "better" if (pct > 0) == higher_is_better else "worse"
    return "inconclusive"
