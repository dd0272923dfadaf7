"""--drop-caches: the page cache really is dropped before each workload, and it is verified."""

from __future__ import annotations

from cephbench.ceph import caches
from cephbench.store import Store
from tests.conftest import needs_fio, needs_root

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


@needs_root
@needs_fio
def test_run_drops_before_every_workload(invoke, invoke_json, bench_dir, db):
    invoke(
        "run",
        "quick",
        "--target",
        f"file:{bench_dir}",
        "--runtime",
        "1",
        "--size",
        "16m",
        "--drop-caches",
    )
    run = invoke_json("show", "last")
    assert run["status"] == "complete" and run["params"]["drop_caches"] is True
    with Store(db) as store:
        assert (
            len(store.outputs(run["id"])) == 4
        )  # one fio process per workload, to drop in between
        drops = [v for s in store.series(run["id"], "drop_caches") for v in s.values]
    assert len(drops) == 4
