"""fio's log files as time series: real logs recorded with fio 3.33 (tests/data/fio/3.33/logs,
each beside fio's own JSON report of the same run), small hand-made logs for the exact rules,
and a differential fuzz against a plain line-by-line reader."""

from __future__ import annotations

import io
import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cephbench.errors import ParseError
from cephbench.store import Store
from cephbench.tools.fio import logs
from tests.helpers import FIO_DATA

CASES = FIO_DATA / "logs"
CASE_NAMES = sorted(p.parent.name for p in CASES.glob("*/expected.json"))
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
BUCKET = 1 / 64  # fio's latency histogram: 64 buckets per power of two


def case(name: str) -> tuple[Path, dict, dict]:
    folder = CASES / name
    return (
        folder,
        json.loads((folder / "expected.json").read_text()),
        json.loads((folder / "fio.json").read_text()),
    )


def by_key(series) -> dict[tuple[str, str], logs.Series]:
    return {(s.op, s.metric): s for s in series}


# -- recorded logs ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", CASE_NAMES)
def test_recorded_logs_give_the_expected_series(name):
    folder, expected, _ = case(name)
    series = logs.collect(folder, workload=name, **expected["collect"])
    assert [(s.op, s.metric) for s in series] == [
        (e["op"], e["metric"]) for e in expected["series"]
    ]
    for s, e in zip(series, expected["series"], strict=True):
        assert (s.workload, s.repeat) == (name, 0)
        assert s.t_s.dtype == np.float64 and s.values.dtype == np.float64
        assert s.t_s.tolist() == pytest.approx(e["t_s"], rel=1e-12)
        assert s.values.tolist() == pytest.approx(e["values"], rel=1e-12)
        assert (np.diff(s.t_s) > 0).all()


def test_fixtures_are_small():
    assert len(CASE_NAMES) == 7
    for path in CASES.rglob("*"):
        assert not path.is_file() or path.stat().st_size < 200_000, path


@pytest.mark.parametrize("name", ["perio_numjobs2", "randrw_perio"])
def test_per_io_percentiles_agree_with_fio_per_clone(name):
    """Each clone's log against fio's own report of that clone: same I/Os, mean, min, max;
    percentiles within fio's histogram bucket (fio reports a bucket's middle)."""
    folder, _, report = case(name)
    lat_logs = [logs.read_log(p) for p in logs.find_logs(folder, report["jobs"][0]["jobname"])]
    lat_logs = [g for g in lat_logs if g.kind == "lat"]
    assert len(lat_logs) == len(report["jobs"])
    for log, job in zip(lat_logs, report["jobs"], strict=True):
        summary = {s.op: s for s in logs.latency_summary([log])}
        for op in ("read", "write"):
            fio = job[op]
            if not fio["total_ios"]:
                assert op not in summary
                continue
            ours = summary[op]
            assert ours.samples == fio["total_ios"]
            assert ours.mean_us == pytest.approx(fio["lat_ns"]["mean"] / 1000, rel=1e-9)
            assert ours.min_us == fio["lat_ns"]["min"] / 1000
            assert ours.max_us == fio["lat_ns"]["max"] / 1000
            for percent, us in ours.percentiles:
                reported = fio["lat_ns"]["percentile"][f"{percent:.6f}"] / 1000
                assert us == pytest.approx(reported, rel=BUCKET), (op, percent)


@pytest.mark.parametrize("name", ["perio_numjobs2", "randrw_perio"])
def test_per_io_series_account_for_every_io_and_byte(name):
    folder, expected, report = case(name)
    series = by_key(logs.collect(folder, **expected["collect"]))
    for op in ("read", "write"):
        total_ios = sum(job[op]["total_ios"] for job in report["jobs"])
        io_bytes = sum(job[op]["io_bytes"] for job in report["jobs"])
        if not total_ios:
            continue
        iops, bw = series[op, "iops"], series[op, "bw_bytes_per_s"]
        seconds = np.diff(iops.t_s, prepend=0.0)
        assert round(float((iops.values * seconds).sum())) == total_ios
        assert round(float((bw.values * seconds).sum())) == io_bytes
        assert (
            series[op, "lat_max_us"].values.max()
            == max(j[op]["lat_ns"]["max"] for j in report["jobs"]) / 1000
        )
        assert (series[op, "lat_p99_us"].values <= series[op, "lat_max_us"].values).all()
        assert (series[op, "lat_mean_us"].values <= series[op, "lat_max_us"].values).all()


def test_randrw_log_holds_both_directions():
    folder, expected, _ = case("randrw_perio")
    series = logs.collect(folder, **expected["collect"])
    assert {s.op for s in series} == {"read", "write"}
    reads, writes = by_key(series)["read", "iops"].values, by_key(series)["write", "iops"].values
    assert reads.mean() == pytest.approx(2 * writes.mean(), rel=0.05)  # rate_iops=1200,600


@pytest.mark.parametrize("name", ["avg_numjobs2", "epoch_avg", "shared_file"])
def test_averaged_logs_agree_with_fio_totals(name):
    """Window rates x window length add up to fio's I/O count (fio logs no last partial
    window, so a little less), and the IOPS-weighted window means to fio's mean latency."""
    folder, expected, report = case(name)
    interval = expected["collect"]["interval_ms"] / 1000
    series = by_key(logs.collect(folder, **expected["collect"]))
    total_ios = sum(job["read"]["total_ios"] for job in report["jobs"])
    iops = series["read", "iops"]
    assert 0.85 * total_ios <= (iops.values * interval).sum() <= 1.01 * total_ios
    lat = series["read", "lat_mean_us"]
    common, at_iops, at_lat = np.intersect1d(iops.t_s, lat.t_s, return_indices=True)
    assert len(common) >= len(iops.t_s) - 1
    weighted = np.average(lat.values[at_lat], weights=iops.values[at_iops])
    fio_mean = (
        sum(j["read"]["lat_ns"]["mean"] * j["read"]["total_ios"] for j in report["jobs"])
        / total_ios
    )
    assert weighted == pytest.approx(fio_mean / 1000, rel=0.05)


def test_averaged_clones_add_up_by_hand():
    """avg_numjobs2: the first window's IOPS is the sum of the two clones' first lines, its
    latency their IOPS-weighted mean; bandwidth is KiB/s x 1024."""
    folder, expected, _ = case("avg_numjobs2")
    series = by_key(logs.collect(folder, **expected["collect"]))

    def first(name: str) -> int:
        return int((folder / name).read_text().split(",")[1])

    i1, i2 = first("rr_iops.1.log"), first("rr_iops.2.log")
    assert series["read", "iops"].t_s[0] == 0.2
    assert series["read", "iops"].values[0] == i1 + i2
    assert series["read", "bw_bytes_per_s"].values[0] == 1024 * (
        first("rr_bw.1.log") + first("rr_bw.2.log")
    )
    weighted = (first("rr_lat.1.log") * i1 + first("rr_lat.2.log") * i2) / (i1 + i2) / 1000
    assert series["read", "lat_mean_us"].values[0] == pytest.approx(weighted, rel=1e-12)


def test_windows_without_io_are_zero_and_each_line_one_window():
    """avg_gaps: two clones at 4 IOPS each, logs averaged over 100 ms. fio writes a line only
    for a window with I/O, so most steps between lines are 2 or 3 windows. Read over the
    window fio was asked for, each line counts for one window and the windows between are 0:
    the I/Os add up to fio's own count (its median step, 200 ms, would double them)."""
    folder, _, report = case("avg_gaps")
    total_ios = sum(job["read"]["total_ios"] for job in report["jobs"])
    iops = by_key(logs.collect(folder, prefix="gp", interval_ms=100))["read", "iops"]
    assert np.allclose(np.diff(iops.t_s), 0.1)  # one grid, every window on it
    lines = [np.loadtxt(folder / f"gp_iops.{k}.log", delimiter=",", ndmin=2) for k in (1, 2)]
    assert (iops.values == 0).sum() >= len(iops.values) // 3
    assert iops.values.sum() == sum(g[:, 1].sum() for g in lines)  # every line, once
    assert 0.9 * total_ios <= (iops.values * 0.1).sum() <= 1.01 * total_ios
    steps = np.diff(lines[0][:, 0])
    assert np.median(steps) >= 200  # what a guess from the median step would take


def test_the_window_guessed_from_the_shortest_steps():
    """Most windows empty (steps of 2 and 3 windows, a few of 1): the window is the single
    step, not the median one."""
    stamps = list(itertools.accumulate([101, 202, 303, 98, 201, 302, 200, 100, 299, 201, 203]))
    text = "".join(f"{t}, 10, 0, 0, 0\n" for t in stamps).encode()
    log = logs.parse_log(text, "g_iops.1.log", kind="iops", clone=1)
    (iops,) = [s for s in logs.series([log], workload="w") if s.metric == "iops"]
    assert np.allclose(np.diff(iops.t_s), 0.1, atol=0.002)  # 98 and 100 ms: 99
    # the 10 steps are 2, 3, 1, 2, 3, 2, 1, 3, 2, 2 windows: 22 windows, 11 of them logged
    assert len(iops.values) == 22 and (iops.values == 10).sum() == len(stamps)


@pytest.mark.parametrize("name", ["avg_numjobs2", "epoch_avg", "shared_file", "max_value"])
def test_averaged_window_is_found_in_the_logs(name):
    folder, expected, _ = case(name)
    args = {k: v for k, v in expected["collect"].items() if k != "interval_ms"}
    found = logs.collect(folder, **args)
    assert [(s.t_s.tolist(), s.values.tolist()) for s in found] == [
        (e["t_s"], e["values"]) for e in expected["series"]
    ]


def test_epoch_times_start_at_the_first_window():
    folder, expected, _ = case("epoch_avg")
    found = [logs.read_log(p) for p in logs.find_logs(folder, "ep")]
    assert all(g.epoch and g.averaged for g in found)
    lat = by_key(logs.collect(folder, **expected["collect"]))["read", "lat_mean_us"]
    assert lat.t_s[0] == 0.25
    assert np.diff(lat.t_s) == pytest.approx(0.25)


def test_max_value_logs_give_the_max_latency():
    folder, expected, report = case("max_value")
    series = logs.collect(folder, **expected["collect"])
    assert [s.metric for s in series] == ["lat_max_us"]
    assert series[0].values.max() == report["jobs"][0]["read"]["lat_ns"]["max"] / 1000


def test_shared_file_is_split_into_its_clones():
    """per_job_logs=0: both clones in sh_iops.log, one after the other; the first window is
    the sum of each clone's first line, not their mean."""
    folder, expected, _ = case("shared_file")
    lines = (folder / "sh_iops.log").read_text().splitlines()
    restart = next(
        i
        for i in range(1, len(lines))
        if int(lines[i].split(",")[0]) < int(lines[i - 1].split(",")[0])
    )
    iops = by_key(logs.collect(folder, **expected["collect"]))["read", "iops"]
    assert iops.values[0] == int(lines[0].split(",")[1]) + int(lines[restart].split(",")[1])


def test_series_round_trip_through_the_store(tmp_path):
    folder, expected, _ = case("randrw_perio")
    series = logs.collect(folder, workload="mixed", repeat=2, **expected["collect"])
    with Store(tmp_path / "results.db") as store:
        run_id = store.start_run(label=None, suite="s", target="file:/x", environment={}, params={})
        store.add_series(run_id, series)
        back = store.series(run_id)
    assert len(back) == len(series)
    for a, b in zip(series, back, strict=True):
        assert (a.repeat, a.workload, a.op, a.metric) == (b.repeat, b.workload, b.op, b.metric)
        assert np.array_equal(a.t_s, b.t_s) and np.array_equal(a.values, b.values)


def test_find_logs_matches_the_prefix_exactly(tmp_path):
    for name in (
        "a_lat.1.log",
        "a_lat.2.log",
        "a_iops.1.log",
        "a_clat.log",
        "a_x_lat.1.log",
        "ab_lat.1.log",
        "a_lat.1.log.fz",
        "a_hist.1.log",
    ):
        (tmp_path / name).write_text("")
    assert [p.name for p in logs.find_logs(tmp_path, "a")] == [
        "a_lat.1.log",
        "a_lat.2.log",
        "a_clat.log",
        "a_iops.1.log",
    ]
    assert logs.collect(tmp_path, "a") == []  # empty logs (fio's slat of a sync engine)


def test_job_options():
    assert logs.job_options("w1") == {
        "write_lat_log": "w1",
        "write_iops_log": "w1",
        "write_bw_log": "w1",
        "log_avg_msec": "1000",
    }
    assert logs.job_options("w1", per_io_latency=True) == {
        "write_lat_log": "w1",
        "log_avg_msec": "0",
    }


# -- the rules, on hand-made logs -----------------------------------------------------------


def log_of(lines: list[str], kind: str = "lat", clone: int = 1) -> logs.Log:
    return logs.parse_log(
        "".join(f"{ln}\n" for ln in lines).encode(), f"x_{kind}.{clone}.log", kind, clone
    )


def test_columns_and_their_types():
    log = logs.parse_log(b"0, 11281, 0, 4096, 0\n5334, 60, 1, 512, 0\n")
    assert log.t_ms.tolist() == [0, 5334] and log.value.tolist() == [11281, 60]
    assert log.ddir.tolist() == [0, 1] and log.bs.tolist() == [4096, 512]
    assert (log.t_ms.dtype, log.value.dtype, log.ddir.dtype, log.bs.dtype) == (
        np.int64,
        np.int64,
        np.int8,
        np.int32,
    )
    assert not log.averaged and not log.epoch and log.lines_per_direction == (1, 1, 0)


@pytest.mark.parametrize(
    "text",
    [
        b"251, 453076, 0, 4096, 4046848, 0x0000\n",  # log_offset=1 and log_prio=1
        b"251, 453076, 0, 4096, 0",  # no newline at the end
        b"251, 453076, 0, 4096, 0\r\n",  # CRLF: \r lands in a column not read
    ],
)
def test_accepted_variants(text):
    log = logs.parse_log(text)
    assert (log.t_ms.tolist(), log.value.tolist(), log.bs.tolist()) == ([251], [453076], [4096])


def test_long_fields():
    log = logs.parse_log(b"1795267281381, 123456789012, 2, 2147483647, 0\n")
    assert log.t_ms.tolist() == [1795267281381] and log.value.tolist() == [123456789012]
    assert log.ddir.tolist() == [2] and log.bs.tolist() == [2**31 - 1] and log.epoch


def test_empty_log():
    log = logs.parse_log(b"")
    assert len(log) == 0 and not log.averaged
    assert logs.series([log], workload="w") == [] and logs.latency_summary([log]) == []


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (b"1, 2, 0, 4096, 0\n1, 2.5, 0, 4096, 0\n", 2),  # a float
        (b"1, 2, 0, 4096, 0\n1, -2, 0, 4096, 0\n", 2),  # negative
        (b"1, 2, 0, 4096, 0\n1, 2, 0, 4096\n", 2),  # a column short
        (b"1, 2, 0, 4096, 0\n1, 2, 0, 4096, 0, 0\n", 2),  # a column more than line 1
        (b"1, 2, 0, 4096, 0, 0, 0\n", 1),
        (b"1, 2, 3, 4096, 0\n", 1),  # direction 3
        (b"1, 2, 10, 4096, 0\n", 1),
        (b"1, 2, 0, 4096, 0\n\n1, 2, 0, 4096, 0\n", 2),  # an empty line
        (b"1, 2,  0, 4096, 0\n", 1),  # two spaces
        (b"1,2, 0, 4096, 0\n", 1),
        (b"1, , 0, 4096, 0\n", 1),
        (b"1, 12345678901234567, 0, 4096, 0\n", 1),  # 17 digits
        (b"1, 2, 0, 4294967296, 0\n", 1),  # block size beyond 32 bits
        (b"time, value, ddir, bs, offset\n", 1),
        (b"1, 2, 0, 4096, 0\n" * 3 + b"1, 2\xff, 0, 4096, 0\n", 4),
        (b"1, 2, 0, 4096, 0\n" * 3 + b" 1, 2, 0, 4096, 0\n", 4),  # a space first (the fuzz)
        (b"1, 2, 0, 4096, 0\n1, 2, 0, 4096, 0 \n", 2),  # a space last
    ],
)
def test_malformed_lines_name_file_and_line(text, line):
    with pytest.raises(ParseError, match=rf"^bad_lat\.1\.log, line {line}: "):
        logs.parse_log(text, "bad_lat.1.log")


def test_repeated_fields_are_read_once_and_still_checked():
    """Times and block sizes repeat line after line; each run is converted once."""
    text = "".join(f"{i // 10}, {i}, 0, {4096 if i < 500 else 512}, 0\n" for i in range(1000))
    log = logs.parse_log(text.encode())
    assert log.t_ms.tolist() == [i // 10 for i in range(1000)] and log.value.tolist() == list(
        range(1000)
    )
    assert log.bs.tolist() == [4096] * 500 + [512] * 500
    bad = "7, 1, 0, 4096, 0\n" * 50 + "x, 1, 0, 4096, 0\n" * 50
    with pytest.raises(ParseError, match="line 51: "):
        logs.parse_log(bad.encode())


def test_per_io_series_by_hand():
    """1 s intervals; the 2 ms tail (I/Os at 2000 and 2001 ms) joins the second interval."""
    log = log_of(
        [
            "5, 100, 0, 4096, 0",
            "700, 300, 0, 4096, 0",
            "999, 200, 0, 8192, 0",
            "1500, 1000, 0, 4096, 0",
            "2000, 400, 0, 4096, 0",
            "2001, 600, 0, 4096, 0",
            "1200, 50, 1, 4096, 0",
        ]
    )
    s = by_key(logs.series([log], workload="w"))
    assert s["read", "iops"].t_s.tolist() == [1.0, 2.002]
    assert s["read", "iops"].values.tolist() == [3.0, 3 / 1.002]
    assert s["read", "bw_bytes_per_s"].values.tolist() == [16384.0, 12288 / 1.002]
    assert s["read", "lat_mean_us"].values.tolist() == [0.2, 2000 / 3 / 1000]
    assert s["read", "lat_p99_us"].values.tolist() == [0.3, 1.0]
    assert s["read", "lat_max_us"].values.tolist() == [0.3, 1.0]
    assert s["write", "iops"].values.tolist() == [0.0, 1 / 1.002]  # no write in the first second
    assert s["write", "lat_mean_us"].t_s.tolist() == [2.002]  # nor a latency to show for it


def test_stall_gives_zero_iops_and_no_latency_point():
    log = log_of(["100, 10, 0, 4096, 0", "3500, 10, 0, 4096, 0"])
    s = by_key(logs.series([log], workload="w"))
    assert s["read", "iops"].values.tolist() == [1.0, 0.0, 0.0, 1 / 0.501]
    assert s["read", "lat_max_us"].t_s.tolist() == [1.0, 3.501]


def test_per_io_percentile_rule():
    """The smallest sample whose cumulative count reaches p% of all (fio's rule)."""
    log = log_of(
        [f"{i}, {v}, 0, 4096, 0" for i, v in enumerate([5000, 1000, 3000, 2000, 4000] * 200)]
    )
    (summary,) = logs.latency_summary([log], percentiles=(20.0, 20.1, 50.0, 99.9, 100.0))
    assert summary.percentiles == ((20.0, 1.0), (20.1, 2.0), (50.0, 3.0), (99.9, 5.0), (100.0, 5.0))
    assert (summary.samples, summary.mean_us, summary.min_us, summary.max_us) == (
        1000,
        3.0,
        1.0,
        5.0,
    )
    assert (
        logs.rank(99.99, 10_000) == 9999
        and logs.rank(99.99, 10_001) == 10_000
        and logs.rank(50, 1) == 1
    )


def test_percentiles_leave_the_logs_alone_unless_told():
    values = [5000, 1000, 3000, 2000, 4000]
    log = log_of([f"{i}, {v}, 0, 4096, 0" for i, v in enumerate(values)])
    first = logs.latency_summary([log])
    assert log.value.tolist() == values
    assert logs.latency_summary([log], overwrite_input=True) == first
    assert sorted(log.value.tolist()) == sorted(values)


def test_clones_merge_per_io():
    a = log_of(["10, 1000, 0, 4096, 0", "20, 3000, 0, 4096, 0"], clone=1)
    b = log_of(["15, 2000, 0, 4096, 0"], clone=2)
    (summary,) = logs.latency_summary([a, b], percentiles=(50.0,))
    assert summary.percentiles == ((50.0, 2.0),) and summary.samples == 3
    s = by_key(logs.series([a, b], workload="w"))
    assert s["read", "iops"].values.tolist() == [3 / 0.021]
    assert s["read", "lat_p99_us"].values.tolist() == [3.0]


def test_unsorted_per_io_log_is_sorted():
    rows = [f"{t}, {t}, 0, 4096, 0" for t in np.random.default_rng(1).permutation(2000)]
    s = by_key(logs.series([log_of(rows)], workload="w"))
    assert s["read", "iops"].values.tolist() == [1000.0, 1000.0]
    assert s["read", "lat_max_us"].values.tolist() == [0.999, 1.999]


def test_averaged_latency_weighted_by_the_clones_iops():
    lat = [
        log_of(
            ["1000, 100000, 0, 0, 0", "2000, 100000, 0, 0, 0", "3000, 100000, 0, 0, 0"], clone=1
        ),
        log_of(
            ["1001, 400000, 0, 0, 0", "2000, 400000, 0, 0, 0", "3002, 400000, 0, 0, 0"], clone=2
        ),
    ]
    iops = [
        log_of(["999, 300, 0, 0, 0", "2000, 0, 0, 0, 0"], "iops", 1),
        log_of(["1000, 100, 0, 0, 0", "2001, 0, 0, 0, 0"], "iops", 2),
    ]
    s = by_key(logs.series(lat + iops, workload="w"))
    assert s["read", "iops"].t_s.tolist() == [1.0, 2.0]
    assert s["read", "iops"].values.tolist() == [400.0, 0.0]
    # 1 s: weighted 3:1; 2 s: weights all 0, 3 s: no IOPS line: plain means
    assert s["read", "lat_mean_us"].values.tolist() == [175.0, 250.0, 250.0]
    assert s["read", "lat_mean_us"].t_s.tolist() == [1.0, 2.0, 3.0]


def test_averaged_max_values_take_the_max_over_clones():
    lat = [
        log_of(["1000, 100000, 0, 0, 0"], clone=1),
        log_of(["1000, 400000, 1, 0, 0"], clone=2),
        log_of(["1000, 300000, 1, 0, 0"], clone=3),
    ]
    s = by_key(logs.series(lat, workload="w", max_values=True))
    assert s["read", "lat_max_us"].values.tolist() == [100.0]
    assert s["write", "lat_max_us"].values.tolist() == [400.0]


def test_averaged_epoch_origin_is_the_first_window_start():
    lat = log_of(["1700000000500, 1000, 0, 0, 0", "1700000001500, 1000, 0, 0, 0"])
    bw = log_of(["1700000000499, 4, 0, 0, 0"], "bw")
    s = by_key(logs.series([lat, bw], workload="w"))
    assert s["read", "lat_mean_us"].t_s.tolist() == [1.0, 2.0]
    assert s["read", "bw_bytes_per_s"].values.tolist() == [4096.0]


def test_epoch_and_relative_times_do_not_mix():
    with pytest.raises(ParseError, match="unix-epoch"):
        logs.series(
            [log_of(["1700000000500, 1, 0, 4096, 0"]), log_of(["500, 1, 0, 4096, 0"], clone=2)],
            workload="w",
        )


def test_exact_percentiles_refuse_averaged_logs():
    with pytest.raises(ParseError, match="averaged"):
        logs.latency_summary([log_of(["1000, 100000, 0, 0, 0"])])


# -- reading files in chunks, in threads ---------------------------------------------------


def test_chunks_and_threads_read_the_same(tmp_path, monkeypatch):
    source = CASES / "randrw_perio" / "mixed_lat.1.log"
    whole = logs.parse_log(source.read_bytes())
    monkeypatch.setattr(logs.reader, "CHUNK_BYTES", 4096)
    for threads in (1, 2):
        log = logs.read_log(source, threads=threads)
        assert (log.kind, log.clone) == ("lat", 1)
        for column in ("t_ms", "value", "ddir", "bs"):
            assert np.array_equal(getattr(log, column), getattr(whole, column))


def test_error_line_number_counts_earlier_chunks(tmp_path, monkeypatch):
    lines = ["1, 2, 0, 4096, 0"] * 5000
    lines[4321] = "1, 2, 0, 4096"
    path = tmp_path / "w_lat.1.log"
    path.write_text("\n".join(lines))
    monkeypatch.setattr(logs.reader, "CHUNK_BYTES", 1000)
    for threads in (1, 2):
        with pytest.raises(ParseError, match=r"^w_lat\.1\.log, line 4322: "):
            logs.read_log(path, threads=threads)


def test_a_line_longer_than_a_chunk(tmp_path, monkeypatch):
    path = tmp_path / "w_lat.1.log"
    path.write_text("1, 2, 0, 4096, " + "0" * 300 + "\n")
    monkeypatch.setattr(logs.reader, "CHUNK_BYTES", 100)
    with pytest.raises(ParseError, match="longer than 100 bytes"):
        logs.read_log(path)
    monkeypatch.setattr(logs.reader, "CHUNK_BYTES", 1000)
    assert logs.read_log(path).bs.tolist() == [4096]


def test_only_the_size_seen_at_open_is_read():
    """A log fio is still appending to is read as it was when its size was taken."""
    text = b"1, 2, 0, 4096, 0\n1, 3, 0, 4096, 0\n1, 4, 0"
    _, value, _, _ = logs._read_columns(io.BytesIO(text), 34, "x", 1)
    assert value.tolist() == [2, 3]


# -- fuzz: the vectorised reader against a line-by-line one --------------------------------


def reference(text: bytes) -> list[tuple[int, int, int, int]] | int:
    """The rows of ``text``, or the 1-based numbers of its bad lines, read one line at a time."""
    if not text:
        return []
    lines = text.removesuffix(b"\n").split(b"\n")
    columns = lines[0].count(b",") + 1
    rows, bad = [], []
    for number, line in enumerate(lines, 1):
        fields = line.split(b", ")
        numbers = [fields[i] for i in (0, 1, 3)] if len(fields) == columns >= 5 else []
        if (
            columns not in (5, 6)
            or len(fields) != columns
            or any(b"," in f or b" " in f for f in fields)
            or not all(f.isdigit() and len(f) <= 16 for f in numbers)
            or fields[2] not in (b"0", b"1", b"2")
            or int(fields[3]) >= 2**31
        ):
            bad.append(number)
        else:
            rows.append((int(fields[0]), int(fields[1]), int(fields[2]), int(fields[3])))
    return bad if bad else rows


def same_as_reference(text: bytes) -> None:
    expected = reference(text)
    try:
        log = logs.parse_log(text, "f_lat.1.log")
    except ParseError as e:
        assert isinstance(expected, list) and expected and isinstance(expected[0], int), (
            text,
            str(e),
        )
        line = int(str(e).split("line ")[1].split(":")[0]) if "line " in str(e) else None
        assert line is None or line in expected, (text, str(e), expected)
        return
    assert (
        list(
            zip(
                log.t_ms.tolist(),
                log.value.tolist(),
                log.ddir.tolist(),
                log.bs.tolist(),
                strict=True,
            )
        )
        == expected
    )


REAL_LINES = [
    ln
    for p in sorted(CASES.glob("*/*.log"))
    for ln in p.read_bytes().splitlines(keepends=True)[:30]
]
alphabet = st.sampled_from([*b"0123456789, \n", *b"x.-\r", 0, 0xFF])


@FUZZ
@given(st.binary(max_size=200))
def test_fuzz_arbitrary_bytes(text):
    same_as_reference(text)


@FUZZ
@given(st.lists(alphabet, max_size=300).map(bytes))
def test_fuzz_log_alphabet(text):
    same_as_reference(text)


@FUZZ
@given(st.lists(st.sampled_from(REAL_LINES), min_size=1, max_size=40), st.data())
def test_fuzz_real_lines_mutated(lines, data):
    text = bytearray(b"".join(lines))
    for _ in range(data.draw(st.integers(0, 3))):
        at = data.draw(st.integers(0, len(text) - 1))
        action = data.draw(st.sampled_from(["replace", "delete", "insert", "cut"]))
        byte = data.draw(alphabet)
        if action == "replace":
            text[at] = byte
        elif action == "delete":
            del text[at]
        elif action == "insert":
            text.insert(at, byte)
        else:
            del text[at:]
        if not text:
            break
    same_as_reference(bytes(text))


rows = st.lists(
    st.tuples(
        st.integers(0, 10**13),
        st.integers(0, 10**12),
        st.integers(0, 2),
        st.sampled_from([0, 512, 4096]),
    ),
    min_size=0,
    max_size=60,
)


@FUZZ
@given(
    st.lists(rows, min_size=1, max_size=3),
    st.sampled_from(["lat", "clat", "iops", "bw", "slat"]),
    st.none() | st.integers(1, 2000),
    st.booleans(),
)
def test_fuzz_series_of_any_valid_logs(clones, kind, interval_ms, max_values):
    """Whatever valid lines the logs hold, series and summaries are made or ParseError says why."""
    found = [
        logs.parse_log(
            "".join(f"{t}, {v}, {d}, {b}, 0\n" for t, v, d, b in r).encode(),
            f"w_{kind}.{i}.log",
            kind,
            i,
        )
        for i, r in enumerate(clones, 1)
    ]
    for log, r in zip(found, clones, strict=True):
        assert (
            list(
                zip(
                    log.t_ms.tolist(),
                    log.value.tolist(),
                    log.ddir.tolist(),
                    log.bs.tolist(),
                    strict=True,
                )
            )
            == r
        )
    try:
        made = logs.series(found, workload="w", interval_ms=interval_ms, max_values=max_values)
    except ParseError as e:
        assert "unix-epoch" in str(e) or "intervals" in str(e)
        return
    for s in made:
        assert s.op in logs.OPS and s.t_s.shape == s.values.shape
        assert np.isfinite(s.values).all() and (np.diff(s.t_s) > 0).all()
    per_io = [g for g in found if not g.averaged]
    if per_io:
        for summary in logs.latency_summary(per_io):
            assert summary.min_us <= summary.mean_us <= summary.max_us


def test_averaged_windows_that_drift_off_the_clock_leave_no_false_gaps():
    """fio stamps each window when its helper thread gets to it: on a busy machine a little
    late each time. 200 windows (the second half 12 ms late each) are 200 intervals."""
    stamps = list(itertools.accumulate([1000] * 101 + [1012] * 99))
    text = "".join(f"{t}, 100, 0, 0, 0\n" for t in stamps).encode()
    log = logs.parse_log(text, "drift_iops.1.log", kind="iops", clone=1)
    (iops,) = [s for s in logs.series([log], workload="w") if s.metric == "iops"]
    steps = np.diff(iops.t_s)
    assert len(iops.t_s) == 200 and np.allclose(steps, steps[0])  # one grid, no holes
    assert (iops.values == 100).all()
