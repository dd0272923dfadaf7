"""--drop-caches: the page cache really is dropped before each workload, and it is verified."""

from __future__ import annotations

from cephbench.ceph import caches
from tests.helpers import needs_root

MEMINFO = "MemTotal:       24684092 kB\nMemFree:        20000000 kB\nCached:          1234567 kB\nSwapCached:            0 kB\n"


def test_cached_is_read_from_meminfo():
    assert caches.cached_bytes(MEMINFO) == 1234567 * 1024  # not SwapCached


@needs_root
def test_drop_empties_a_cache_we_filled(tmp_path):
    data = tmp_path / "warm.bin"
    data.write_bytes(b"\1" * (128 << 20))
    data.read_bytes()  # now in the page cache
    sizes = caches.drop()
    assert sizes["cached_after"] < sizes["cached_before"] - (100 << 20)
