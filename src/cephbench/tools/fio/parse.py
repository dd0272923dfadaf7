"""fio's JSON output (``json`` and ``json+``) to Results: a pure function of the text.

One fio process can report many jobs. Each reported ``jobname`` is a workload: with
``group_reporting`` fio merges a group for us; without it, the clones of a ``numjobs > 1``
job are reported separately and merged here (percentiles exactly, from json+ latency bins:
latency.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass

from cephbench.errors import ParseError, UsageError
from cephbench.model import Result, WorkloadOutcome
from cephbench.system.units import parse_size
from cephbench.tools.fio.latency import direction_latency
from cephbench.tools.fio.steady import steady_state

OPS = ("read", "write", "trim")
ALL_CLIENTS = "All clients"
_ERR_LINE = re.compile(r"^fio: pid=\d+, err=(\d+)/.*$", re.MULTILINE)
_DOC_START = re.compile(r'(?:^|(?<=\n))[ \t]*\{|\{(?=\s*"fio version")')
_LINE_BREAKS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
"""What ``str.splitlines`` splits lines on besides "\\n"."""


def _plain_lines(text: str) -> bool:
    """No line starts with "<" and every line ends in "\\n": nothing to drop or split, so
    the text need not be split into lines and joined again (a few string searches)."""
    starts_lt = "<" in text and (text.startswith("<") or "\n<" in text)  # "<" alone: memchr
    return not starts_lt and not any(c in text for c in _LINE_BREAKS)


@dataclass(frozen=True)
class JobOutcome:
    """A reported job of one fio run: its results, or its error (fio's errno and message)."""

    name: str
    groupid: int
    results: tuple[Result, ...]
    error: int = 0
    message: str | None = None

    @property
    def failure(self) -> str | None:
        """Why this job has no figures to keep; None when it has them."""
        if self.error:
            return f"fio error: {self.message}"
        if not self.results:  # fio reports no error (a failed exec_prerun, say), yet did no I/O
            # its own reason when it printed one ("fio: /dev/x appears mounted, ...")
            return self.message or "fio did no I/O for this workload; see its raw output"
        return None

    def outcome(self) -> WorkloadOutcome:
        """The job as the store keeps it: its figures, or why it has none."""
        failure = self.failure
        return WorkloadOutcome(self.name, () if failure else self.results, failure)


@dataclass(frozen=True)
class FioDocument:
    """The JSON document fio printed, and the ``fio: ...`` lines around it."""

    data: dict
    messages: tuple[str, ...]

    @property
    def version(self) -> str | None:
        return self.data.get("fio version")


def extract(text: str) -> FioDocument:
    """Find fio's JSON document in ``text`` (fio prints progress lines before it)."""
    return extract_all(text)[0]


def extract_all(text: str) -> list[FioDocument]:
    """Every complete fio JSON document in ``text``, with the ``fio: ...`` lines around them.

    Pasted output has other text around the document: prompts, the command line, ``ssh``
    warnings, fio's stderr, the same document twice, a document inside a source-code string.
    A document starts at a ``{`` that opens a line (indented too, as in a Markdown list item)
    or is followed by ``"fio version"``; an exact repeat of a document already found is the
    same run pasted again and kept once.
    Lines fio's client/server mode prefixes with ``<host>`` are dropped first: they can land
    in the middle of a document.
    """
    if not _plain_lines(text):
        text = "\n".join(ln for ln in text.splitlines() if not ln.startswith("<"))
    decoder, documents = json.JSONDecoder(), []
    spans: list[tuple[int, int]] = []
    # the next start is looked for after the previous document, never inside it: a document
    # is decoded once and the text it spans (nearly all of it, usually) is not scanned again
    pos = 0
    while (m := _DOC_START.search(text, pos)) is not None:
        start = pos = m.end() - 1  # at the "{" itself
        try:
            data, end = decoder.raw_decode(text, start)
        except (json.JSONDecodeError, RecursionError):
            pos = start + 1
            continue
        if isinstance(data, dict) and ("jobs" in data or "client_stats" in data):
            spans.append((start, end))
            pos = end
            if data not in documents:
                documents.append(data)
        else:
            pos = start + 1
    if not documents:
        raise ParseError("no complete fio JSON document found in the output")
    outside, last = [], 0
    for start, end in spans:
        outside.append(text[last:start])
        last = end
    outside.append(text[last:])
    messages = tuple(
        ln.strip() for ln in "".join(outside).splitlines() if ln.strip().startswith("fio: ")
    )
    return [FioDocument(d, messages) for d in documents]


def parse(
    text: str, repeat: int = 0, stderr: str = "", hosts: Mapping[str, str] | None = None
) -> list[JobOutcome]:
    """Every reported workload of one fio run, in the order fio ran them; ``hosts`` names the
    clients of fio's client/server mode (see :func:`parse_document`)."""
    return parse_document(extract(text), repeat, stderr, hosts)


def parse_document(
    doc: FioDocument,
    repeat: int = 0,
    stderr: str = "",
    hosts: Mapping[str, str] | None = None,
) -> list[JobOutcome]:
    """The workloads of one document (see :func:`extract_all`); ParseError if malformed.

    Client/server output (``client_stats``) gives each workload's results per client and
    their aggregate (see clients.py); ``hosts`` maps fio's ``hostname:port`` of a client to
    the name its results get (else ``hostname``, or ``hostname:port`` where one hostname
    has several ports)."""
    try:
        return _parse_document(doc, repeat, stderr, hosts or {})
    except (KeyError, TypeError, ValueError, AttributeError, UsageError) as e:
        raise ParseError(f"fio's JSON has an unexpected shape ({type(e).__name__}: {e})") from e


def _parse_document(
    doc: FioDocument, repeat: int, stderr: str, hosts: Mapping[str, str]
) -> list[JobOutcome]:
    global_options = _options(doc.data.get("global options"))
    grouped: dict[str, list[dict]] = {}
    # client/server output: one entry per job and client, plus an "All clients" sum, which
    # is left out: cephbench computes the aggregate itself (clients.py)
    entries = doc.data["jobs"] if "jobs" in doc.data else doc.data["client_stats"]
    for job in entries:
        if job["jobname"] != ALL_CLIENTS:
            grouped.setdefault(job["jobname"], []).append(job)
    error_lines = [*doc.messages, *(ln for ln in stderr.splitlines() if ln.startswith("fio: "))]
    outcomes = [
        job_outcome(
            name,
            clones,
            {**global_options, **_options(clones[0].get("job options"))},
            repeat,
            error_lines,
        )
        for name, clones in grouped.items()
    ]
    if "jobs" in doc.data:
        return outcomes
    from cephbench.tools.fio.clients import per_client

    return per_client(outcomes, grouped, global_options, hosts, repeat, error_lines)


def options_of(raw) -> dict[str, str]:
    """A document's ``global options`` or a job's ``job options`` as a plain mapping."""
    return _options(raw)


def _options(raw) -> dict[str, str]:
    if isinstance(raw, list):  # some fio versions print "global options" as a one-element list
        raw = raw[0] if raw else {}
    return dict(raw or {})


def job_outcome(
    name: str, clones: list[dict], options: dict[str, str], repeat: int, error_lines: list[str]
) -> JobOutcome:
    """One workload from its reported entries (a job, its clones merged)."""
    error = next((c["error"] for c in clones if c.get("error")), 0)
    results = tuple(
        r for op in OPS if (r := _direction(name, clones, op, options, repeat, error)) is not None
    )
    if error:
        message: str | None = _error_message(error, error_lines)
    else:  # no error, yet no I/O: fio's own line says why (a mounted device, say)
        message = None if results else next(iter(error_lines), None)
    return JobOutcome(name, clones[0].get("groupid", 0), results, error, message)


def _error_message(errno: int, lines: list[str]) -> str:
    for line in lines:
        m = _ERR_LINE.match(line)
        if m and int(m.group(1)) == errno:
            return line
    return next(iter(lines), f"fio error {errno}")


def _direction(name, clones, op, options, repeat, error) -> Result | None:
    stats = [c[op] for c in clones if isinstance(c.get(op), dict)]
    if not any(_did_io(s) for s in stats):
        return None
    lat = direction_latency(stats)
    flags: tuple[str, ...] = () if lat["lat_mean_us"] is not None else ("no_latency",)
    if lat["lat_mean_us"] is not None and lat["mean_kind"] == "clat":
        flags = ("clat_mean",)
    if lat.pop("unmerged"):
        flags += ("percentiles_unmerged",)
    del lat["mean_kind"]
    rw = options.get("rw", options.get("readwrite", "read"))
    ss_flags, ss_metrics = steady_state(clones)
    total_ios = [s.get("total_ios") for s in stats]
    return Result(
        workload=name,
        repeat=repeat,
        op=op,
        rw=rw,
        bs=_block_size(options.get("bs"), op),
        iodepth=int(options.get("iodepth", 1)),
        numjobs=int(options.get("numjobs", 1)) if len(clones) == 1 else len(clones),
        rwmixread=_rwmixread(rw, options),
        runtime_s=max(s.get("runtime", 0) for s in stats) / 1000.0,
        iops=float(sum(s.get("iops", 0.0) for s in stats)),
        bw_bytes_per_s=float(sum(_bw_bytes(s) for s in stats)),
        io_bytes=sum(_io_bytes(s) for s in stats),
        total_ios=None if None in total_ios else sum(total_ios),
        error=error,
        flags=flags + ss_flags,
        metrics=ss_metrics,
        **lat,
    )


def _did_io(s: dict) -> bool:
    """fio reports every direction; one that did nothing has no I/Os (fio 2.1 has no
    ``total_ios``: its ``io_bytes`` says)."""
    if "total_ios" in s:
        return s["total_ios"] > 0
    return s.get("io_bytes", 0) > 0


def _bw_bytes(s: dict) -> float:
    """``bw_bytes`` (fio >= 3.6); before it only ``bw``, in KiB/s."""
    return s["bw_bytes"] if "bw_bytes" in s else s.get("bw", 0) * 1024


def _io_bytes(s: dict) -> int:
    """fio 3.x prints ``io_bytes`` and ``io_kbytes``; fio 2.x only ``io_bytes``, in KiB."""
    return int(s.get("io_bytes", 0)) if "io_kbytes" in s else int(s.get("io_bytes", 0)) * 1024


def _rwmixread(rw: str, options: dict[str, str]) -> int | None:
    if rw not in ("rw", "readwrite", "randrw", "trimwrite"):
        return None
    if "rwmixread" in options:
        return int(options["rwmixread"])
    return 100 - int(options["rwmixwrite"]) if "rwmixwrite" in options else 50


def _block_size(bs: str | None, op: str) -> int:
    """fio's ``bs`` may give read,write,trim sizes separately: ``bs=4k,64k``."""
    if not bs:
        return 4096
    parts = [p for p in str(bs).split(",")]
    index = OPS.index(op)
    chosen = parts[index] if index < len(parts) and parts[index] else parts[-1] or parts[0]
    return parse_size(chosen.split("-")[0])
