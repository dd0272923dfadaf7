"""The network suite's pure parts: ping's output (recorded), ``ip -j addr`` and ``ss``
(recorded), free ports, the N×N matrix, its outliers (median/MAD), summing a pair's
processes, the tables ``show`` prints, and the options' checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cephbench.errors import ParseError, ToolFailed, UsageError
from cephbench.model import Result, Run
from cephbench.planning.request import RunRequest
from cephbench.tools.iperf3 import ping, probe
from cephbench.tools.iperf3.matrix import matrix, outliers, split
from cephbench.tools.iperf3.options import NetworkOptions
from cephbench.tools.iperf3.steps import combine
from cephbench.tools.iperf3.table import matrix_table, network_table

DATA = Path(__file__).parents[1] / "data"
PING = DATA / "ping" / "20221126"
IPROUTE = DATA / "iproute2" / "6.1.0"
PING_CASES = sorted(p.name.removesuffix(".expected.json") for p in PING.glob("*.expected.json"))


def test_every_recorded_ping_output_has_expected_figures():
    assert {"rtt-quiet", "mtu-1472", "mtu-1473", "mtu-peer-1400", "unreachable"} <= set(PING_CASES)
    assert (PING / "lab.source.md").is_file() and (IPROUTE / "lab.source.md").is_file()


@pytest.mark.parametrize("name", PING_CASES)
def test_ping_parses_recorded_outputs_exactly(name):
    stderr = PING / f"{name}.stderr"
    got = ping.parse(
        (PING / f"{name}.txt").read_text(), stderr.read_text() if stderr.exists() else ""
    )
    want = json.loads((PING / f"{name}.expected.json").read_text())["ping"]
    assert vars(got) == want


def test_mtu_verdicts_of_the_recordings():
    def answered(name: str) -> bool:
        err = PING / f"{name}.stderr"
        return ping.parse((PING / f"{name}.txt").read_text(), err.read_text()).answered

    assert answered("mtu-1472")
    assert not answered("mtu-1473")  # one byte over the sender's MTU: a local error
    assert not answered("mtu-peer-1400")  # the peer's smaller MTU: silent loss


def test_ping_that_did_not_run_is_a_parse_error():
    with pytest.raises(ParseError, match=r"no statistics.*unknown host"):
        ping.parse("", "ping: nohost: Name or service not known\nping: unknown host")
    with pytest.raises(ParseError, match="nothing"):
        ping.parse("", "")


def test_ping_argv():
    assert ping.mtu_argv("10.0.0.2", 9000)[4:6] == ["-s", "8972"]  # 9000 - 20 IP - 8 ICMP
    assert ping.mtu_argv("fd00::2", 1500)[4:6] == ["-s", "1452"]  # 1500 - 40 IPv6 - 8 ICMPv6
    assert ping.mtu_argv("10.0.0.2", 1500)[:4] == ["ping", "-n", "-M", "do"]
    assert ping.rtt_argv("10.0.0.2")[-1] == "10.0.0.2" and "-q" in ping.rtt_argv("x")
    with pytest.raises(ValueError):
        ping.mtu_argv("10.0.0.2", 20)


def test_interface_mtu_from_recorded_ip_json():
    text = (IPROUTE / "ip-j-addr.json").read_text()
    want = json.loads((IPROUTE / "ip-j-addr.expected.json").read_text())
    assert probe.interface_mtu(text, want["address"]) == (want["interface"], want["mtu"])
    assert probe.interface_mtu(text, want["not_held"]) is None
    assert probe.interface_mtu(text, "127.0.0.1") == ("lo", 65536)
    with pytest.raises(ParseError):
        probe.interface_mtu("not json", "10.0.0.1")
    with pytest.raises(ParseError):
        probe.interface_mtu(text, "host1.example")  # a name, not an address


@pytest.mark.parametrize("name", ["ss-Hltn-lab", "ss-Hltn-iperf3"])
def test_listening_ports_from_recorded_ss(name):
    want = json.loads((IPROUTE / f"{name}.expected.json").read_text())["listening"]
    assert sorted(probe.listening_ports((IPROUTE / f"{name}.txt").read_text())) == want


def test_free_ports_skip_listening_ones_and_the_labs_blocks():
    assert probe.free_ports({5201, 5203}, 3) == [5202, 5204, 5205]
    assert probe.free_ports(set(), 2, avoid=[(5200, 5210)]) == [5211, 5212]
    assert probe.free_ports(set(), 0) == []
    with pytest.raises(ToolFailed, match="free TCP ports"):
        probe.free_ports(set(range(65530, 65536)), 3, first=65530)


def _r(workload: str, bits: float | None, repeat: int = 0, **extra: float) -> Result:
    metrics = {**({"bits_per_second": bits} if bits is not None else {}), **extra}
    return Result(workload=workload, repeat=repeat, op="write", metrics=tuple(metrics.items()))


def test_matrix_means_repeats_and_keeps_host_order():
    results = [
        _r("b->a", 4.0),
        _r("a->b", 1.0),
        _r("a->b", 3.0, repeat=1),
        _r("a->c", None),  # failed or not measured: no cell
        _r("iperf3", 9.0),  # not a pair
    ]
    mx = matrix(results)
    assert mx.hosts == ("b", "a", "c")
    assert mx.cells == {("b", "a"): 4.0, ("a", "b"): 2.0}
    assert mx.rows() == [[None, 4.0, None], [2.0, None, None], [None, None, None]]
    assert split("x->y") == ("x", "y") and split("x->") is None and split("xy") is None


def test_outliers_name_the_pairs_far_below_the_median():
    cells = {("h0", "h1"): 9.4, ("h1", "h0"): 9.3, ("h0", "h2"): 9.5, ("h2", "h0"): 9.4,
             ("h1", "h2"): 9.35, ("h2", "h1"): 4.1}  # fmt: skip
    found = outliers(cells)
    assert [o.pair for o in found] == [("h2", "h1")]
    o = found[0]
    assert o.median == pytest.approx(9.375)
    assert o.below_pct == pytest.approx(100 * (9.375 - 4.1) / 9.375)
    assert o.robust_z is not None and o.robust_z < -3


def test_outliers_ignore_small_wobbles_and_high_values():
    # equal links: a MAD near 0 would make a 1 % dip "many MADs"; the 10 % floor stops that
    assert not outliers({("a", "b"): 1.0, ("b", "a"): 1.0, ("a", "c"): 1.0, ("c", "a"): 0.95})
    # MAD of 0 and one pair at half: named, without a z
    zero = outliers({("a", "b"): 1.0, ("b", "a"): 1.0, ("a", "c"): 1.0, ("c", "a"): 0.5})
    assert [(o.pair, o.robust_z) for o in zero] == [(("c", "a"), None)]
    assert not outliers({("a", "b"): 1.0, ("b", "a"): 1.0, ("a", "c"): 9.0})  # above: fine
    assert not outliers({("a", "b"): 1.0, ("b", "a"): 0.1})  # two pairs: no median to judge by
    assert not outliers({("a", "b"): 0.0, ("b", "a"): 0.0, ("a", "c"): 0.0})


def test_wobble_case_is_what_the_floor_is_for():
    found = outliers({("a", "b"): 0.480, ("b", "a"): 0.481, ("a", "c"): 0.482, ("c", "a"): 0.475})
    assert found == []


def test_combine_sums_a_pairs_processes_and_adds_ping_figures():
    parts = [
        Result(workload="a->b", repeat=0, op="write", rw="tcp", runtime_s=2.0, io_bytes=100,
               metrics=(("bits_per_second", 1e9), ("retransmits", 3.0),
                        ("sent_bits_per_second", 1.1e9))),
        Result(workload="a->b", repeat=0, op="write", rw="tcp", runtime_s=2.1, io_bytes=50,
               metrics=(("bits_per_second", 2e9), ("retransmits", 0.0),
                        ("sent_bits_per_second", 2.2e9))),
    ]  # fmt: skip
    r = combine(parts, "a->b", 1, {"rtt_ms": 0.05, "mtu": 1500.0, "mtu_ok": 1.0})
    m = dict(r.metrics)
    assert m["bits_per_second"] == 3e9 and m["sent_bits_per_second"] == pytest.approx(3.3e9)
    assert m["retransmits"] == 3.0 and m["processes"] == 2.0
    assert (m["rtt_ms"], m["mtu"], m["mtu_ok"]) == (0.05, 1500.0, 1.0)
    assert (r.repeat, r.numjobs, r.runtime_s, r.io_bytes) == (1, 2, 2.1, 150)
    assert r.bw_bytes_per_s == 3e9 / 8
    # a process without a figure: the pair has none (a partial sum would be wrong)
    half = combine([parts[0], _r("a->b", None)], "a->b", 0, {})
    assert "bits_per_second" not in dict(half.metrics) and half.bw_bytes_per_s is None


def _run(results: list[Result]) -> Run:
    return Run(
        id=1,
        label=None,
        suite="network",
        target="ceph:cluster",
        status="complete",
        started_at="2026-11-22T00:00:00+00:00",
        params={"tool": "iperf3"},
        results=tuple(results),
    )


def test_show_tables_have_pairs_and_the_matrix_with_outliers():
    results = [
        _r(f"{a}->{b}", 0.48e9 if (a, b) != ("h2", "h1") else 0.2e9, rtt_ms=0.05, mtu=1500.0,
           mtu_ok=0.0 if (a, b) == ("h0", "h1") else 1.0, retransmits=2.0)
        for a in ("h0", "h1", "h2") for b in ("h0", "h1", "h2") if a != b
    ]  # fmt: skip
    pairs = network_table(_run(results))
    row = dict((r[0], r) for r in pairs.rows)["h0->h1"]
    assert pairs.headers[1] == "Mbit/s"  # below 1 Gbit/s: Mbit/s (issue 25, one unit)
    assert row[1:5] == ("480.00", "2", "0.050", "1500 FAILS")
    mx = matrix_table(_run(results))
    assert mx is not None and mx.headers == ("from \\ to", "h0", "h1", "h2")
    assert mx.rows[2] == ("h2", "480.00", "200.00", "—")
    assert any(n.startswith("Outlier h2->h1: 200.00 Mbit/s, 58 % below") for n in mx.notes)
    assert matrix_table(_run([_r("iperf3", 1.0)])) is None


def test_network_options_are_checked_and_stored():
    with pytest.raises(UsageError, match="streams-procs"):
        NetworkOptions(procs=0)
    req = RunRequest(suite="network", network=NetworkOptions(True, 4))
    again = RunRequest.from_json(json.loads(json.dumps(req.to_json())))
    assert again.network == NetworkOptions(True, 4)
    assert RunRequest.from_json({**req.to_json(), "network": None}).network == NetworkOptions()
    assert not NetworkOptions().given and NetworkOptions(procs=2).given


def test_report_heatmap_marks_the_outlier():
    from matplotlib.patches import Rectangle

    from cephbench.report.network import network_heatmap

    results = [
        _r(f"{a}->{b}", 9.4e9 if (a, b) != ("h1", "h0") else 2.0e9)
        for a in ("h0", "h1", "h2") for b in ("h0", "h1", "h2") if a != b
    ]  # fmt: skip
    fig = network_heatmap(matrix(results), "t")
    assert fig is not None
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert texts == ["—", "9.40", "9.40", "2.00!", "—", "9.40", "9.40", "9.40", "—"]
    assert len([p for p in fig.axes[0].patches if isinstance(p, Rectangle)]) == 1
    assert network_heatmap(matrix([_r("a->b", None)]), "t") is None


def test_pair_flags_and_start_skew():
    from cephbench.model import FLAGS
    from cephbench.system.process import ProcessResult
    from cephbench.tools.iperf3.steps import ClientRun, pair_flags, start_skew

    ok = {"rtt_ms": 0.05, "mtu": 1500.0, "mtu_ok": 1.0}
    assert pair_flags(ok, 0.04, 1) == ()
    assert pair_flags(ok, 0.06, 1) == ("procs_skewed",)  # over 5 % of a 1 s runtime
    assert pair_flags(ok, 0.4, 10) == ()
    assert pair_flags({"mtu": 9000.0, "mtu_ok": 0.0}, 0, 1) == ("mtu_fails", "no_rtt")
    assert all(f in FLAGS for f in ("procs_skewed", "mtu_fails", "no_rtt"))
    result = ProcessResult(("iperf3",), 0, "", "", 1.0)
    runs = [ClientRun(result, "", (10.0, 11.0)), ClientRun(result, "", (10.3, 11.2))]
    assert start_skew(runs) == pytest.approx(0.3) and start_skew(runs[:1]) == 0
