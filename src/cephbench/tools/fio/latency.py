"""A direction's latency over a job's clones, as fio recorded it: the means of total,
completion and submission latency weighted by each clone's samples, and the percentiles, of
one clone as printed or of several merged exactly from their json+ bins (fio's own rule for
a percentile). Pure functions of fio's JSON; parse.py puts them in each Result."""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Iterable

from cephbench.errors import ParseError

HEADLINE_PERCENTILES = {
    50.0: "lat_p50_us",
    90.0: "lat_p90_us",
    99.0: "lat_p99_us",
    99.9: "lat_p999_us",
}


def _stat(s: dict, kind: str) -> tuple[dict, float] | None:
    """fio's ``<kind>_ns`` (nanoseconds, fio 3.x) or ``<kind>`` (microseconds, fio 2.x), with
    its scale to µs; None when fio did not record it (absent, gtod_reduce, disable_lat...)."""
    for key, scale in ((f"{kind}_ns", 1000.0), (kind, 1.0)):
        stat = s.get(key)
        if isinstance(stat, dict):
            recorded = (
                stat.get("N", 0) > 0
                if "N" in stat
                else any(stat.get(k, 0) for k in ("min", "max", "mean"))
            )
            return (stat, scale) if recorded else None
    return None


def _weights(stats: list[dict], found: list[tuple[dict, float]]) -> list[float]:
    """Samples behind each clone's mean: fio's N, else (fio 2.x) its I/Os."""
    return [f[0].get("N", s.get("total_ios", 1)) or 1 for s, f in zip(stats, found, strict=True)]


def _mean(stats: list[dict], kind: str) -> tuple[float, float] | None:
    """(mean, max) in µs of one kind over the clones; None unless every clone recorded it."""
    found = [f for s in stats if (f := _stat(s, kind)) is not None]
    if not found or len(found) < len(stats):
        return None
    weights = _weights(stats, found)
    mean = sum(f[0]["mean"] / f[1] * w for f, w in zip(found, weights, strict=True)) / sum(weights)
    return mean, max(f[0]["max"] / f[1] for f in found)


Mean = tuple[float, float] | None
"""(mean, max) of one latency kind, microseconds; None when fio did not record it."""


def latency_means(total: Mean, clat: Mean, slat: Mean) -> dict:
    """A direction's latency means as tables show them: the mean (and max) of total latency
    where fio recorded it, else of completion latency, with both kinds' means beside it; the
    percentiles still to be filled in, of the kind they were recorded for."""
    headline = total or clat
    return {
        "lat_mean_us": headline[0] if headline else None,
        "lat_max_us": headline[1] if headline else None,
        "clat_mean_us": clat[0] if clat else None,
        "slat_mean_us": slat[0] if slat else None,
        "mean_kind": "lat" if total else "clat" if clat else None,
        "lat_kind": "lat" if total else "clat" if clat else None,
        "percentiles": (),
        **dict.fromkeys(HEADLINE_PERCENTILES.values()),
    }


def direction_latency(stats: list[dict]) -> dict:
    """Means of total (lat), completion (clat) and submission (slat) latency as recorded, and
    the percentiles fio recorded, of the kind it recorded them for: ``lat_kind``."""
    out = {**latency_means(*(_mean(stats, k) for k in ("lat", "clat", "slat"))), "unmerged": False}
    for kind in ("lat", "clat"):
        found = [f for s in stats if (f := _stat(s, kind)) is not None]
        if len(found) < len(stats) or any(
            not isinstance(f[0].get("percentile"), dict) for f in found
        ):
            continue
        points = _points(found)
        if points is None:
            out.update(lat_kind=kind, unmerged=True)
            break
        table = dict(points)
        out.update({field: table.get(p) for p, field in HEADLINE_PERCENTILES.items()})
        out.update(lat_kind=kind, percentiles=tuple(points))
        break
    return out


def _points(found: list[tuple[dict, float]]) -> list[tuple[float, float]] | None:
    """The percentiles of one clone as recorded, or of several merged exactly (json+ bins);
    None when several clones' percentiles cannot be merged (plain json)."""
    if len(found) == 1:
        stat, scale = found[0]
        # fio 2.x pads its list with "0.00": 0 entries
        return sorted((float(p), v / scale) for p, v in stat["percentile"].items() if float(p) > 0)
    if all(isinstance(f[0].get("bins"), dict) for f in found):
        scale = found[0][1]
        percents = [float(p) for p in found[0][0]["percentile"] if float(p) > 0]
        return [
            (p, v * 1000 / scale)
            for p, v in _percentiles_from_bins(_merge_bins(f[0]["bins"] for f in found), percents)
        ]
    return None


def _merge_bins(bins: Iterable[dict[str, int]]) -> list[tuple[int, int]]:
    merged: dict[int, int] = {}
    get = merged.get
    for b in bins:
        # json+ has thousands of bins per clone: checked with builtins (C loops), not per bin
        if not (set(map(type, b.values())) <= {int, bool} and min(b.values(), default=0) >= 0):
            value, count = next((v, c) for v, c in b.items() if not _count(c))
            raise ParseError(f"json+ latency bin {value!r}: {count!r} is not a count of I/Os")
        if not all(map(str.isdigit, b)):
            value = next(v for v in b if not v.isdigit())
            raise ParseError(f"json+ latency bin {value!r}: {b[value]!r} is not a count of I/Os")
        for k, count in zip(map(int, b), b.values(), strict=True):
            merged[k] = get(k, 0) + count
    return sorted(merged.items())


def _count(c: object) -> bool:
    return isinstance(c, int) and c >= 0


def _percentiles_from_bins(
    bins: list[tuple[int, int]], percents: list[float]
) -> list[tuple[float, float]]:
    """fio's own rule: the smallest bin value whose cumulative count reaches p % of samples."""
    cumulative = list(itertools.accumulate(c for _, c in bins))
    total = cumulative[-1] if cumulative else 0
    points = []
    for p in sorted(percents):
        i = bisect.bisect_left(cumulative, math.ceil(total * p / 100.0))
        if i < len(bins):
            points.append((p, bins[i][0] / 1000))
    return points
