"""``ceph tell osd.N bench`` JSON and ``ceph osd metadata`` (recorded from the lab, 16.2.15),
and the per-OSD table."""

from __future__ import annotations

import json

import pytest

from cephbench.errors import ParseError
from cephbench.model import Result, Run
from cephbench.tools.osd_bench import driver as osd_bench
from cephbench.tools.osd_bench.table import osd_table
from tests.helpers import DATA

CEPH = DATA / "ceph" / "16.2.15"


def test_parse_bench_json():
    r = osd_bench.parse((CEPH / "osd-bench.json").read_text(), 0)
    assert (r.workload, r.op, r.bs, r.io_bytes) == ("osd.0", "write", 4 << 20, 64 << 20)
    assert r.bw_bytes_per_s == pytest.approx(1299351486.587)
    assert r.iops == pytest.approx(309.7895) and r.runtime_s == pytest.approx(0.051648)
    assert r.total_ios == 16


def test_error_text_is_a_parse_error():
    with pytest.raises(ParseError, match=r"osd\.3"):
        osd_bench.parse("Error EINVAL: 'count' values greater than 1073741824", 3)


def test_up_osds_and_metadata():
    assert osd_bench.up_osds(json.loads((CEPH / "osd-dump.json").read_text())) == [0, 1, 2]
    info = osd_bench.osd_info(
        json.loads((CEPH / "osd-metadata.json").read_text()),
        json.loads((CEPH / "osd-tree.json").read_text()),
    )
    assert sorted(info) == ["0", "1", "2"]
    assert info["0"]["device_class"] == "hdd" and info["0"]["objectstore"] == "bluestore"
    assert info["0"]["host"] and info["0"]["model"] and info["0"]["rotational"] is True


def _run(bws: list[float]) -> Run:
    results = tuple(
        Result(
            f"osd.{i}",
            0,
            "write",
            bs=4 << 20,
            io_bytes=1 << 30,
            bw_bytes_per_s=bw,
            iops=bw / (4 << 20),
            runtime_s=1.0,
        )
        for i, bw in enumerate(bws)
    )
    osds = {str(i): {"host": f"h{i}", "device_class": "ssd", "model": "X"} for i in range(len(bws))}
    return Run(
        1, None, "osd", "ceph:cluster", "complete", "t", environment={"osds": osds}, results=results
    )


def test_table_sorted_fastest_first_with_ratio_to_median_and_slow_marked():
    t = osd_table(_run([400e6, 100e6, 410e6, 390e6]))
    assert [row[0] for row in t.rows] == ["osd.2", "osd.0", "osd.3", "osd.1 (slow)"]
    ratios = [row[-1] for row in t.rows]
    assert ratios[-1] == f"{100e6 / 395e6:.2f}" and ratios[0] == f"{410e6 / 395e6:.2f}"
    assert t.rows[0][1:4] == ("h2", "ssd", "X")


def test_older_and_crimson_json_shapes():
    firefly = osd_bench.from_data(
        {"bytes_written": 1073741824, "blocksize": 4194304, "bytes_per_sec": "57934123.000000"},
        "osd.0",
    )
    assert (firefly.bw_bytes_per_s, firefly.runtime_s, firefly.flags) == (
        57934123.0,
        None,
        ("iops_derived",),
    )
    assert firefly.iops == pytest.approx(57934123 / 4194304)
    crimson = osd_bench.from_data(
        {
            "osd_bench_results": {
                "bytes_written": 1073741824,
                "blocksize": 4194304,
                "elapsed_sec": 0.5,
                "bytes_per_sec": 2147483648,
                "iops": 512,
            }
        },
        "osd.1",
    )
    assert (crimson.iops, crimson.runtime_s, crimson.flags) == (512.0, 0.5, ())
    with pytest.raises(ParseError):
        osd_bench.from_data({"bytes_written": 1, "bytes_per_sec": "fast"}, "osd.2")
