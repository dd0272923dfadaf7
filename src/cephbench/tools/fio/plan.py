"""fio's plan: a job file (from a suite or the user's file) with its overrides, sweep and
steady state, and the batches (fio processes) it runs in."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from cephbench.errors import UsageError
from cephbench.system.units import parse_seconds, parse_size
from cephbench.targets import LOCATION_KEYS
from cephbench.tools.fio.chain import Link, links_of, refusal
from cephbench.tools.fio.jobfile import Job, JobFile, load_jobfile, phases
from cephbench.tools.fio.steady_criterion import SteadyState
from cephbench.tools.fio.sweep import Axes, expand
from cephbench.tools.plan import Overrides, PlannedWorkload, expected_seconds

MAX_BATCH_BUFFER = 1 << 30
MAX_BATCH_PROCESSES = 64
MAX_BATCH_SECONDS = 600.0
"""A chained fio process runs at most this long: its results are stored when it ends, so a
crash (or a SIGKILL, which leaves fio no time to report) loses at most this much of a sweep."""
JOBFILE_SUFFIXES = (".fio", ".ini", ".job", ".jobs", ".cfg", ".conf")
METADATA_OPERATIONS = {"filecreate": "create", "filestat": "stat", "filedelete": "delete"}
"""fio's engines whose operations are file creates, stats and deletes (the metadata suite), and
what each does to its files (fio reports them in its read direction: ``rw`` says nothing)."""
METADATA_ENGINES = tuple(METADATA_OPERATIONS)
METADATA_FORMAT = "f.$jobnum.$filenum"
"""The names of a metadata job's files: the same for every engine, so the stats and deletes
find exactly the files the creates made."""


def metadata_dirs(tree: str, numjobs: int) -> list[str]:
    """A metadata job's directories in the target's tree, one per job (``dir0``...): fio gives
    each of a job's ``numjobs`` clones its own when ``directory`` lists as many (pure)."""
    return [f"{tree}/dir{i}" for i in range(max(1, numjobs))]


def dirs_to_make(jobfile: JobFile) -> list[str]:
    """The directories a metadata job file's jobs work in, which must exist before fio runs."""
    out: list[str] = []
    for job in jobfile.jobs:
        options = jobfile.merged(job)
        if options.get("ioengine") in METADATA_ENGINES and options.get("directory"):
            out += [d for d in (options["directory"] or "").split(":") if d and d not in out]
    return out


@dataclass(frozen=True)
class Batch:
    """Workloads that one fio process runs: its groups chained back to back through gates
    (drivers/fio/chain.py), or as the job file says."""

    jobfile: JobFile
    chained: bool

    @property
    def links(self) -> list[Link]:
        return links_of(self.jobfile)

    @property
    def workloads(self) -> list[PlannedWorkload]:
        return planned_workloads(self.jobfile)


@dataclass(frozen=True)
class Plan:
    suite: str
    jobfile: JobFile
    overrides: dict[str, str] = field(default_factory=dict)
    chained: bool = False
    """A suite: its workloads run one after another by design, so they are chained in one fio
    process (see drivers/fio/chain.py), split into batches when large. A user's job file runs
    in one fio process, its stonewall groups chained the same way when that is safe (see
    :attr:`as_written`), else exactly as written."""

    tool: str = "fio"
    default_target: str | None = None
    reads: bool = True
    """Whether any workload reads (an RBD image is prefilled only then)."""
    axes: Axes = field(default_factory=Axes)
    """The swept parameters (a sweep has one workload per point)."""
    steady: SteadyState | None = None

    @property
    def as_written(self) -> str | None:
        """Why a user's job file of several groups runs as written, not gated; else None."""
        if self.chained or len(phases(self.jobfile)) < 2:
            return None
        return refusal(self.jobfile) or _too_big(self.jobfile)

    def only(self, names: set[str] | list[str]) -> Plan:
        """The same plan with only the workloads named (to resume, or repeat some)."""
        jobs = tuple(j for j in self.jobfile.jobs if j.name in set(names))
        return replace(self, jobfile=JobFile(self.jobfile.global_, jobs))

    def batches(
        self,
        target_options: dict[str, str],
        one_per_workload: bool = False,
        tree: str | None = None,
    ) -> list[Batch]:
        """The job file(s) to run, target in place; suites split so no fio process holds
        more than MAX_BATCH_BUFFER bytes of I/O buffers or MAX_BATCH_PROCESSES jobs or runs
        longer than MAX_BATCH_SECONDS (and one workload per batch with ``one_per_workload``:
        page cache dropped before each, or steady state judged)."""
        jobfile = self.for_target(target_options, tree)
        if not self.chained:
            return _file_batches(jobfile, one_per_workload)
        batches = []
        current: list[Job] = []
        buffers, procs, seconds = 0, 0, 0.0
        for job in jobfile.jobs:
            options = jobfile.merged(job)
            need, n = _buffer_bytes(options), int(options.get("numjobs") or 1)
            took = _expected_seconds(options) or MAX_BATCH_SECONDS  # size-based: assume long
            if current and (
                one_per_workload
                or buffers + need > MAX_BATCH_BUFFER
                or procs + n > MAX_BATCH_PROCESSES
                or seconds + took > MAX_BATCH_SECONDS
            ):
                batches.append(
                    Batch(JobFile(jobfile.global_, tuple(current)), chained=self.chained)
                )
                current, buffers, procs, seconds = [], 0, 0, 0.0
            current.append(job)
            buffers, procs, seconds = buffers + need, procs + n, seconds + took
        batches.append(Batch(JobFile(jobfile.global_, tuple(current)), chained=self.chained))
        return batches

    @property
    def workloads(self) -> list[PlannedWorkload]:
        return planned_workloads(self.jobfile)

    def expected_seconds(self, repeats: int) -> float | None:
        return expected_seconds(self.workloads, repeats)

    def params(self) -> dict[str, Any]:
        params: dict[str, Any] = {"overrides": self.overrides}
        if self.axes.swept:
            params["sweep"] = self.axes.to_json()
        if self.steady:
            params["steady_state"] = vars(self.steady)
        return params

    @property
    def size(self) -> int | None:
        """The largest data size any workload asks for, bytes."""
        sizes = [
            parse_size(v) for j in self.jobfile.jobs if (v := self.jobfile.merged(j).get("size"))
        ]
        return max(sizes) if sizes else None

    def replaced_locations(self) -> list[str]:
        """What :meth:`for_target` replaces of the job file's own locations, one line per
        option and value with the sections that set it: a user is told their ``filename=``
        is not where the I/O goes."""
        found: dict[tuple[str, str], list[str]] = {}
        for section in (self.jobfile.global_, *self.jobfile.jobs):
            for key in LOCATION_KEYS:
                value = section.get(key)
                if value is not None:
                    found.setdefault((key, value), []).append(f"[{section.name}]")
        return [
            f"{key}={value} ({', '.join(sections)}) is replaced by the target's location"
            for (key, value), sections in found.items()
        ]

    @property
    def metadata(self) -> bool:
        """Its jobs create, stat and delete files (fio's metadata engines) in a directory."""
        return any(
            self.jobfile.merged(j).get("ioengine") in METADATA_ENGINES for j in self.jobfile.jobs
        )

    def for_target(self, target_options: dict[str, str], tree: str | None = None) -> JobFile:
        """The job file with the target's location (and engine) in place of the file's own;
        a metadata plan works in the target's ``tree`` instead of its data file."""
        if self.metadata:
            if any(
                self.jobfile.merged(j).get("ioengine") not in METADATA_ENGINES
                for j in self.jobfile.jobs
            ):
                raise UsageError(
                    "a job file mixes fio's metadata engines (filecreate, filestat, filedelete) "
                    "with data workloads",
                    hint="run them as two job files",
                )
            if tree is None:
                raise UsageError(
                    "metadata workloads need a directory target", hint="use file:DIR or cephfs:"
                )
            located = {k: v for k, v in target_options.items() if k != "filename"}
            target_options = {**located, "directory": tree, "filename_format": METADATA_FORMAT}
            strip = (*LOCATION_KEYS, *target_options)
            global_ = self.jobfile.global_.without(*strip).with_options(dict(target_options))
            jobs = []
            for j in self.jobfile.jobs:
                n = int(self.jobfile.merged(j).get("numjobs") or 1)
                dirs = ":".join(metadata_dirs(tree, n))
                jobs.append(j.without(*strip).with_options({"directory": dirs}))
            return JobFile(global_, tuple(jobs))
        strip = (*LOCATION_KEYS, *target_options)
        global_ = self.jobfile.global_.without(*strip).with_options(dict(target_options))
        return JobFile(global_, tuple(j.without(*strip) for j in self.jobfile.jobs))


def _file_batches(jobfile: JobFile, one_per_group: bool) -> list[Batch]:
    """A user's job file: one fio process, its groups gated when that is safe; or a process
    per group (run as written) when each must run alone."""
    groups = phases(jobfile)
    if one_per_group:
        return [Batch(JobFile(jobfile.global_, g), chained=False) for g in groups]
    gated = len(groups) > 1 and refusal(jobfile) is None and _too_big(jobfile) is None
    return [Batch(jobfile, chained=gated)]


def _too_big(jobfile: JobFile) -> str | None:
    """Why starting every job of the file at once is too much (gated, all start together)."""
    options = [jobfile.merged(j) for j in jobfile.jobs]
    try:
        buffers = sum(_buffer_bytes(o) for o in options)
        processes = sum(int(o.get("numjobs") or 1) for o in options)
    except (UsageError, ValueError):
        return "its block sizes or numjobs are not plain values (a ${VARIABLE}?)"
    if buffers > MAX_BATCH_BUFFER:
        return (
            f"its jobs' I/O buffers, all allocated at once, would exceed "
            f"{MAX_BATCH_BUFFER >> 20} MiB"
        )
    if processes > MAX_BATCH_PROCESSES:
        return f"it starts more than {MAX_BATCH_PROCESSES} jobs at once"
    return None


def make_fio_plan(
    suite_or_file: str,
    overrides: Overrides,
    axes: Axes | None = None,
    steady: SteadyState | None = None,
) -> Plan:
    """A fio suite (YAML, by name or path) or the user's own job file, with the overrides,
    the sweep's axes and the steady-state criterion applied."""
    axes = axes or Axes()
    path = Path(suite_or_file)
    if path.suffix in JOBFILE_SUFFIXES or (path.is_file() and path.suffix not in (".yaml", ".yml")):
        if not path.is_file():
            raise UsageError(f"fio job file {path} does not exist")
        jobfile, suite, chained, full_names = load_jobfile(path), str(path), False, False
    else:  # YAML and pydantic: not for --help, nor for a job file
        from cephbench.tools.fio.suites import load_suite, to_jobfile

        spec = load_suite(suite_or_file)
        jobfile, suite, chained, full_names = to_jobfile(spec), spec.name, True, spec.sweep
    opts = overrides.options()
    fio_opts = {**opts, **(steady.options() if steady else {})}
    if fio_opts:
        jobfile = JobFile(
            jobfile.global_.with_options(fio_opts),
            tuple(j.without(*fio_opts) for j in jobfile.jobs),
        )
    jobfile = expand(jobfile, axes, full_names)
    reads = any(_reads(jobfile.merged(j).get("rw")) for j in jobfile.jobs)
    return Plan(suite, jobfile, opts, chained, reads=reads, axes=axes, steady=steady)


def _reads(rw: str | None) -> bool:
    return (rw or "read") in ("read", "randread", "rw", "readwrite", "randrw")


def _buffer_bytes(options: dict[str, str | None]) -> int:
    """I/O buffer memory a job allocates up front: iodepth x largest block size x numjobs."""
    bs = max(parse_size(p.split("-")[-1]) for p in (options.get("bs") or "4k").split(",") if p)
    return int(options.get("iodepth") or 1) * bs * int(options.get("numjobs") or 1)


def planned_workloads(jobfile: JobFile) -> list[PlannedWorkload]:
    return [PlannedWorkload(j.name, _expected_seconds(jobfile.merged(j))) for j in jobfile.jobs]


def time_based_runtime(options: dict[str, str | None]) -> float | None:
    """The runtime of a time-based job, seconds; None when fio's own size decides."""
    if options.get("time_based", "0") in ("0", "false") or "runtime" not in options:
        return None
    return parse_seconds(options["runtime"] or 0)


def _expected_seconds(options: dict[str, str | None]) -> float | None:
    runtime = time_based_runtime(options)
    return None if runtime is None else runtime + parse_seconds(options.get("ramp_time") or 0)
