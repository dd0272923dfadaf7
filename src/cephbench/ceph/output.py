"""Reading what ``ceph ... -f json`` printed: one reader for the lab and for clusters."""

from __future__ import annotations

import json
from typing import Any

from cephbench.errors import ParseError


def parse_json(args: tuple[str, ...], out: str) -> Any:
    """What ``ceph ARGS -f json`` printed, parsed (None for nothing); ParseError otherwise."""
    try:
        return json.loads(out) if out.strip() else None
    except json.JSONDecodeError as e:
        raise ParseError(f"ceph {' '.join(args)} printed no JSON: {out[:200]!r}") from e
