"""fio's normal (human) output, 3.x and 2.x, as people paste it, to Results: a pure function.

Pasted text is messy: prompts and the command line before the output, Markdown fences,
leading spaces eaten by blog engines, CRLF, trailers present or not. Lines are therefore
read by their content, never by their indentation. Figures are taken exactly as fio printed
them: ``IOPS=32.3k`` is 32300, ``BW=285MiB/s`` is 285 * 2**20 bytes/s (the binary figure,
exact to fio's precision, where both are printed), latencies in the unit of their line.
In fio 2.x, ``KB`` means KiB. Latency follows the JSON parser's rule: the mean is fio's total
latency (the ``lat (...)`` line) wherever printed, else the completion latency's; the
percentiles are those printed, of the kind printed (``lat_kind``); none (null) when fio
printed none. Several runs pasted one after another (a new ``fio-X.Y`` line, or a new job
definition after a finished run) are separate documents.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from cephbench.errors import ParseError
from cephbench.model import Result
from cephbench.tools.fio.latency import HEADLINE_PERCENTILES, latency_means
from cephbench.tools.fio.parse import OPS, JobOutcome

HEADER = re.compile(
    r"^(?P<name>\S[^:]*?): \(groupid=(?P<group>\d+), jobs=(?P<jobs>\d+)\): err=\s*(?P<err>\d+)(?P<rest>.*)$"
)
DEFINITION = re.compile(
    r"^(?P<name>\S[^:]*?): \(g=\d+\): rw=(?P<rw>\w+), bs=(?P<bs>.*?), ioengine=[^,]+, iodepth=(?P<iodepth>\d+)"
)
V3_DIRECTION = re.compile(
    r"^(?P<op>read|write|trim)\s*: IOPS=(?P<iops>[\d.]+[kMG]?), BW=(?P<bw>[\d.]+[kKMGTP]?i?B/s)"
    r"(?: \((?P<bw2>[\d.]+[kKMGTP]?i?B/s)\))?\((?P<io>[\d.]+[kKMGTP]?i?B)/(?P<runt>\d+)msec\)"
)
V2_DIRECTION = re.compile(
    r"^(?P<op>read|write|trim)\s*: io=(?P<io>[\d.]+[kKMGTP]?B), bw=(?P<bw>[\d.]+[kKMGTP]?B/s), "
    r"iops=(?P<iops>[\d.]+[kKM]?), runt=\s*(?P<runt>\d+)msec"
)
STAT = re.compile(
    r"^(?P<kind>slat|clat|lat)\s*\((?P<unit>nsec|usec|msec)\)\s*: min=\s*(?P<min>[\d.]+[kKMG]?), "
    r"max=\s*(?P<max>[\d.]+[kKMG]?), avg=\s*(?P<avg>[\d.]+[kKMG]?)"
)
PERCENTILE_HEAD = re.compile(r"^(?P<kind>clat|lat) percentiles \((?P<unit>nsec|usec|msec)\):")
PERCENTILE = re.compile(r"(\d+(?:\.\d+)?)th=\[\s*(\d+)\]")
ISSUED_V3 = re.compile(r"^issued rwts?: total=(\d+),(\d+),(\d+)")
ISSUED_V2 = re.compile(r"^issued\s*: total=r=(\d+)/w=(\d+)/d=(\d+)")
VERSION = re.compile(r"^fio-(\d+\.\d+\S*)$")
JOB_END = re.compile(r"^(?:cpu\s*:|IO depths\s*:|issued\b)")
"""The lines fio prints after a job's last direction: the job's figures are all there."""
RUN_STATUS = re.compile(r"^Run status group \d+")
WHEN = re.compile(r": (?P<when>\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4})$")
"""The time at the end of a job's header line (``ctime``: ``Sat Nov 21 11:09:28 2026``)."""
GLUED = re.compile(r"(\[eta [^\]\n]*\])(?=[^\s\[])")  # a progress line with no newline after it
TO_US = {"nsec": 1e-3, "usec": 1.0, "msec": 1e3}
COUNT_SUFFIX = {"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9}


@dataclass
class _Direction:
    op: str
    iops: float
    bw: float
    io_bytes: int
    runtime_s: float
    stats: dict[str, tuple[float, float]] = field(default_factory=dict)  # kind -> (avg, max) µs
    percentiles: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    issued: int | None = None


@dataclass
class _Job:
    name: str
    group: int
    jobs: int
    error: int
    message: str | None
    directions: list[_Direction] = field(default_factory=list)
    ended: bool = False
    """Whether the lines fio prints after its figures were seen (it is not cut off)."""


@dataclass(frozen=True)
class TextDocument:
    version: str | None
    jobs: list[JobOutcome]
    cut: tuple[str, ...] = ()
    """Jobs cut off before their figures ended: not read, named here."""
    warnings: tuple[str, ...] = ()
    when: str | None = None
    """The time on the first job's header line as printed (fio's local time, no zone)."""


def normalise(text: str) -> list[str]:
    """Lines without CR, fences or indentation."""
    lines = []
    text = GLUED.sub("\\1\n", text.replace("\r\n", "\n").replace("\r", "\n"))
    for raw in text.split("\n"):
        line = raw.strip()
        if line.startswith("```") or line.startswith("~~~"):
            continue
        lines.append(line)
    return lines


def parse_text(text: str, repeat: int = 0) -> TextDocument:
    """The one fio run in ``text``; see :func:`parse_text_all` for several."""
    return _parse_lines(normalise(text), repeat)


def parse_text_all(text: str, repeat: int = 0) -> list[TextDocument]:
    """Every fio run in ``text``: runs pasted one after another are told apart by a new
    ``fio-X.Y`` line or a new job definition after a finished run's results."""
    runs: list[list[str]] = [[]]
    results = False
    for line in normalise(text):
        if results and (VERSION.match(line) or DEFINITION.match(line)):
            runs.append([])
            results = False
        runs[-1].append(line)
        results = results or bool(HEADER.match(line))
    docs = [_parse_lines(lines, repeat) for lines in runs if any(HEADER.match(ln) for ln in lines)]
    if not docs:
        return [_parse_lines([], repeat)]  # raises: no job results
    return docs


def _parse_lines(lines: list[str], repeat: int) -> TextDocument:
    version, v2 = None, False
    definitions: dict[str, dict] = {}
    jobs: list[_Job] = []
    percentiles: list | None = None
    status = False  # a "Run status group" line after the last job's header
    when = None
    for line in lines:
        if m := VERSION.match(line):
            version, v2 = f"fio-{m.group(1)}", m.group(1).startswith("2.")
        elif m := DEFINITION.match(line):
            definitions.setdefault(m.group("name"), m.groupdict())
        elif m := HEADER.match(line):
            jobs.append(
                _Job(
                    m.group("name"),
                    int(m.group("group")),
                    int(m.group("jobs")),
                    int(m.group("err")),
                    _error_detail(m.group("rest")) if int(m.group("err")) else None,
                )
            )
            percentiles, status = None, False
            if when is None and (t := WHEN.search(m.group("rest"))):
                when = " ".join(t["when"].split())
        elif not jobs:
            continue
        elif RUN_STATUS.match(line):
            status = True
        elif JOB_END.match(line):
            percentiles, jobs[-1].ended = None, True
            _issued(line, jobs[-1])
        elif m := V3_DIRECTION.match(line):
            jobs[-1].directions.append(_v3_direction(m))
            percentiles = None
        elif m := V2_DIRECTION.match(line):
            v2 = True
            jobs[-1].directions.append(_v2_direction(m))
            percentiles = None
        elif not jobs[-1].directions:
            continue
        elif m := STAT.match(line):
            scale = TO_US[m.group("unit")]
            jobs[-1].directions[-1].stats[m.group("kind")] = (
                _count(m.group("avg")) * scale,
                _count(m.group("max")) * scale,
            )
        elif m := PERCENTILE_HEAD.match(line):
            percentiles = jobs[-1].directions[-1].percentiles.setdefault(m.group("kind"), [])
            scale = TO_US[m.group("unit")]
        elif percentiles is not None and (entries := PERCENTILE.findall(line)):
            percentiles += [(float(p), float(v) * scale) for p, v in entries]
        else:
            percentiles = None
    if not jobs:
        raise ParseError("no fio job results found (no 'name: (groupid=N, jobs=M): err=' line)")
    if not any(j.directions or j.error for j in jobs):
        raise ParseError("fio job headers found, but no read/write/trim figures under them")
    cut, warnings = _cut(jobs, definitions, status)
    jobs = [j for j in jobs if j.name not in cut]
    return TextDocument(
        version or ("fio-2.x" if v2 else None),
        _outcomes(jobs, definitions, repeat, v2),
        tuple(cut.values()),
        warnings,
        when,
    )


def _cut(
    jobs: list[_Job], definitions: dict[str, dict], status: bool
) -> tuple[dict[str, str], tuple[str, ...]]:
    """The jobs cut off (by name: a clone cut makes its whole group's figures partial) and why,
    and the warning for a run whose jobs are whole but whose ``Run status group`` is missing.
    Only the last job can be cut: any other has a header after it."""
    if status:
        return {}, ()
    last = jobs[-1]
    if last.ended:
        return {}, ("the output ends before fio's 'Run status group' lines: cut off there?",)
    shown = [d.op for d in last.directions]
    rw = definitions.get(last.name, {}).get("rw")
    where = f" after its {' and '.join(shown)} figures" if shown else ""
    what = f" ({rw})" if rw else ""
    return {
        last.name: f"fio job {last.name}{what} cut off{where}, before its cpu/IO depths lines "
        "and 'Run status group'"
    }, ()


def _error_detail(rest: str) -> str | None:
    m = re.search(r"\((.*)\)", rest)
    return m.group(1) if m else None


def _count(text: str) -> float:
    return float(text.rstrip("kKMG")) * COUNT_SUFFIX[text[-1] if text[-1] in "kKMG" else ""]


def _bytes(text: str, v2: bool) -> float:
    """``285MiB`` or ``299MB`` (or fio 2.x ``2560.8KB``, where KB means KiB) in bytes."""
    m = re.match(r"(\d+(?:\.\d*)?)([kKMGTP]?)(i?)B", text)
    if m is None:
        raise ParseError(f"{text!r} is not a size as fio prints one (e.g. 4096B, 2560.8KB, 285MiB)")
    value, prefix, binary = float(m.group(1)), m.group(2).upper(), m.group(3)
    power = " KMGTP".index(prefix) if prefix else 0
    return value * (1024 if binary or v2 else 1000) ** power


def _v3_direction(m: re.Match) -> _Direction:
    bw = m.group("bw")
    if m.group("bw2") and "iB" in m.group("bw2") and "iB" not in bw:
        bw = m.group("bw2")  # printed with kb_base=1000: the binary figure is the second one
    return _Direction(
        m.group("op"),
        _count(m.group("iops")),
        _bytes(bw, False),
        int(_bytes(m.group("io"), False)),
        int(m.group("runt")) / 1000,
    )


def _v2_direction(m: re.Match) -> _Direction:
    return _Direction(
        m.group("op"),
        _count(m.group("iops")),
        _bytes(m.group("bw"), True),
        int(_bytes(m.group("io"), True)),
        int(m.group("runt")) / 1000,
    )


def _issued(line: str, job: _Job) -> None:
    m = ISSUED_V3.match(line) or ISSUED_V2.match(line)
    if m:
        counts = dict(zip(OPS, (int(x) for x in m.groups()), strict=True))
        for d in job.directions:
            d.issued = counts[d.op]


def _outcomes(
    jobs: list[_Job], definitions: dict[str, dict], repeat: int, v2: bool
) -> list[JobOutcome]:
    by_name: dict[str, list[_Job]] = {}
    for job in jobs:
        by_name.setdefault(job.name, []).append(job)
    outcomes = []
    for name, clones in by_name.items():
        definition = definitions.get(name, {})
        results = []
        for op in OPS:
            dirs = [d for c in clones for d in c.directions if d.op == op]
            if dirs:
                results.append(_result(name, op, dirs, definition, clones, repeat, v2))
        error = next((c.error for c in clones if c.error), 0)
        message = next((c.message for c in clones if c.message), None)
        outcomes.append(
            JobOutcome(
                name,
                clones[0].group,
                tuple(results),
                error,
                f"fio error {error}: {message}" if error else None,
            )
        )
    return outcomes


def _result(name, op, dirs: list[_Direction], definition, clones, repeat, v2) -> Result:
    lat = _latency(dirs)
    flags: tuple[str, ...] = () if lat["lat_mean_us"] is not None else ("no_latency",)
    if lat.pop("mean_kind") == "clat":
        flags = ("clat_mean",)
    if (
        lat["lat_kind"]
        and len(dirs) > 1
        and not lat["percentiles"]
        and any(d.percentiles for d in dirs)
    ):
        flags += ("percentiles_unmerged",)
    numjobs = clones[0].jobs if len(clones) == 1 else len(clones)
    issued = [d.issued for d in dirs if d.issued is not None]
    total = sum(issued) if len(issued) == len(dirs) else None
    return Result(
        workload=name,
        repeat=repeat,
        op=op,
        rw=definition.get("rw"),
        bs=_block_size(definition.get("bs"), op, v2),
        iodepth=int(definition["iodepth"]) if definition else None,
        numjobs=numjobs,
        runtime_s=max(d.runtime_s for d in dirs),
        iops=sum(d.iops for d in dirs),
        bw_bytes_per_s=sum(d.bw for d in dirs),
        io_bytes=sum(d.io_bytes for d in dirs),
        total_ios=total,
        flags=flags,
        **lat,
    )


def _mean(dirs: list[_Direction], kind: str) -> tuple[float, float] | None:
    """(mean, max) µs of one kind over the clones (weighted by their I/Os), if all printed it."""
    if not all(kind in d.stats for d in dirs):
        return None
    weights = [d.issued or 1 for d in dirs]
    mean = sum(d.stats[kind][0] * w for d, w in zip(dirs, weights, strict=True)) / sum(weights)
    return mean, max(d.stats[kind][1] for d in dirs)


def _latency(dirs: list[_Direction]) -> dict:
    """Same rule as the JSON parser: the mean of total latency where printed, else of
    completion latency; the percentiles printed, of their kind."""
    out = latency_means(*(_mean(dirs, k) for k in ("lat", "clat", "slat")))
    for kind in ("lat", "clat"):
        if all(kind in d.percentiles for d in dirs):
            out["lat_kind"] = kind
            if len(dirs) == 1:
                points = tuple(sorted(dirs[0].percentiles[kind]))
                table = dict(points)
                out.update(
                    {f: table.get(p) for p, f in HEADLINE_PERCENTILES.items()}, percentiles=points
                )
            break
    return out


def _block_size(bs: str | None, op: str, v2: bool) -> int | None:
    """``(R) 4096B-4096B, (W) ...`` (3.x) or ``4K-4K/4K-4K/4K-4K`` (2.x), for this direction."""
    if not bs:
        return None
    if "(" in bs:
        sizes = dict(re.findall(r"\((R|W|T)\) ([\d.]+[KMGT]?i?B)", bs))
        size = sizes.get({"read": "R", "write": "W", "trim": "T"}[op])
        return int(_bytes(size, False)) if size else None
    parts = bs.split("/")
    part = parts[OPS.index(op)] if OPS.index(op) < len(parts) else parts[0]
    return int(_bytes(part.split("-")[0] + ("" if part.split("-")[0].endswith("B") else "B"), True))
