"""iperf3's human output, as people paste it, to result rows: a pure function of the text.

What counts is each test's summary, the lines after the last ``- - -`` separator that end in
``sender`` or ``receiver``::

    [  5]   0.00-10.00  sec  10.9 GBytes  9.38 Gbits/sec    0             sender
    [SUM]   0.00-3.00   sec  5.39 GBytes  15.4 Gbits/sec                  receiver

With ``-P N`` the ``[SUM]`` lines are the test's figures. Units as iperf3 prints them: its
``KBytes``/``MBytes``/``GBytes`` are 1024-based and its ``Kbits``/``Mbits``/``Gbits``
1000-based (``unit_snprintf`` in iperf3's ``src/units.c``); figures have 3 significant digits.
The row has the same figures as the JSON parser's (``iperf3.from_json``): received bits/s,
sent bits/s, the sender's ``Retr``. A side not printed (a server's output) is None.
Several tests in one text are several rows; ``--bidir`` output is not read. A test cut off
before its summary is named by ``truncated``, not read.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from decimal import Decimal

from cephbench.errors import ParseError
from cephbench.model import Result

_NUM = r"\d+(?:\.\d+)?"
SUMMARY = re.compile(
    rf"\[\s*(?P<id>SUM|\d+)\]\s+(?P<start>{_NUM})-\s*(?P<end>{_NUM})\s+sec\s+(?P<xfer>{_NUM})\s+"
    rf"(?P<xu>[KMGT]?Bytes)\s+(?P<rate>{_NUM})\s+(?P<ru>[KMGT]?bits)/sec(?P<rest>.*?)"
    r"\s(?P<role>sender|receiver)\s*$"
)
CONNECTED = re.compile(
    r"\blocal (?P<local>\S+) port \d+ connected (?:to|with) (?P<remote>\S+) port \d+"
)
UDP = re.compile(r"\bms\s+\d+/\d+")
START = re.compile(r"^.*(?:Connecting to host|Accepted connection from)", re.MULTILINE)
INTERVAL = re.compile(rf"^\s*\[\s*(?:SUM|\d+)\]\s+{_NUM}-\s*(?P<end>{_NUM})\s+sec\s", re.MULTILINE)
POWER = {"": 0, "K": 1, "M": 2, "G": 3, "T": 4}
VERSION = re.compile(r"\biperf (?P<v>3\.\d+\S*)")


@dataclass(frozen=True)
class _Line:
    stream: str
    seconds: float
    bytes: float
    bits_per_second: float
    retransmits: float | None
    udp: bool


def _line(m: re.Match) -> _Line:
    retr = m["rest"].split()
    return _Line(
        m["id"],
        float(m["end"]) - float(m["start"]),
        float(Decimal(m["xfer"]) * 1024 ** POWER[m["xu"][:-5]]),
        float(Decimal(m["rate"]) * 1000 ** POWER[m["ru"][:-4]]),
        float(retr[0]) if len(retr) == 1 and retr[0].isdigit() else None,
        bool(UDP.search(m["rest"])),
    )


def tests(text: str) -> list[tuple[str, list[tuple[str, _Line]]]]:
    """Each test's preamble (the text since the previous summary) and summary lines, each
    with its role (sender or receiver)."""
    return _tests(text)[0]


def _tests(text: str) -> tuple[list[tuple[str, list[tuple[str, _Line]]]], str]:
    """``tests``, and the text after the last summary."""
    out: list[tuple[str, list[tuple[str, _Line]]]] = []
    preamble: list[str] = []
    summary: list[tuple[str, _Line]] = []
    for raw in text.splitlines():
        # a summary line is short (even behind --timestamps or a -T title); a long one is not one
        m = (
            SUMMARY.search(raw)
            if len(raw) < 500 and raw.rstrip().endswith(("sender", "receiver"))
            else None
        )
        if m:
            summary.append((m["role"], _line(m)))
            continue
        if summary and raw.strip():
            out.append(("\n".join(preamble), summary))
            preamble, summary = [], []
        preamble.append(raw)
    if summary:
        out.append(("\n".join(preamble), summary))
        preamble = []
    return out, "\n".join(preamble)


def truncated(text: str) -> list[str]:
    """One line for each test in ``text`` cut off before its summary: its per-second lines
    and no summary after them (the paste ends, or the next test starts: ``Connecting to
    host``, ``Accepted connection from``). Those are skipped, never half-imported."""
    tests_, tail = _tests(text)
    # in a test's preamble every test but the last (whose summary follows) is cut; after the
    # last summary, every test is
    parts = [(preamble, True) for preamble, _ in tests_] + [(tail, False)]
    cut = []
    for part, summarised in parts:
        starts = [0, *(m.start() for m in START.finditer(part)), len(part)]
        pieces = [part[a:b] for a, b in itertools.pairwise(starts)]
        for piece in pieces[:-1] if summarised else pieces:
            seconds = [m["end"] for m in INTERVAL.finditer(piece)]
            if seconds:
                cut.append(f"an iperf3 test cut off at {seconds[-1]} s, before its summary")
    return cut


def _side(lines: list[tuple[str, _Line]], role: str) -> _Line | None:
    """The test's figures for one side: its ``[SUM]`` line, else its one stream's line."""
    mine = [ln for r, ln in lines if r == role]
    total = [ln for ln in mine if ln.stream == "SUM"]
    if total:
        return total[-1]
    if len({ln.stream for ln in mine}) > 1:
        raise ParseError(f"iperf3: several streams and no [SUM] {role} line")
    return mine[-1] if mine else None


def _name(preamble: str) -> str:
    conn = CONNECTED.search(preamble)
    if not conn:
        return "iperf3"
    server = "Accepted connection from" in preamble
    reverse = "Reverse mode" in preamble
    local, remote = conn["local"], conn["remote"]
    return f"{local}->{remote}" if reverse == server else f"{remote}->{local}"


def parse_text(text: str) -> list[Result]:
    """One row per test in ``text``; ParseError when there is no summary line."""
    rows = []
    for preamble, lines in tests(text):
        sent, received = _side(lines, "sender"), _side(lines, "receiver")
        metrics = {}
        if received:
            metrics["bits_per_second"] = received.bits_per_second
        if sent:
            metrics["sent_bits_per_second"] = sent.bits_per_second
            if sent.retransmits is not None:
                metrics["retransmits"] = sent.retransmits
        either = received or sent
        assert either is not None, "a test has a summary line, of a sender or a receiver"
        rows.append(
            Result(
                workload=_name(preamble),
                repeat=0,
                op="write",
                rw="udp" if either.udp else "tcp",
                numjobs=1,
                runtime_s=either.seconds,
                bw_bytes_per_s=received.bits_per_second / 8 if received else None,
                io_bytes=int(received.bytes) if received else None,
                metrics=tuple(sorted(metrics.items())),
            )
        )
    if not rows:
        raise ParseError("no iperf3 summary line (... sec ... bits/sec ... sender|receiver) found")
    return rows


def version(text: str) -> str | None:
    """``iperf 3.12`` when the text shows it (``-V``, ``--version``), else None."""
    m = VERSION.search(text)
    return f"iperf {m['v']}" if m else None
