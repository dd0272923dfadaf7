"""One unit per kind of figure: network figures are bits per second everywhere (Gbit/s, or
Mbit/s below 1 Gbit/s), storage bandwidth MiB/s; ``show``, ``import --dry-run`` and
``compare`` print an iperf3 result in the same unit and value."""

from __future__ import annotations

import re

from cephbench.system.units import bits_unit, format_bits
from tests.helpers import DATA

TCP = DATA / "iperf3" / "3.12" / "tcp.txt"
"""127.0.0.1->127.0.0.1 at 16.2 Gbit/s as received."""
TCP_P4 = DATA / "iperf3" / "3.12" / "tcp-P4.txt"


def test_bits_per_second_in_gbit_or_mbit_by_size():
    assert bits_unit(16.2e9) == ("Gbit/s", 1e9)
    assert bits_unit(940e6) == ("Mbit/s", 1e6)
    assert bits_unit(None) == ("Mbit/s", 1e6)
    assert format_bits(16.2e9) == "16.20" and format_bits(940e6) == "940.00"
    assert format_bits(940e6, bits_unit(16.2e9)) == "0.94"


def _figure(out: str, workload: str = "127.0.0.1->127.0.0.1") -> str:
    """The first figure on the workload's row (rich table or Markdown)."""
    row = next(line for line in out.splitlines() if workload in line)
    return re.findall(r"\d+\.\d+", row.split(workload, 1)[1])[0]


def test_show_dry_run_and_compare_print_the_same_unit_and_value(invoke):
    dry = invoke("import", str(TCP), "--dry-run", "--format", "md").stdout
    invoke("import", str(TCP))
    invoke("import", str(TCP_P4))
    shown = invoke("show", "1", "--format", "md").stdout
    compared = invoke("compare", "1", "2", "--format", "md").stdout
    bandwidth = compared.split("**Bandwidth")[1].split("**Avg Latency")[0]
    assert "| Hosts | Gbit/s |" in dry and "| Hosts | Gbit/s |" in shown
    assert bandwidth.startswith(" (Gbit/s)") and "MiB/s" not in compared
    assert _figure(dry) == _figure(shown) == _figure(bandwidth) == "16.20"


def test_storage_bandwidth_stays_mib_per_second(invoke):
    invoke("import", str(DATA / "fio" / "3.33" / "ceph_nvme_blog.md"))
    assert "Bandwidth (MiB/s)" in invoke("compare", "1", "2", "--format", "md").stdout
    assert "| Bandwidth (MiB/s) |" in invoke("show", "1", "--format", "md").stdout


def test_a_udp_test_is_captioned_udp_and_a_tcp_one_tcp(invoke):
    udp = invoke("import", str(DATA / "iperf3" / "3.12" / "udp.txt"), "--dry-run").stdout
    tcp = invoke("import", str(TCP), "--dry-run").stdout
    assert "iperf3 UDP," in udp and "TCP" not in udp
    assert "iperf3 TCP," in tcp and "UDP" not in tcp


def test_compare_of_network_runs_has_no_table_that_is_all_n_a(invoke):
    invoke("import", str(TCP))
    invoke("import", str(TCP_P4))
    compared = invoke("compare", "1", "2", "--format", "md").stdout
    assert "**Bandwidth" in compared
    assert "**IOPS" not in compared and "Latency" not in compared  # iperf3 has neither
