"""fio's JSON output (``json`` and ``json+``) to Results: a pure function of the text.

One fio process can report many jobs. Each reported ``jobname`` is a workload: with
``group_reporting`` fio merges a group for us; without it, the clones of a ``numjobs > 1``
job are reported separately and merged here (percentiles exactly, from json+ latency bins).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

from cephbench.errors import ParseError, UsageError
from cephbench.model import Result
from cephbench.system.units import parse_size
from cephbench.tools.fio.steady import steady_state

OPS = ("read", "write", "trim")
ALL_CLIENTS = "All clients"
HEADLINE_PERCENTILES = {50.0: "lat_p50_us", 90.0: "lat_p90_us", 99.0: "lat_p99_us", 99.9: "lat_p999_us"}
_ERR_LINE = re.compile(r"^fio: pid=\d+, err=(\d+)/.*$", re.MULTILINE)


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
            return "fio did no I/O for this workload; see its raw output"
        return None


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
    """Every fio JSON document in ``text``, with the ``fio: ...`` lines around them.

    Lines fio's client/server mode prefixes with ``<host>`` are dropped first: they can land
    in the middle of a document.
    """
    text = "\n".join(ln for ln in text.splitlines() if not ln.startswith("<"))
    starts = ([0] if text.startswith("{") else []) + [m.end() - 1 for m in re.finditer(r"\n\{", text)]
    decoder, documents, spans = json.JSONDecoder(), [], []
    for start in starts:
        if spans and start < spans[-1][1]:
            continue  # inside the previous document
        try:
            data, end = decoder.raw_decode(text, start)
        except (json.JSONDecodeError, RecursionError):
            continue
        if isinstance(data, dict) and ("jobs" in data or "client_stats" in data):
            documents.append(data)
            spans.append((start, end))
    if not documents:
        raise ParseError("no fio JSON document found in the output")
    outside, last = [], 0
    for start, end in spans:
        outside.append(text[last:start])
        last = end
    outside.append(text[last:])
    messages = tuple(ln for ln in "".join(outside).splitlines() if ln.startswith("fio: "))
    return [FioDocument(d, messages) for d in documents]


def parse(text: str, repeat: int = 0, stderr: str = "") -> list[JobOutcome]:
    """Every reported workload of one fio run, in the order fio ran them."""
    return parse_document(extract(text), repeat, stderr)


def parse_document(doc: FioDocument, repeat: int = 0, stderr: str = "") -> list[JobOutcome]:
    """The workloads of one document (see :func:`extract_all`); ParseError if malformed."""
    try:
        return _parse_document(doc, repeat, stderr)
    except (KeyError, TypeError, ValueError, AttributeError, UsageError) as e:
        raise ParseError(f"fio's JSON has an unexpected shape ({type(e).__name__}: {e})") from e


def _parse_document(doc: FioDocument, repeat: int, stderr: str) -> list[JobOutcome]:
    global_options = _options(doc.data.get("global options"))
    grouped: dict[str, list[dict]] = {}
    # client/server output: one entry per job and client, plus an "All clients" sum, which
    # is left out: the clients' entries are merged like clones (exactly, through json+ bins)
    entries = doc.data["jobs"] if "jobs" in doc.data else doc.data["client_stats"]
    for job in entries:
        if job["jobname"] != ALL_CLIENTS:
            grouped.setdefault(job["jobname"], []).append(job)
    error_lines = [*doc.messages, *(ln for ln in stderr.splitlines() if ln.startswith("fio: "))]
    return [
        _outcome(name, clones, {**global_options, **_options(clones[0].get("job options"))},
                 repeat, error_lines)
        for name, clones in grouped.items()
    ]


def _options(raw) -> dict[str, str]:
    if isinstance(raw, list):  # some fio versions print "global options" as a one-element list
        raw = raw[0] if raw else {}
    return dict(raw or {})


def _outcome(name: str, clones: list[dict], options: dict[str, str], repeat: int,
             error_lines: list[str]) -> JobOutcome:
    error = next((c["error"] for c in clones if c.get("error")), 0)
    results = tuple(
        r for op in OPS if (r := _direction(name, clones, op, options, repeat, error)) is not None
    )
    message = _error_message(error, error_lines) if error else None
    return JobOutcome(name, clones[0].get("groupid", 0), results, error, message)


def _error_message(errno: int, lines: list[str]) -> str:
    for line in lines:
        m = _ERR_LINE.match(line)
        if m and int(m.group(1)) == errno:
            return line
    return next(iter(lines), f"fio error {errno}")


def _direction(name, clones, op, options, repeat, error) -> Result | None:
    stats = [c[op] for c in clones if op in c]
    total_ios = sum(s.get("total_ios", 0) for s in stats)
    if total_ios == 0:
        return None
    lat = _latency([s.get("lat_ns", {}) for s in stats], [s.get("clat_ns", {}) for s in stats])
    flags = () if lat["lat_kind"] else ("no_latency",)
    if lat["lat_kind"] and len(stats) > 1 and not lat["percentiles"]:
        flags = ("percentiles_unmerged",)
    rw = options.get("rw", options.get("readwrite", "read"))
    ss_flags, ss_metrics = steady_state(clones)
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
        iops=sum(s.get("iops", 0.0) for s in stats),
        bw_bytes_per_s=float(sum(s.get("bw_bytes", 0) for s in stats)),
        io_bytes=sum(s.get("io_bytes", 0) for s in stats),
        total_ios=total_ios,
        error=error,
        flags=flags + ss_flags,
        metrics=ss_metrics,
        **lat,
    )


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


def _latency(lats: list[dict], clats: list[dict]) -> dict:
    """Total latency where fio recorded its percentiles, else completion latency, else none."""
    for kind, stats in (("lat", lats), ("clat", clats)):
        n = sum(s.get("N", 0) for s in stats)
        if n and all("percentile" in s for s in stats):
            return _summarise(kind, stats, n)
    none = dict.fromkeys(["lat_mean_us", "lat_max_us", *HEADLINE_PERCENTILES.values()])
    return {**none, "lat_kind": None, "percentiles": ()}


def _summarise(kind: str, stats: list[dict], n: int) -> dict:
    mean_ns = sum(s["mean"] * s["N"] for s in stats) / n
    out = {"lat_kind": kind, "lat_mean_us": mean_ns / 1000, "lat_max_us": max(s["max"] for s in stats) / 1000}
    if len(stats) == 1:
        points = sorted((float(p), v / 1000) for p, v in stats[0]["percentile"].items())
    elif all("bins" in s for s in stats):
        points = _percentiles_from_bins(
            _merge_bins(s["bins"] for s in stats), [float(p) for p in stats[0]["percentile"]]
        )
    else:  # plain json of several clones: percentiles cannot be merged exactly
        points = []
    table = dict(points)
    out.update({field: table.get(p) for p, field in HEADLINE_PERCENTILES.items()})
    out["percentiles"] = tuple(points)
    return out


def _merge_bins(bins: Iterable[dict[str, int]]) -> list[tuple[int, int]]:
    merged: dict[int, int] = {}
    for b in bins:
        for value, count in b.items():
            merged[int(value)] = merged.get(int(value), 0) + count
    return sorted(merged.items())


def _percentiles_from_bins(bins: list[tuple[int, int]], percents: list[float]) -> list[tuple[float, float]]:
    """fio's own rule: the smallest bin value whose cumulative count reaches p % of samples."""
    total = sum(c for _, c in bins)
    points = []
    for p in sorted(percents):
        need = math.ceil(total * p / 100.0)
        seen = 0
        for value, count in bins:
            seen += count
            if seen >= need:
                points.append((p, value / 1000))
                break
    return points
