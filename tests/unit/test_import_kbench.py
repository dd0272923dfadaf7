"""kbench's summary imports exactly: every figure as printed, one workload per figure (each
comes from a fio job of its own). Recorded output: tests/data/kbench/ (see PROVENANCE.md)."""

from __future__ import annotations

from cephbench.importing import importer
from tests.helpers import DATA

KBENCH = DATA / "kbench" / "kube-fio-bench.md"


def _figures(run) -> dict[str, float | None]:
    out = {}
    for r in run.results:
        kind = r.workload.rsplit("_", 1)[1]
        out[r.workload] = {"iops": r.iops, "bw": r.bw_bytes_per_s, "lat": r.lat_mean_us}[kind]
    return out


def test_a_published_post_of_four_classes_is_four_runs():
    plans = importer.plan(KBENCH.name, KBENCH.read_text(), None)
    assert [p.found.parser for p in plans] == ["kbench"] * 4
    ceph_block = plans[1].as_run()
    assert _figures(ceph_block) == {
        "rand_read_iops": 35205.0,
        "rand_write_iops": 765.0,
        "seq_read_iops": 39286.0,
        "seq_write_iops": 867.0,
        "rand_read_bw": 1117899 * 1024.0,
        "rand_write_bw": 95300 * 1024.0,
        "seq_read_bw": 1178934 * 1024.0,
        "seq_write_bw": 107599 * 1024.0,
        "rand_read_lat": 120.223,
        "rand_write_lat": 6361.935,
        "seq_read_lat": 54.457,
        "seq_write_lat": 5398.745,
    }
    assert ceph_block.params["kbench"] == {
        "For": "test_device",
        "CPU Idleness Profiling": "disabled",
        "Size": "30G",
        "Quick Mode": "disabled",
    }
    nfs = _figures(plans[3].as_run())
    assert nfs["rand_write_iops"] == 62.0 and nfs["seq_write_lat"] == 62328.673
    for r in ceph_block.results:  # only the figure printed: nothing derived
        kind = r.workload.rsplit("_", 1)[1]
        assert (r.iops is not None, r.bw_bytes_per_s is not None, r.lat_mean_us is not None) == (
            kind == "iops", kind == "bw", kind == "lat",
        )  # fmt: skip
        assert r.rw == {"rand": {"read": "randread", "write": "randwrite"},
                        "seq": {"read": "read", "write": "write"}}[r.workload[:4].rstrip("_")][r.op]  # fmt: skip
