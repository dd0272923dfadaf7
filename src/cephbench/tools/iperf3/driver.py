"""iperf3: argv builders (server as a daemon, client with JSON output) and a pure parser."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from cephbench.errors import ParseError, ToolFailed
from cephbench.model import Result


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
    except (ValueError, RecursionError) as e:
        raise ParseError(f"iperf3 printed no JSON: {text.strip()[:200]!r}") from e
    if isinstance(data, dict) and data.get("error"):
        raise ToolFailed(f"iperf3 {workload}: {data['error']}")
    return from_json(data, workload, repeat)


def from_json(data: Any, workload: str, repeat: int = 0) -> Result:
    """One iperf3 JSON document (client's or server's) as a result row.

    A server's JSON has no sender figures (a 0-byte ``sum_sent``), and the server of a ``-R``
    test none for the receiver: a side that moved no bytes while the other moved some was
    not measured there, and its figures are None, never 0.
    """
    try:
        measured = {side: _sum(data["end"][f"sum_{side}"]) for side in ("sent", "received")}
    except (KeyError, TypeError) as e:
        raise ParseError(f"iperf3 JSON has no end.sum_sent and end.sum_received ({e})") from None
    sums: dict[str, tuple[float, float, float, float | None] | None] = dict(measured)
    for side, other in (("sent", "received"), ("received", "sent")):
        if measured[side][0] == 0 and measured[other][0] > 0:
            sums[side] = None
    sent, received = sums["sent"], sums["received"]
    metrics = {}
    if received:
        metrics["bits_per_second"] = received[1]
    if sent:
        metrics["sent_bits_per_second"] = sent[1]
        if sent[3] is not None:
            metrics["retransmits"] = sent[3]
    either = received or sent
    assert either is not None, "a side is dropped only when the other moved bytes"
    return Result(
        workload=workload,
        repeat=repeat,
        op="write",
        rw=_protocol(data),
        numjobs=1,
        runtime_s=either[2],
        bw_bytes_per_s=received[1] / 8 if received else None,
        io_bytes=int(received[0]) if received else None,
        metrics=tuple(sorted(metrics.items())),
    )


def _sum(d: dict) -> tuple[float, float, float, float | None]:
    """(bytes, bits/s, seconds, retransmits or None) of one ``end.sum_*``; ParseError if odd."""
    try:
        values = [float(d[k]) for k in ("bytes", "bits_per_second", "seconds")]
        retr = float(d["retransmits"]) if "retransmits" in d else None
    except (KeyError, TypeError, ValueError) as e:
        raise ParseError(f"iperf3 JSON: an end.sum_* has no {e}") from None
    if not all(math.isfinite(v) and v >= 0 for v in [*values, retr or 0.0]):
        raise ParseError(f"iperf3 JSON: an end.sum_* holds no figures: {d!r:.200}")
    return values[0], values[1], values[2], retr


def _protocol(data: dict) -> str:
    start = s if isinstance(s := data.get("start"), dict) else {}
    test = t if isinstance(t := start.get("test_start"), dict) else {}
    return str(test.get("protocol") or "tcp").lower()


def workload_name(data: Any) -> str:
    """``sender->receiver`` from the JSON's first connection, the way round data went."""
    try:
        start = data["start"]
        conn = start["connected"][0]
        local, remote = str(conn["local_host"]), str(conn["remote_host"])
        reverse = bool(start.get("test_start", {}).get("reverse"))
    except (KeyError, IndexError, TypeError, AttributeError):
        return "iperf3"
    return (
        f"{local}->{remote}"
        if reverse == ("accepted_connection" in start)
        else f"{remote}->{local}"
    )


def documents(text: str) -> list[dict]:
    """Every iperf3 JSON document in ``text`` (each starts a line: ``{`` then ``"start"``)."""
    decoder, docs, end = json.JSONDecoder(), [], 0
    for m in re.finditer(r"^[ \t]*\{", text, re.MULTILINE):
        if m.start() < end:
            continue
        try:
            data, end = decoder.raw_decode(text, m.end() - 1)
        except (ValueError, RecursionError):
            continue
        if isinstance(data, dict) and "start" in data and ("end" in data or "error" in data):
            docs.append(data)
    return docs
