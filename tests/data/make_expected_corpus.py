"""Write ``<name>.expected.json`` for the corpus of outputs others published (entries with a
``<name>.source.md``), independently of cephbench's parsers.

- JSON outputs (iperf3 ``-J``, ``ceph tell osd.N bench``): the figures are read from the
  document with plain dict look-ups here (``end.sum_received`` / ``end.sum_sent``,
  ``bytes_per_sec``...), not with cephbench's parser.
- Text outputs: the figures below were transcribed by hand from what each output prints,
  then put in the units the store uses: rados bench's and Ceph's MB/KB are MiB/KiB,
  iperf3's MBytes are MiB and its Mbits 10^6 bits, seconds of latency become µs.

The corpus test (tests/unit/test_corpus.py) imports every entry through ``cephbench import`` and
compares each listed field: to 1e-6 relative for figures, exactly for the rest.
"""

import json
from decimal import Decimal
from pathlib import Path

HERE = Path(__file__).parent
MIB, KIB, OBJ = 1 << 20, 1 << 10, 4194304


def rados(workload, rw, runtime, ops, bw_mb, lat_s, max_s, *, iops=None, depth=None, bs=OBJ):
    r = {
        "workload": workload,
        "op": "write" if rw == "write" else "read",
        "rw": rw,
        "bs": bs,
        "iodepth": depth,
        "runtime_s": runtime,
        "total_ios": ops,
        "io_bytes": ops * bs,
        "bw_bytes_per_s": bw_mb * MIB,
        "lat_mean_us": lat_s * 1e6,
        "lat_max_us": max_s * 1e6,
    }
    r["iops"], r["flags"] = (iops, []) if iops is not None else (ops / runtime, ["iops_derived"])
    return r


def osd_text(name, seconds, rate, unit):
    return {
        "workload": name,
        "op": "write",
        "bs": 4 * MIB,
        "io_bytes": 1024 * MIB,
        "runtime_s": seconds,
        "bw_bytes_per_s": rate * unit,
        "iops": 256 / seconds,
        "flags": ["iops_derived"],
    }


def size(printed):
    """iperf3's printed "57.2 GBytes" (1024-based) in bytes, exactly."""
    figure, unit = printed.split()
    power = {"Bytes": 0, "KBytes": 1, "MBytes": 2, "GBytes": 3, "TBytes": 4}[unit]
    return int(Decimal(figure) * 1024**power)


def iperf_text(name, seconds, xfer_mib, recv_mbit, sent_mbit, retr):
    xfer = size(xfer_mib) if isinstance(xfer_mib, str) else int(xfer_mib * MIB)
    return {
        "workload": name,
        "runtime_s": seconds,
        "io_bytes": xfer,
        "bw_bytes_per_s": recv_mbit * 1e6 / 8,
        "metrics": {
            "bits_per_second": recv_mbit * 1e6,  # a side not printed: None
            "sent_bits_per_second": None if sent_mbit is None else sent_mbit * 1e6,
            "retransmits": retr,
        },
    }


TRANSCRIBED = {
    "rados-bench/16-dev/zoned-storage": {
        "runs": [{"parser": "rados-bench", "workloads": ["write", "rand"]}],
        "skipped": 1,
        "results": [
            rados("write", "write", 10.3305, 396, 153.333, 0.411226, 1.00844, iops=38, depth=16),
            rados("rand", "rand", 10.272, 646, 251.558, 0.249385, 0.888654, iops=62),
        ],
    },
    "rados-bench/13-dev/messenger-comparison": {
        "runs": [
            {"parser": "rados-bench", "workloads": w}
            for w in (["write"], ["write", "seq"], ["seq", "rand"], ["rand"])
        ],
        "results": [
            rados("write", "write", 15.760662, 44, 11.167, 4.7571, 5.76314, iops=2, depth=16),
            rados("write", "write", 15.758034, 44, 11.1689, 4.75525, 5.84311, iops=2, depth=16),
            rados("seq", "seq", 15.784622, 44, 11.1501, 5.13116, 9.99615, iops=2),
            rados("seq", "seq", 15.749513, 44, 11.1749, 5.10079, 9.98908, iops=2),
            rados("rand", "rand", 16.058322, 45, 11.2091, 4.78828, 6.065, iops=2),
            rados("rand", "rand", 16.061321, 45, 11.207, 4.77359, 6.06723, iops=2),
        ],
    },
    "rados-bench/0.47.2/openstack-post-excerpt": {
        "runs": [
            {"parser": "rados-bench", "tool_version": "0.47.2", "workloads": ["write"]},
            {"parser": "osd-bench", "workloads": ["osd.0", "osd.1", "osd.2"]},
        ],
        "results": [
            rados("write", "write", 101.114344, 1341, 53.049, 1.20432, 2.68683, depth=16),
            osd_text("osd.0", 4.575725, 223, MIB),
            osd_text("osd.1", 22.559266, 46480, KIB),
            osd_text("osd.2", 20.011638, 52398, KIB),
        ],
    },
    "iperf3/3.17/bandwitch-reverse-then-forward": {
        "runs": [
            {
                "parser": "iperf3",
                "workloads": ["140.112.30.186->10.0.2.15", "10.0.2.15->140.112.30.186"],
            }
        ],
        "results": [
            iperf_text("140.112.30.186->10.0.2.15", 5.0, 240, 403, 404, 1769),
            iperf_text("10.0.2.15->140.112.30.186", 5.01, 130, 218, 219, 0),
        ],
    },
    "rados-bench/2019-11/collapsed-spaces": {
        "runs": [{"parser": "rados-bench", "workloads": ["write", "seq", "rand"]}],
        "results": [
            rados("write", "write", 10.6523, 124, 46.5625, 1.3707, 2.64427, iops=11, depth=16),
            rados("seq", "seq", 4.45077, 124, 111.441, 0.567093, 1.16315, iops=27),
            rados("rand", "rand", 10.5902, 297, 112.179, 0.565831, 1.20987, iops=28),
        ],
    },
    "rados-bench/2017-03/proxmox-4k-write": {
        "runs": [{"parser": "rados-bench", "workloads": ["write"]}],
        "results": [
            rados(
                "write",
                "write",
                300.015640,
                614977,
                8.0071,
                0.0156087,
                1.51347,
                iops=2049,
                depth=32,
                bs=4096,
            )
        ],
    },
    "rados-bench/2014/grid5000-two-clusters": {
        "runs": [{"parser": "rados-bench", "workloads": ["write", "seq"]}] * 2,
        "results": [
            rados("write", "write", 60.231902, 7430, 493.426, 0.129699, 0.793961),
            rados("seq", "seq", 20.622478, 7430, 1441.146, 0.0443867, 0.612827),
            rados("write", "write", 60.621542, 2344, 154.664, 0.413596, 4.06297),
            rados("seq", "seq", 7.272197, 2344, 1289.294, 0.0495207, 0.30642),
        ],
    },
    "rados-bench/rook-1.1.6/rook-tabs-elided": {
        "runs": [{"parser": "rados-bench", "workloads": ["write", "seq"]}],
        "results": [
            rados("write", "write", 10.4372, 454, 173.994, 0.366409, 1.10837, iops=43, depth=16),
            rados("seq", "seq", 5.18534, 410, 316.276, 0.201392, 0.850704, iops=79),
        ],
    },
    "rados-bench/pre-luminous/storage-notes-three-writes": {
        "runs": [{"parser": "rados-bench", "workloads": ["write"]}] * 3,
        "results": [
            rados(
                "write", "write", 60.324225, 860, 228.101, 2.20626, 2.99246, depth=32, bs=16777216
            ),
            rados(
                "write", "write", 60.136300, 60242, 3.913, 0.0319333, 0.718472, depth=32, bs=4096
            ),
            rados("write", "write", 60.651051, 5363, 353.695, 0.360607, 3.67487, depth=32),
        ],
    },
    "rados-bench/luminous-or-later/osiris-cache-tier-pre": {
        "runs": [{"parser": "rados-bench", "workloads": ["write"]}] * 2,
        "results": [
            rados("write", "write", 120.164, 11274, 375.289, 0.170519, 1.30727, iops=93),
            rados("write", "write", 3000.04, 926281, 1235.02, 0.0518185, 0.46436, iops=308),
        ],
    },
    "rados-bench/cephadm-pacific-2023/cephlab-unfenced-1M-3M": {
        "known_wrong": "nothing is imported: both outputs are in the prose between fenced blocks, "
        "and the importer reads only the blocks of a text that has any",
        "runs": [{"parser": "rados-bench", "workloads": ["write"]}] * 2,
        "results": [
            rados(
                "write",
                "write",
                10.2509,
                229,
                22.3395,
                0.709479,
                1.52738,
                iops=22,
                depth=16,
                bs=1048576,
            ),
            rados(
                "write",
                "write",
                10.6939,
                73,
                20.4791,
                2.27567,
                5.69941,
                iops=6,
                depth=16,
                bs=3145728,
            ),
        ],
    },
    "iperf3/3.7+/couscous-udp-loss": {
        "known_wrong": "the second test is lost: its block follows one closed by four backticks "
        "(````), which the importer's fence pattern does not take as a closing fence",
        "runs": [{"parser": "iperf3", "workloads": ["iperf3"]}] * 2,
        "results": [
            {**iperf_text("iperf3", 10.01, "951 MBytes", 797, 3570, None), "rw": "udp"},
            {**iperf_text("iperf3", 10.0, "367 MBytes", 307, 2690, None), "rw": "udp"},
        ],
    },
    "iperf3/3.7+/pulceo-server-client-tcp-udp": {
        "runs": [{"parser": "iperf3", "workloads": ["::1->::1"]}] * 4,
        "results": [
            {**iperf_text("::1->::1", 10.0, "109 GBytes", 93554, None, None), "rw": "tcp"},
            {**iperf_text("::1->::1", 10.0, "109 GBytes", 93554, 93555, 5), "rw": "tcp"},
            {**iperf_text("::1->::1", 10.0, "1.22 MBytes", 1.02, None, None), "rw": "udp"},
            {**iperf_text("::1->::1", 10.0, "1.22 MBytes", 1.02, 1.02, None), "rw": "udp"},
        ],
    },
    "iperf3/3.7+/rtl8xxxu-mail-tcp-udp": {
        "runs": [{"parser": "iperf3", "workloads": ["192.168.0.11->192.168.0.35"]}] * 4,
        "results": [
            {**iperf_text(name, secs, xfer, recv, sent, retr), "rw": rw}
            for name in ["192.168.0.11->192.168.0.35"]
            for secs, xfer, recv, sent, retr, rw in (
                (10.06, "55.6 MBytes", 46.3, 47.7, 0, "tcp"),
                (10.07, "60.8 MBytes", 50.7, 51.0, None, "udp"),
                (10.04, "1.98 MBytes", 1.65, 2.73, 3, "tcp"),
                (11.94, "55.9 MBytes", 39.3, 46.9, None, "udp"),
            )
        ],
    },
    "iperf3/3.x-bandwidth/firecracker-P4-summary": {
        "runs": [{"parser": "iperf3", "workloads": ["iperf3"]}],
        "results": [iperf_text("iperf3", 30.0, "57.2 GBytes", 16400, 16400, 0)],
    },
    "iperf3/3.x-bandwidth/netem-lab-two-tests": {
        "runs": [{"parser": "iperf3", "workloads": ["10.0.2.1->10.0.3.1"]}] * 2,
        "results": [
            iperf_text("10.0.2.1->10.0.3.1", 10.0, "21.8 GBytes", 18700, 18700, 0),
            iperf_text("10.0.2.1->10.0.3.1", 10.0, "36.6 MBytes", 30.7, 31.3, 32),
        ],
    },
    "iperf3/3.x-bandwidth/netdev-patch-before-after": {
        "runs": [{"parser": "iperf3", "workloads": ["iperf3"]}] * 2,
        "results": [
            iperf_text("iperf3", 30.0, 120, 33.5, 33.7, 277),
            iperf_text("iperf3", 30.0, 135, 37.7, 37.9, 203),
        ],
    },
}


def iperf3_json(path: Path) -> dict:
    """From the document itself: what was received, what was sent, the sender's Retr."""
    doc = json.loads(path.read_text())
    start, end = doc["start"], doc["end"]
    conn = start["connected"][0]
    reverse = bool(start["test_start"].get("reverse"))
    a, b = conn["local_host"], conn["remote_host"]
    name = f"{b}->{a}" if reverse else f"{a}->{b}"  # a client's output: data went local -> remote
    got, sent = end["sum_received"], end["sum_sent"]
    return {
        "runs": [{"parser": "iperf3", "tool_version": start["version"], "workloads": [name]}],
        "results": [
            {
                "workload": name,
                "rw": start["test_start"]["protocol"].lower(),
                "runtime_s": got["seconds"],
                "io_bytes": got["bytes"],
                "bw_bytes_per_s": got["bits_per_second"] / 8,
                "metrics": {
                    "bits_per_second": got["bits_per_second"],
                    "sent_bits_per_second": sent["bits_per_second"],
                    "retransmits": sent["retransmits"],
                },
            }
        ],
    }


def osd_bench_json(path: Path) -> dict:
    """Every ``ceph tell osd.N bench`` JSON document in the text, named from the command line
    above it; figures as the document gives them (old releases print bytes_per_sec as a string
    and no elapsed_sec: run time unknown, IOPS = bytes_per_sec / blocksize)."""
    text, decoder, results = path.read_text(), json.JSONDecoder(), []
    at = text.find('"bytes_written"')
    while at >= 0:
        start = text.rfind("{", 0, at)
        doc, end = decoder.raw_decode(text, start)
        name = "osd." + text[:start].rsplit("tell osd.", 1)[1].split()[0]
        bps, bs = float(doc["bytes_per_sec"]), doc["blocksize"]
        r = {
            "workload": name,
            "op": "write",
            "bs": bs,
            "io_bytes": doc["bytes_written"],
            "total_ios": doc["bytes_written"] // bs,
            "bw_bytes_per_s": bps,
            "runtime_s": doc.get("elapsed_sec"),
        }
        r["iops"], r["flags"] = (doc["iops"], []) if "iops" in doc else (bps / bs, ["iops_derived"])
        results.append(r)
        at = text.find('"bytes_written"', end)
    return {
        "runs": [{"parser": "osd-bench", "workloads": [r["workload"]]} for r in results],
        "results": results,
    }


COMPUTED = {
    "iperf3/3.17/bandwitch-client": ("bandwitch-client.json", iperf3_json),
    "iperf3/3.9/cloudpilot-omit3": ("cloudpilot-omit3.json", iperf3_json),
    "ceph/2020-01/budget-slides-osd5": ("budget-slides-osd5.md", osd_bench_json),
    "ceph/pre-luminous/storage-notes-osd-bench": ("storage-notes-osd-bench.rst", osd_bench_json),
}


def main() -> None:
    for key, expected in TRANSCRIBED.items():
        (HERE / f"{key}.expected.json").write_text(
            json.dumps(
                {"_figures": "transcribed from the output (make_expected_corpus.py)", **expected},
                indent=1,
            )
            + "\n"
        )
    for key, (name, compute) in COMPUTED.items():
        path = HERE / key.rsplit("/", 1)[0] / name
        (HERE / f"{key}.expected.json").write_text(
            json.dumps(
                {"_figures": "computed from the JSON by make_expected_corpus.py", **compute(path)},
                indent=1,
            )
            + "\n"
        )


if __name__ == "__main__":
    main()
