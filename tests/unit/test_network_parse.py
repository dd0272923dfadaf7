"""iperf3's JSON (recorded, iperf 3.12) and the network table."""

from __future__ import annotations

import json

import pytest

from cephbench.errors import ParseError, ToolFailed
from cephbench.model import Run
from cephbench.tools.iperf3 import driver as iperf3
from cephbench.tools.iperf3.table import network_table
from tests.helpers import DATA

IPERF = DATA / "iperf3" / "3.12"


def test_parse_client_json():
    r = iperf3.parse((IPERF / "iperf3-loopback.json").read_text(), "host0->host1")
    m = dict(r.metrics)
    assert m["bits_per_second"] == pytest.approx(12205417659.504)  # as received
    assert m["sent_bits_per_second"] == pytest.approx(12248911734.434)
    assert m["retransmits"] == 13
    assert r.bw_bytes_per_s == pytest.approx(12205417659.504 / 8) and r.io_bytes == 1530920960
    t = network_table(Run(1, None, "network", "ceph:cluster", "complete", "t", results=(r,)))
    assert t.rows[0][:3] == ("host0->host1", "12.21", "13")


def test_refused_connection_is_the_tools_error():
    with pytest.raises(ToolFailed, match="Connection refused"):
        iperf3.parse((IPERF / "iperf3-refused.json").read_text(), "a->b")


def test_not_json():
    with pytest.raises(ParseError):
        iperf3.parse("iperf3: error - unable to connect", "a->b")


def test_server_runs_as_a_daemon_with_a_pidfile():
    argv = iperf3.server_argv("10.0.0.1", 5201, "/tmp/x.pid")
    assert (
        argv[:2] == ["iperf3", "-s"] and "-D" in argv and argv[-2:] == ["--pidfile", "/tmp/x.pid"]
    )


def test_a_servers_json_has_no_sender_figures_rather_than_zeros():
    r = iperf3.from_json(json.loads((IPERF / "tcp.server.json").read_text()), "a->b")
    assert "sent_bits_per_second" not in dict(r.metrics) and "retransmits" not in dict(r.metrics)
    assert r.bw_bytes_per_s == pytest.approx(16226520313.028467 / 8)
    reverse = iperf3.from_json(json.loads((IPERF / "tcp-R.server.json").read_text()), "a->b")
    assert reverse.bw_bytes_per_s is None and reverse.io_bytes is None
    assert dict(reverse.metrics) == {
        "retransmits": 16.0,
        "sent_bits_per_second": 16090923436.485495,
    }
