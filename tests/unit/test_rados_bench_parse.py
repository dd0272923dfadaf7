"""rados bench's text report (recorded from the lab, Ceph 16.2.15), and older key spellings."""

from __future__ import annotations

import json
import re

import pytest

from cephbench.errors import ParseError
from cephbench.tools.rados_bench import driver as rados_bench
from tests.helpers import DATA

RADOS = DATA / "rados-bench" / "16.2.15"


@pytest.mark.parametrize("mode", rados_bench.MODES)
def test_matches_expected(mode):
    out = rados_bench.parse((RADOS / f"{mode}.txt").read_text(), mode)
    expected = json.loads((RADOS / f"{mode}.expected.json").read_text())
    assert out.summary == expected["summary"]
    assert [list(p) for p in out.series] == expected["series"]
    assert rados_bench.to_result(out, 0, 16).to_json() == expected["result"]


def test_result_units_are_bytes_and_microseconds():
    r = rados_bench.to_result(rados_bench.parse((RADOS / "write.txt").read_text(), "write"), 2, 16)
    assert (r.op, r.rw, r.repeat, r.iodepth, r.bs) == ("write", "write", 2, 16, 4 << 20)
    assert r.bw_bytes_per_s == pytest.approx(86.1368 * 2**20)  # rados bench's MB is MiB
    assert r.lat_mean_us == pytest.approx(728815) and r.lat_max_us == pytest.approx(2095810)
    assert r.total_ios == 68 and r.io_bytes == 68 * (4 << 20)
    assert dict(r.metrics)["lat_min_us"] == pytest.approx(184517)
    assert dict(r.metrics)["iops_stddev"] == pytest.approx(13.5031)


def test_reads_are_read_rows_and_seq_has_no_latency_stddev():
    seq = rados_bench.to_result(rados_bench.parse((RADOS / "seq.txt").read_text(), "seq"), 0, 16)
    rand = rados_bench.to_result(rados_bench.parse((RADOS / "rand.txt").read_text(), "rand"), 0, 16)
    assert (seq.op, seq.rw, rand.op, rand.rw) == ("read", "seq", "read", "rand")
    assert "lat_stddev_us" not in dict(seq.metrics)  # 16.2 prints none for seq: None, not 0


def _older(text: str) -> str:
    """The key spellings of older releases: no "(s)" unit suffix, "Bandwidth (MB/sec): "."""
    text = re.sub(r"(Latency|latency)\(s\):", r"\1:", text)
    return text.replace("Bandwidth (MB/sec):", "Bandwidth (MB/sec): ")


@pytest.mark.parametrize("mode", rados_bench.MODES)
def test_older_key_spellings_parse_the_same(mode):
    text = (RADOS / f"{mode}.txt").read_text()
    older = _older(text)
    assert older != text and "Average Latency:" in older
    assert rados_bench.parse(older, mode).summary == rados_bench.parse(text, mode).summary


def test_no_summary_is_a_parse_error():
    with pytest.raises(ParseError, match="Must write data"):
        rados_bench.parse("hints = 1\nMust write data before running a read benchmark!\n", "seq")


def test_argv_keeps_write_objects_and_names_the_run():
    args = rados_bench.argv("p", "write", 5, concurrent=8, object_size=1 << 20, run_name="cb-1")
    assert args == [
        "-p",
        "p",
        "bench",
        "5",
        "write",
        "-t",
        "8",
        "--run-name",
        "cb-1",
        "--no-cleanup",
        "-b",
        "1048576",
    ]
    assert "--no-cleanup" not in rados_bench.argv(
        "p", "seq", 5, concurrent=8, object_size=None, run_name="x"
    )


def test_jewel_seq_average_iops_without_a_colon():
    """Jewel's seq_read_bench printed ``"Average IOPS          "`` (obj_bencher.cc, 10.2)."""
    text = (
        (RADOS / "seq.txt")
        .read_text()
        .replace("Average IOPS:         125", "Average IOPS          125")
    )
    assert "Average IOPS:" not in text
    assert (
        rados_bench.parse(text, "seq").summary
        == rados_bench.parse((RADOS / "seq.txt").read_text(), "seq").summary
    )


def test_no_iops_printed_is_derived_and_flagged():
    text = "\n".join(
        ln for ln in (RADOS / "write.txt").read_text().splitlines() if "IOPS" not in ln
    )
    r = rados_bench.to_result(rados_bench.parse(text, "write"), 0, 16)
    assert r.iops == pytest.approx(68 / 3.15777) and r.flags == ("iops_derived",)
    assert r.lat_mean_us == 728815.0  # as printed, no binary noise


def test_show_time_stamps_and_three_digit_figures():
    stamped = (RADOS / "write-showtime.txt").read_text()
    out = rados_bench.parse(stamped, "write")
    assert out.summary["total_time"] == 3.12111 and [p[0] for p in out.series] == [1.0, 2.0, 3.0]
    assert (
        rados_bench.parse(
            "Total time run: 300.1\nTotal reads made: 1\nBandwidth (MB/sec):   1.03e+03\n", "rand"
        ).summary["bw"]
        == 1030.0
    )
