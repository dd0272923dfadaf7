"""What a run will do: a fio job file (from a suite or the user's file) and its overrides."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .drivers.fio.jobfile import JobFile, load_jobfile
from .errors import UsageError
from .suites import load_suite, to_jobfile
from .targets import LOCATION_KEYS
from .units import parse_seconds, parse_size

JOBFILE_SUFFIXES = (".fio", ".ini", ".job", ".jobs", ".cfg", ".conf")


@dataclass(frozen=True)
class Overrides:
    """Command-line values that replace a suite's or job file's own, for every workload."""

    runtime: str | None = None
    size: str | None = None
    iodepth: int | None = None
    numjobs: int | None = None
    bs: str | None = None

    def options(self) -> dict[str, str]:
        opts = {k: str(v) for k, v in vars(self).items() if v is not None}
        if "size" in opts:
            parse_size(opts["size"])  # validate early, with a clear message
        if "runtime" in opts:
            parse_seconds(opts["runtime"])
        return opts


@dataclass(frozen=True)
class PlannedWorkload:
    name: str
    seconds: float | None
    """Expected duration (time_based runtime plus ramp); None when fio decides (size-based)."""


@dataclass(frozen=True)
class Plan:
    suite: str
    jobfile: JobFile
    overrides: dict[str, str] = field(default_factory=dict)

    @property
    def workloads(self) -> list[PlannedWorkload]:
        return [PlannedWorkload(j.name, _expected_seconds(self.jobfile.merged(j))) for j in self.jobfile.jobs]

    @property
    def size(self) -> int | None:
        """The largest data size any workload asks for, bytes."""
        sizes = [parse_size(v) for j in self.jobfile.jobs if (v := self.jobfile.merged(j).get("size"))]
        return max(sizes) if sizes else None

    def for_target(self, target_options: dict[str, str]) -> JobFile:
        """The job file with the target's location (and engine) in place of the file's own."""
        strip = (*LOCATION_KEYS, *target_options)
        global_ = self.jobfile.global_.without(*strip).with_options(dict(target_options))
        return JobFile(global_, tuple(j.without(*strip) for j in self.jobfile.jobs))


def make_plan(suite_or_file: str, overrides: Overrides) -> Plan:
    path = Path(suite_or_file)
    if path.suffix in JOBFILE_SUFFIXES or (path.is_file() and path.suffix not in (".yaml", ".yml")):
        if not path.is_file():
            raise UsageError(f"fio job file {path} does not exist")
        jobfile, suite = load_jobfile(path), str(path)
    else:
        spec = load_suite(suite_or_file)
        jobfile, suite = to_jobfile(spec), spec.name
    opts = overrides.options()
    if opts:
        jobfile = JobFile(jobfile.global_.with_options(opts), tuple(j.without(*opts) for j in jobfile.jobs))
    return Plan(suite, jobfile, opts)


def _expected_seconds(options: dict[str, str | None]) -> float | None:
    if "runtime" not in options:
        return None
    runtime = parse_seconds(options["runtime"] or 0)
    ramp = parse_seconds(options.get("ramp_time") or 0)
    if "time_based" in options and options["time_based"] not in ("0", "false"):
        return runtime + ramp
    return None

