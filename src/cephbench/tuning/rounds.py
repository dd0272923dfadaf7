"""The order of an A/B experiment's rounds, and its blocks. Pure.

Rounds go A B | B A | A B | B A ...: blocks of two adjacent rounds, one of each side, the
side that goes first alternating from block to block. Under a linear drift ``d`` per round,
block 1 measures ``B - A + d`` and block 2 ``B - A - d``: every two blocks (four rounds) the
drift cancels exactly, and within a block it is at most one round's worth. The sequence also
switches the configuration only between blocks (A B B A: one change per block, not two).

How many: a fixed number (``--rounds``), or by default blocks until every workload's IOPS CI
half-width, the smallest change the experiment can detect, is within a target
(``--target-ci``, default ±5 %: as fine as the default band of a ``same`` verdict) or until
``--max-rounds`` or ``--max-time``. A fixed 8 rounds of 2 s gave CIs of ±6-14 % on the lab's
4k random reads at QD16: too wide to see the -8 % of a QoS cap, and nothing said so.
"""

from __future__ import annotations

from cephbench.errors import UsageError

MIN_ROUNDS = 4
"""Two blocks: the fewest with a spread, hence a confidence interval."""
DEFAULT_TARGET_CI = 5.0
"""Percentage points: the CI half-width rounds run to unless their number is fixed."""
DEFAULT_MAX_ROUNDS = 40
DEFAULT_MAX_TIME = 30 * 60.0
"""Seconds: no new block after this, unless the rounds are fixed (40 rounds of the quick
suite take about 15 minutes)."""


def side(index: int) -> str:
    """The side of round ``index`` (0-based): A B B A A B B A ..."""
    block, second = divmod(index, 2)
    first = "A" if block % 2 == 0 else "B"
    return first if not second else ("B" if first == "A" else "A")


def order(rounds: int) -> str:
    """The sides of ``rounds`` rounds as a string, e.g. ``ABBAAB``."""
    return "".join(side(i) for i in range(rounds))


def check_rounds(rounds: int) -> int:
    """``--rounds``: even, at least four (a UsageError otherwise)."""
    if rounds < MIN_ROUNDS or rounds % 2:
        raise UsageError(
            f"--rounds {rounds}: an even number of at least {MIN_ROUNDS} "
            "(rounds pair up into A/B blocks)",
            hint="e.g. --rounds 8 (a multiple of 4 cancels a linear drift exactly)",
        )
    return rounds


def blocks(sides: str) -> list[tuple[int, int]]:
    """(index of the A round, index of the B round) of every complete block of ``sides``."""
    out = []
    for k in range(len(sides) // 2):
        pair = sides[2 * k : 2 * k + 2]
        if sorted(pair) != ["A", "B"]:
            raise ValueError(f"block {k} of {sides!r} is {pair!r}, not one round of each side")
        a = 2 * k if pair[0] == "A" else 2 * k + 1
        out.append((a, 4 * k + 1 - a))
    return out


def drift_weight(sides: str) -> float:
    """The coefficient of a linear drift in the mean paired difference: 0 when it cancels."""
    pairs = blocks(sides)
    if not pairs:
        return 0.0
    return sum(b - a for a, b in pairs) / len(pairs)
