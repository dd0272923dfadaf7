"""Line up the workloads of compared runs: by name and direction where the names agree, else
by their parameters (a blog's ``test`` is the user's ``randrw_4k``). Pure."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cephbench.errors import UsageError
from cephbench.system.units import format_size

if TYPE_CHECKING:
    from cephbench.analysis.compare import Column

MATCHES = ("auto", "name", "params")
"""How workloads are lined up: ``auto`` by name where the names agree, else by parameters."""
PARAMS = ("rw", "bs", "iodepth", "numjobs", "rwmixread")
"""A workload's parameters, with its direction (op), that line it up with another's."""
NEEDED = ("rw", "bs", "iodepth")
"""Parameters both sides must know to match: numjobs and rwmixread count only where both
know them (a pasted fio text output has no rwmixread, and a job without numjobs runs one)."""

Key = tuple[str, str]
"""A workload and its direction (op)."""


@dataclass(frozen=True)
class ParamsMatch:
    """A column's workload lined up with a row of another name by its parameters."""

    row: Key
    column: str
    """The column's name."""
    workload: str
    """The workload's own name in that column."""
    params: tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class Matching:
    keys: tuple[Key, ...]
    """The rows' workloads and directions, named as first seen (the baseline's names first)."""
    of: dict[str, dict[Key, Key]]
    """Column key -> its own workload and direction -> the row's."""
    by_params: tuple[ParamsMatch, ...]


def match_workloads(columns: Sequence[Column], how: str = "auto") -> Matching:
    """Line up the columns' workloads as rows: ``name`` by name and direction; ``params`` by
    direction and parameters (:data:`PARAMS`); ``auto`` by name where a row of that name is
    there, else by parameters. A workload matches by parameters only a row of exactly one
    such workload not matched in its column yet; otherwise it is a row of its own."""
    if how not in MATCHES:
        raise UsageError(f"no way to match workloads named '{how}'", hint="name or params")
    keys: dict[Key, tuple[tuple[str, Any], ...]] = {}
    of: dict[str, dict[Key, Key]] = {}
    by_params = []
    for col in columns:
        own = _own_workloads(col)
        mapped = of.setdefault(col.key, {})
        if how != "params":
            mapped.update({k: k for k in own if k in keys})
        for k, params in own.items():
            if k in mapped:
                continue
            taken = {*mapped.values(), *own} if how == "auto" else set(mapped.values())
            found = [
                row
                for row, theirs in keys.items()
                if row not in taken and row[1] == k[1] and _same(params, theirs)
            ]
            if how != "name" and len(found) == 1:
                mapped[k] = found[0]
                if found[0] != k:
                    by_params.append(ParamsMatch(found[0], col.name, k[0], params))
            else:
                mapped[k] = k if k not in keys else (f"{k[0]} ({col.name})", k[1])
                keys[mapped[k]] = params
    return Matching(tuple(keys), of, tuple(by_params))


def match_notes(by_params: Sequence[ParamsMatch]) -> list[str]:
    """One line per workload lined up by its parameters, under the tables."""
    return [
        f"{m.workload} ({m.row[1]}) of {m.column} is matched to {m.row[0]} ({m.row[1]}) by its "
        f"parameters ({_params_text(m.params)}): the names differ."
        for m in by_params
    ]


def _own_workloads(col: Column) -> dict[Key, tuple[tuple[str, Any], ...]]:
    """A column's workloads and directions, first seen first, with their parameters."""
    own: dict[Key, tuple[tuple[str, Any], ...]] = {}
    for run in col.runs:
        for r in run.results:
            own.setdefault((r.workload, r.op), tuple((p, getattr(r, p)) for p in PARAMS))
    return own


def _same(a: tuple[tuple[str, Any], ...], b: tuple[tuple[str, Any], ...]) -> bool:
    mine, theirs = dict(a), dict(b)
    if any(mine[p] is None or theirs[p] is None for p in NEEDED):
        return False
    return all(mine[p] == theirs[p] or None in (mine[p], theirs[p]) for p in PARAMS)


def _params_text(params: tuple[tuple[str, Any], ...]) -> str:
    shown = {p: v for p, v in params if v is not None}
    if "bs" in shown:
        shown["bs"] = format_size(shown["bs"])
    return ", ".join(f"{p}={v}" for p, v in shown.items())
