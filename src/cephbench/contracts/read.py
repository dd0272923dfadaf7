"""Reading cephbench's own JSON back: a reader per (kind, version), as pyperf does.

``load_runs`` takes a ``cephbench.run/1`` document (``show --format json``, with or without
``--raw``) or a ``cephbench.export/1`` one and gives back each run as the model holds it,
with what the store keeps beside it (raw outputs, cluster fingerprint, series) where the
document has them. A document of another kind or a newer version is refused by name, never
half-read; a malformed one fails naming the field.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, get_args

from cephbench.contracts import EXPORT, KINDS, PREFIX, RUN
from cephbench.errors import ParseError
from cephbench.model import RESULT_JSON_REQUIRED, Op, RawOutput, Run, RunStatus


@dataclass(frozen=True)
class Output:
    """One stored tool invocation of a run, and the workloads (names) it produced."""

    repeat: int
    raw: RawOutput
    workloads: tuple[str, ...] = ()


@dataclass(frozen=True)
class RunRecord:
    """A run and what the store keeps beside its figures."""

    run: Run
    outputs: tuple[Output, ...] | None = None
    """None when the document did not carry raw outputs (``show`` without ``--raw``)."""
    fingerprint: tuple[dict[str, Any], str | None] | None = None
    """The Ceph cluster's JSON and the pool the run used, for a run on Ceph."""
    series: tuple[dict[str, Any], ...] = ()
    """The run's series as JSON: repeat, workload, op, name (the metric) and points."""


def _output_v1(d: dict[str, Any]) -> Output:
    raw = RawOutput(
        tool=d["tool"],
        argv=tuple(d["argv"]),
        input_text=d["input_text"],
        stdout=d["stdout"],
        stderr=d["stderr"],
        returncode=d["returncode"],
        started_at=d["started_at"],
        seconds=d["seconds"],
    )
    return Output(d["repeat"], raw, tuple(d["workloads"]))


NUMBERS = tuple(k for k in RESULT_JSON_REQUIRED if k not in ("workload", "op", "rw", "lat_kind"))
"""The figures (and repeat, error) of a result: numbers or null."""


def _need(ok: bool, what: str) -> None:
    if not ok:
        raise TypeError(what)


def _check_v1(d: dict[str, Any]) -> None:
    """What the store would refuse or the model cannot hold, named (a hand-edited document):
    the JSON Schema says the rest, the tests hold real outputs to it."""
    for key in ("suite", "target", "started_at"):
        _need(isinstance(d[key], str), f"{key} is not a string")
    _need(isinstance(d.get("imported_at", ""), str), "imported_at is not a string")
    _need(
        d["status"] in get_args(RunStatus),
        f"status {d['status']!r} is not one of {', '.join(get_args(RunStatus))}",
    )
    for key in ("environment", "params"):
        _need(isinstance(d[key], dict), f"{key} is not an object")
    for r in d["results"]:
        _need(
            isinstance(r, dict) and r["op"] in get_args(Op),
            "a result's op is not read, write or trim",
        )
        _need(
            r["lat_kind"] in ("lat", "clat", None), f"lat_kind {r['lat_kind']!r} is not lat or clat"
        )
        for key in NUMBERS:
            v = r[key]
            _need(
                v is None or (isinstance(v, int | float) and not isinstance(v, bool)),
                f"{key} {v!r} is not a number",
            )


def _run_v1(d: dict[str, Any]) -> RunRecord:
    _check_v1(d)
    outputs = d.get("outputs")
    fp = d.get("fingerprint")
    return RunRecord(
        run=Run.from_json(d),
        outputs=None if outputs is None else tuple(_output_v1(o) for o in outputs),
        fingerprint=None if fp is None else (fp["data"], fp["pool"]),
        series=tuple(
            {
                "repeat": s["repeat"],
                "workload": s["workload"],
                "op": s.get("op", ""),
                "name": s["name"],
                "points": s["points"],
            }
            for s in d.get("series", ())
        ),
    )


def _export_v1(d: dict[str, Any]) -> list[RunRecord]:
    return [_checked(r, RUN) for r in d["runs"]]


READERS: dict[str, Callable[[dict[str, Any]], list[RunRecord]]] = {
    RUN: lambda d: [_run_v1(d)],
    EXPORT: _export_v1,
}
"""Schema name -> reader. A new version adds a reader here; the old ones stay."""


def kind_of(data: Any) -> str | None:
    """The ``schema`` of a cephbench document, None for anything else."""
    if isinstance(data, dict) and isinstance(data.get("schema"), str):
        return data["schema"] if data["schema"].startswith(PREFIX) else None
    return None


def _checked(d: Any, kind: str) -> RunRecord:
    if kind_of(d) != kind:
        raise ParseError(f"a run in the export is not a {kind} document")
    return _read(d, lambda x: [_run_v1(x)], kind)[0]


def _read(d: dict[str, Any], reader: Callable, kind: str) -> list[RunRecord]:
    try:
        return reader(d)
    except KeyError as e:
        raise ParseError(
            f"{kind} document without the field {e.args[0]!r}",
            hint="was it edited? export it again with `cephbench export`",
        ) from None
    except (TypeError, ValueError, AttributeError) as e:
        raise ParseError(
            f"{kind} document with a field of the wrong kind ({e})",
            hint="was it edited? export it again with `cephbench export`",
        ) from None


def load_runs(data: Any) -> list[RunRecord]:
    """Every run of a ``cephbench.run/1`` or ``cephbench.export/1`` document."""
    kind = kind_of(data)
    if kind is None:
        raise ParseError('not a cephbench JSON document (no "schema": "cephbench.…" key)')
    reader = READERS.get(kind)
    if reader is None:
        known = kind in KINDS
        raise ParseError(
            f"a {kind} document holds no run to read"
            if known
            else f"{kind} is a format this cephbench does not know",
            hint=f"give the output of `cephbench show --format json` or `cephbench export`"
            f" ({', '.join(READERS)})"
            if known
            else "upgrade cephbench to read it",
        )
    return _read(data, reader, kind)


def load_run(data: Any) -> Run:
    """The one run of a ``cephbench.run/1`` document (or of a one-run export), as the model."""
    records = load_runs(data)
    if len(records) != 1:
        raise ParseError(f"the document holds {len(records)} runs, not one")
    return records[0].run
