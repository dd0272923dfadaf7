"""How often the change-point method marks noise, and how often it finds a real shift.

    .venv/bin/python bench/changepoint_rates.py [--trials 400]

Series of Gaussian noise (mean 1000, sd 20) of 6 to 100 runs: the share with any change point
marked (false marks), and, with a shift of 1.5 and 3 sigma halfway, the share where exactly
that one change is found at the right run. Seeded: the same figures on every run. The
figures quoted in ``cephbench.analysis.changepoint``'s docstring come from here.
"""

from __future__ import annotations

import argparse
import random

from cephbench.analysis.changepoint import change_points

SIZES = (6, 10, 20, 40, 100)
SD = 20.0


def rate(n: int, shift_sd: float, trials: int) -> float:
    hits = 0
    for seed in range(trials):
        rnd = random.Random(seed * 7919 + n)
        x = [1000 + rnd.gauss(0, SD) for _ in range(n)]
        if shift_sd == 0:
            hits += bool(change_points(x))
            continue
        half = n // 2
        x = [v + (shift_sd * SD if i >= half else 0) for i, v in enumerate(x)]
        hits += [c.index for c in change_points(x)] == [half]
    return hits / trials


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=400)
    args = parser.parse_args()
    print(f"{'runs':>5} {'false marks':>12} {'found 1.5σ':>11} {'found 3σ':>9}")
    for n in SIZES:
        fp, weak, strong = (rate(n, s, args.trials) for s in (0, 1.5, 3))
        print(f"{n:>5} {fp:>12.1%} {weak:>11.1%} {strong:>9.1%}")


if __name__ == "__main__":
    main()
