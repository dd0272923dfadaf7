"""fio job files: parsed into ordered sections, rendered back to text fio reads.

Only what fio itself defines: ``[section]`` headers, ``key=value`` or bare ``key`` lines,
``;``/``#`` comments, and ``include FILE``. ``${VAR}`` and all semantics are left to fio, but
for one: where ``stonewall`` splits a file into groups that run one after another.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from cephbench.errors import UsageError

Option = tuple[str, str | None]

RW = Literal[
    "read",
    "write",
    "randread",
    "randwrite",
    "rw",
    "readwrite",
    "randrw",
    "trim",
    "randtrim",
    "trimwrite",
]
"""fio's ``rw`` values: the I/O patterns."""


@dataclass(frozen=True)
class Job:
    """One ``[name]`` section, options in file order (a bare flag has value None)."""

    name: str
    options: tuple[Option, ...] = ()

    def get(self, key: str, default: str | None = None) -> str | None:
        for k, v in reversed(self.options):
            if k == key:
                return v if v is not None else "1"
        return default

    def has(self, key: str) -> bool:
        return any(k == key for k, _ in self.options)

    def without(self, *keys: str) -> Job:
        return replace(self, options=tuple(o for o in self.options if o[0] not in keys))

    def with_options(self, options: Mapping[str, str | None]) -> Job:
        """This job with ``options`` set, replacing any earlier values of the same keys."""
        base = self.without(*options)
        return replace(base, options=(*base.options, *options.items()))


@dataclass(frozen=True)
class JobFile:
    global_: Job = field(default_factory=lambda: Job("global"))
    jobs: tuple[Job, ...] = ()

    def merged(self, job: Job) -> dict[str, str | None]:
        """A job's effective options: [global] first, the job's own after."""
        merged: dict[str, str | None] = {}
        for k, v in (*self.global_.options, *job.options):
            merged[k] = v
        return merged

    def render(self) -> str:
        sections = [self.global_, *self.jobs] if self.global_.options else list(self.jobs)
        out = []
        for s in sections:
            out.append(f"[{s.name}]")
            out += [k if v is None else f"{k}={v}" for k, v in s.options]
            out.append("")
        return "\n".join(out)


STONEWALL = ("stonewall", "wait_for_previous")  # fio's name and its alias


def is_set(value: str | None) -> bool:
    """A fio boolean option's value: a bare flag (None) or a number other than 0."""
    return value is None or value.strip().lower() not in ("0", "false", "no", "off")


def phases(jobfile: JobFile) -> list[tuple[Job, ...]]:
    """The jobs in the groups fio runs one after another: a job with ``stonewall`` (its own
    or the [global] one) waits for every job before it, so it starts a new phase; the others
    run alongside the job before them (``new_group`` only starts a new reporting group)."""
    found: list[list[Job]] = []
    for job in jobfile.jobs:
        merged = jobfile.merged(job)
        wall = any(k in merged and is_set(merged[k]) for k in STONEWALL)
        if wall or not found:
            found.append([])
        found[-1].append(job)
    return [tuple(p) for p in found]


def phase_of(jobfile: JobFile) -> dict[str, int]:
    """Each job's phase (see :func:`phases`), by name; a reused name keeps its first."""
    index: dict[str, int] = {}
    for i, phase in enumerate(phases(jobfile)):
        for job in phase:
            index.setdefault(job.name, i)
    return index


def parse_jobfile(text: str, source: str = "<job file>", base: Path | None = None) -> JobFile:
    """Parse fio job-file text; ``source`` names the file in error messages."""
    _, global_opts, jobs = _parse(text, source, base, fragment=False)
    if not jobs:
        raise UsageError(
            f"{source} has no jobs", hint="a fio job file needs at least one [name] section"
        )
    return JobFile(Job("global", tuple(global_opts)), tuple(Job(n, tuple(o)) for n, o in jobs))


def _parse(text: str, source: str, base: Path | None, fragment: bool):
    """(options before any section, [global] options, [(job, options)]).

    Options before any section are only allowed in a ``fragment``: a file pulled in by
    ``include``, whose options belong to the section that includes it.
    """
    loose: list[Option] = []
    global_opts: list[Option] = []
    jobs: list[tuple[str, list[Option]]] = []
    current: list[Option] | None = loose if fragment else None
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line[0] in ";#":
            continue
        if line.startswith("include "):
            path = Path(line.split(None, 1)[1].strip())
            path = path if path.is_absolute() or base is None else base / path
            inc_loose, inc_global, inc_jobs = _parse(
                _read(path), str(path), path.parent, fragment=True
            )
            (current if current is not None else global_opts).extend(inc_loose)
            global_opts.extend(inc_global)
            jobs += inc_jobs
            continue
        if line.startswith("["):
            if not line.endswith("]") or len(line) < 3:
                raise UsageError(f"{source}:{lineno}: malformed section header '{line}'")
            name = line[1:-1].strip()
            if name == "global":
                current = global_opts
            else:
                jobs.append((name, []))
                current = jobs[-1][1]
            continue
        if current is None:
            raise UsageError(f"{source}:{lineno}: option '{line}' comes before any [section]")
        key, sep, value = line.partition("=")
        current.append((key.strip(), value.strip() if sep else None))
    return loose, global_opts, jobs


def load_jobfile(path: str | Path) -> JobFile:
    path = Path(path)
    return parse_jobfile(_read(path), str(path), path.parent)


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError as e:
        raise UsageError(f"cannot read fio job file {path}: {e.strerror}") from e
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not a text fio job file") from None
