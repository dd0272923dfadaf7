"""Suites: named lists of fio workloads, kept as YAML data and validated here.

A suite renders to one fio job file, a job per workload; the runner chains them (each waits
at a gate until the previous one has finished: tools/fio/chain.py), so one fio process runs
the whole suite (fio starts once, not once per workload) while each workload is still
reported, stored and shown on its own.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from cephbench.errors import UsageError
from cephbench.tools.fio.jobfile import RW, Job, JobFile

FioValue = str | int | float | bool | None


class WorkloadSpec(BaseModel):
    """One workload of a suite: a fio job."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(pattern=r"^[A-Za-z0-9_.-]+$", description="Workload name, shown in tables.")
    rw: RW = Field(description="fio's rw: the I/O pattern.")
    bs: str = Field("4k", description="Block size, e.g. 4k, 128k, 1M.")
    iodepth: int = Field(1, ge=1, le=65536, description="I/Os in flight per job.")
    numjobs: int = Field(1, ge=1, le=4096, description="Jobs running the workload together.")
    rwmixread: int | None = Field(
        None, ge=0, le=100, description="Read share of a mixed workload, %."
    )
    options: dict[str, FioValue] = Field(default_factory=dict, description="Any other fio options.")


class SuiteSpec(BaseModel):
    """A suite file: global fio options and the workloads, run in order."""

    model_config = ConfigDict(extra="forbid")
    name: str
    description: str
    extends: str | None = Field(
        None, description="A suite whose workloads and options this one reuses."
    )
    sweep: bool = Field(
        False,
        description="Name workloads by their parameters (rw, bs, iodepth, "
        "numjobs): a template for --rw/--bs/--iodepth/--numjobs lists.",
    )
    global_: dict[str, FioValue] = Field(default_factory=dict, alias="global")
    workloads: list[WorkloadSpec] = Field(default_factory=list)


def builtin_names() -> list[str]:
    return sorted(
        p.name.removesuffix(".yaml") for p in _builtin_dir().iterdir() if p.name.endswith(".yaml")
    )


def every_suite_name() -> list[str]:
    """The fio suites and the other tools' fixed ones (``rados``, ``osd``, ``network``): every
    name ``cephbench run`` takes, for the error that lists them."""
    from cephbench.tools import fixed_suites  # the registry: loads every tool, only on this error

    return sorted({*builtin_names(), *fixed_suites()})


def load_suite(name_or_path: str) -> SuiteSpec:
    """A built-in suite by name, or a suite YAML file by path; ``extends`` resolved."""
    path = Path(name_or_path)
    if path.suffix in (".yaml", ".yml"):
        spec = _load_file(path)
    elif name_or_path in builtin_names():
        spec = _load_file(_builtin_dir() / f"{name_or_path}.yaml")
    else:
        raise UsageError(
            f"no suite named '{name_or_path}'",
            hint=f"built-in suites: {', '.join(every_suite_name())}; "
            "or give a fio job file or suite .yaml",
        )
    if spec.extends:
        if spec.extends == spec.name:
            raise UsageError(f"suite {spec.name} extends itself")
        parent = load_suite(spec.extends)
        spec = spec.model_copy(
            update={
                "global_": {**parent.global_, **spec.global_},
                "workloads": spec.workloads or parent.workloads,
                "sweep": spec.sweep or parent.sweep,
                "extends": None,
            }
        )
    if not spec.workloads:
        raise UsageError(f"suite {spec.name} has no workloads")
    return spec


def to_jobfile(spec: SuiteSpec) -> JobFile:
    """The fio job file of a suite: one stonewall group per workload, reported per group."""
    # total latency percentiles (not only completion latency), and one report per workload
    global_opts = {**spec.global_, "lat_percentiles": 1, "group_reporting": True}
    jobs = []
    for w in spec.workloads:
        opts: dict[str, FioValue] = {
            "rw": w.rw,
            "bs": w.bs,
            "iodepth": w.iodepth,
            "numjobs": w.numjobs,
        }
        if w.rwmixread is not None:
            opts["rwmixread"] = w.rwmixread
        opts.update(w.options)
        opts["stonewall"] = True
        jobs.append(Job(w.name, _fio_options(opts)))
    return JobFile(Job("global", _fio_options(global_opts)), tuple(jobs))


def _fio_options(opts: dict[str, FioValue]) -> tuple[tuple[str, str | None], ...]:
    out = []
    for k, v in opts.items():
        if v is False or v is None:
            continue
        out.append((k, None) if v is True else (k, str(v)))
    return tuple(out)


def _builtin_dir():
    return resources.files(__package__)


def _load_file(path) -> SuiteSpec:
    try:
        data = yaml.safe_load(path.read_text())
    except OSError as e:
        raise UsageError(f"cannot read suite file {path}: {e.strerror}") from e
    except yaml.YAMLError as e:
        raise UsageError(f"{path} is not valid YAML: {e}") from e
    if not isinstance(data, dict):
        raise UsageError(f"{path}: a suite file is a mapping with name, description and workloads")
    try:
        return SuiteSpec.model_validate(data)
    except ValidationError as e:
        raise UsageError(f"{path}: {_describe(e)}") from None


def _describe(e: ValidationError) -> str:
    """The first problem, as 'field: what is wrong (what is allowed)'."""
    problems = []
    for err in e.errors():
        where = ".".join(str(p) for p in err["loc"]) or "(top level)"
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            msg = "unknown field"
        allowed = err.get("ctx", {}).get("expected")
        problems.append(
            f"{where}: {msg}"
            + (f" (allowed: {allowed})" if allowed and "allowed" not in msg else "")
        )
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return problems[0] + more
