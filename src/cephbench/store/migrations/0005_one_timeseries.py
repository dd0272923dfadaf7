"""What 0005_one_timeseries.sql needs and SQLite cannot do: read JSON points that may hold
NaN, pack numbers as float64 bytes, compress. Kept with the migration, so the conversion stays
what it was whatever the store's own encoder becomes; standard library only."""

from __future__ import annotations

import json
import struct
import zlib


def points_n(text: str) -> int:
    return len(json.loads(text))


def points_encoding(text: str) -> str:
    return "f8" if _numeric(json.loads(text)) else "json"


def points_z(text: str) -> bytes:
    points = json.loads(text)
    if not _numeric(points):
        return zlib.compress(text.encode())
    flat = [p[0] for p in points] + [p[1] for p in points]
    return zlib.compress(struct.pack(f"<{len(flat)}d", *flat))


def _numeric(points: list) -> bool:
    return all(
        isinstance(p, list) and len(p) == 2 and all(type(x) in (int, float) for x in p)
        for p in points
    )


FUNCTIONS = {"points_n": points_n, "points_encoding": points_encoding, "points_z": points_z}
