"""``--drop-caches``: sync, then ``3`` to /proc/sys/vm/drop_caches, verified by the page
cache shrinking (or being small already); a clear error when not permitted."""

from __future__ import annotations

import os
from pathlib import Path

from cephbench.errors import CephbenchError

DROP = Path("/proc/sys/vm/drop_caches")
MEMINFO = Path("/proc/meminfo")
SMALL = 64 << 20


def cached_bytes(meminfo: str) -> int:
    """The page cache size in ``/proc/meminfo`` text ("Cached:" line), bytes."""
    for line in meminfo.splitlines():
        if line.startswith("Cached:"):
            return int(line.split()[1]) * 1024
    raise CephbenchError("/proc/meminfo has no Cached: line")


def check_permitted() -> None:
    if not os.access(DROP, os.W_OK):
        raise CephbenchError(
            "--drop-caches needs to write /proc/sys/vm/drop_caches, which is not permitted here",
            hint="run as root, or leave out --drop-caches",
        )


def drop() -> dict[str, int]:
    """Drop the page cache now; returns the cache size before and after, bytes."""
    before = cached_bytes(MEMINFO.read_text())
    os.sync()
    try:
        DROP.write_text("3\n")
    except OSError as e:
        raise CephbenchError(
            f"cannot drop the page cache: {e.strerror}",
            hint="run as root, or leave out --drop-caches",
        ) from None
    after = cached_bytes(MEMINFO.read_text())
    if after > before and after > SMALL:
        raise CephbenchError(
            f"the page cache did not shrink after dropping it ({before >> 20} MiB -> "
            f"{after >> 20} MiB)",
            hint="is /proc/sys/vm/drop_caches honoured here?",
        )
    return {"cached_before": before, "cached_after": after}
