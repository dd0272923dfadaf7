"""iperf3: argv builders (server as a daemon, client with JSON output) and a pure parser."""

from __future__ import annotations

import json

from ..errors import ParseError, ToolFailed
from ..model import Result


def server_argv(bind: str, port: int, pidfile: str) -> list[str]:
    """A server that daemonizes once listening, its pid in ``pidfile``."""
    return ["iperf3", "-s", "-B", bind, "-p", str(port), "-D", "--pidfile", pidfile]


def client_argv(server: str, port: int, seconds: int, bind: str | None = None) -> list[str]:
    args = ["iperf3", "-c", server, "-p", str(port), "-t", str(seconds), "--json"]
    return args + (["-B", bind] if bind else [])


def parse(text: str, workload: str, repeat: int = 0) -> Result:
    """The client's JSON: received bits/s (what arrived), retransmits, as a result row."""
    try:
        data = json.loads(text)
    except ValueError as e:
        raise ParseError(f"iperf3 printed no JSON: {text.strip()[:200]!r}") from e
    if data.get("error"):
        raise ToolFailed(f"iperf3 {workload}: {data['error']}")
    try:
        sent, received = data["end"]["sum_sent"], data["end"]["sum_received"]
    except KeyError as e:
        raise ParseError(f"iperf3 JSON has no end.{e.args[0]}") from None
    metrics = {"bits_per_second": float(received["bits_per_second"]),
               "sent_bits_per_second": float(sent["bits_per_second"])}
    if "retransmits" in sent:
        metrics["retransmits"] = float(sent["retransmits"])
    return Result(
        workload=workload, repeat=repeat, op="write", rw="tcp", numjobs=1,
        runtime_s=float(received["seconds"]), bw_bytes_per_s=float(received["bits_per_second"]) / 8,
        io_bytes=int(received["bytes"]), metrics=tuple(sorted(metrics.items())),
    )
