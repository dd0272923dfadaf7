"""Sizes and durations as fio writes them (``4k``, ``1M``, ``60s``, ``2m``), and the one unit
of network figures: bits per second (storage bandwidth is MiB/s, network Gbit/s or Mbit/s)."""

from __future__ import annotations

import re

from cephbench.errors import UsageError

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgtp]?)(i?b?)\s*$", re.IGNORECASE)
_POW = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4, "p": 5}
_TIME = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(us|ms|s|m|h|d)?\s*$", re.IGNORECASE)
_SECONDS = {"us": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600, "d": 86400, None: 1}


def parse_size(text: str | int) -> int:
    """Bytes in a fio size: ``4k`` and ``4KiB`` and ``4kb`` are all 4096 (fio's default base)."""
    if isinstance(text, int):
        return text
    m = _SIZE.match(str(text))
    if not m:
        raise UsageError(
            f"'{text}' is not a size", hint="use a number with k, m, g or t, e.g. 4k or 10G"
        )
    return int(float(m.group(1)) * 1024 ** _POW[m.group(2).lower()])


def parse_seconds(text: str | int | float) -> float:
    """Seconds in a fio duration: a bare number is seconds; ``2m`` is 120."""
    if isinstance(text, int | float):
        return float(text)
    m = _TIME.match(str(text))
    if not m:
        raise UsageError(f"'{text}' is not a duration", hint="use e.g. 60, 60s, 2m")
    unit = m.group(2).lower() if m.group(2) else None
    return float(m.group(1)) * _SECONDS[unit]


def format_size(n: int) -> str:
    """The shortest exact fio spelling of ``n`` bytes: 4096 -> 4k, 1048576 -> 1m."""
    for suffix, power in (("t", 4), ("g", 3), ("m", 2), ("k", 1)):
        if n and n % 1024**power == 0:
            return f"{n // 1024**power}{suffix}"
    return str(n)


BITS_UNITS = (("Gbit/s", 1e9), ("Mbit/s", 1e6))


def bits_unit(largest: float | None) -> tuple[str, float]:
    """The unit and its bits per second for a table of network figures, by its largest one:
    Gbit/s from 1 Gbit/s up, else Mbit/s (one unit per table, so its figures line up)."""
    for unit, bits in BITS_UNITS:
        if (largest or 0) >= bits:
            return unit, bits
    return BITS_UNITS[-1]


def format_bits(bits_per_s: float, unit: tuple[str, float] | None = None) -> str:
    """A network figure in ``unit`` (default: its own, by size): ``16.20`` (Gbit/s)."""
    return f"{bits_per_s / (unit or bits_unit(bits_per_s))[1]:.2f}"
