"""``cephbench tune``: from a diagnosis to changes proven better, attempt after attempt.

It diagnoses the cluster (``diagnose --quick``), proposes the changes registered remedies
make for the findings (nothing else), proves each in turn by an interleaved A/B experiment
on top of the changes kept so far, and prints the attempts table. Everything is reverted at
the end unless ``--keep``; ``cephbench tune revert TUNE`` undoes what ``--keep`` left. The
orchestration is :mod:`cephbench.tuning.tuner`'s; the decisions
:mod:`cephbench.tuning.attempts`'; the remedies :mod:`cephbench.tuning.remedies`'.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from cephbench.cli.common import (
    console_err,
    db_option,
    format_option,
    one_ceph_connection,
    print_json,
)
from cephbench.cli.run_options import RUNTIME
from cephbench.errors import UsageError

if TYPE_CHECKING:
    from cephbench.store import Store

DATA_MOVEMENT = "data-movement"


@click.command()
@click.argument("action", required=False, type=click.Choice(["revert"]), metavar="[revert TUNE]")
@click.argument("tune_id", required=False, type=int, metavar="")
@click.option("--target", help="Where each round runs (default: a fresh RBD image in the lab).")
@click.option("--suite", default="quick", show_default=True, help="The suite each round runs.")
@click.option("--keep", is_flag=True, help="Leave the changes proven better in place.")
@click.option("--dry-run", is_flag=True, help="Diagnose and print the plan; change nothing.")
@click.option("--list", "list_", is_flag=True, help="Print every remedy tune knows, and exit.")
@click.option(
    "--max-time",
    metavar="DURATION",
    help="No attempt starts after this (e.g. 30m); an attempt under way finishes.",
)
@click.option(
    "--allow",
    type=click.Choice([DATA_MOVEMENT]),
    multiple=True,
    help="Also try remedies of this cost (a pool's pg_num moves data).",
)
@click.option(
    "--guard",
    metavar="PCT",
    default="5%",
    show_default=True,
    help="Revert a change that makes any workload significantly worse by more than PCT.",
)
@click.option(
    "--target-ci",
    metavar="PCT",
    help="Each attempt's rounds run until every IOPS CI is within ±PCT (ab's; default 5%).",
)
@click.option(
    "--rounds",
    type=int,
    help="A fixed number of rounds per attempt (even, >= 4; ab's --rounds) instead of --target-ci.",
)
@click.option(
    "--attempt-max-time",
    metavar="DURATION",
    help="Each attempt's own budget of rounds (ab's --max-time; default 30m).",
)
@click.option(*RUNTIME[0], **RUNTIME[1])
@click.option("--size", help="Each workload's size (e.g. 256m).")
@format_option("table", "md", "json")
@db_option
@one_ceph_connection
def tune(
    action: str | None,
    tune_id: int | None,
    target: str | None,
    suite: str,
    keep: bool,
    dry_run: bool,
    list_: bool,
    max_time: str | None,
    allow: tuple[str, ...],
    guard: str,
    target_ci: str | None,
    rounds: int | None,
    attempt_max_time: str | None,
    runtime: str | None,
    size: str | None,
    fmt: str,
    store: Store,
) -> None:
    """Diagnose, propose the changes remedies make for the findings, prove each in turn.

    Attempt 1 is the cluster as found; each next attempt adds one remedy's changes to those
    kept so far and is measured against the previous attempt by interleaved A/B rounds until
    ab's CI target. A change is kept when it is significantly better on its own workloads
    and no workload is significantly worse by more than --guard (Bonferroni over the tune's
    tests); the last row measures the final attempt against the first. Every change is
    reverted at the end, after an error and after Ctrl-C (`cephbench cleanup` after a kill),
    unless --keep.

    \b
    Examples:
      cephbench tune --list
      cephbench tune --dry-run
      cephbench tune --target rbd:bench/img --runtime 3
      cephbench tune --keep            # then: cephbench tune revert TUNE
      cephbench tune revert 3          # undo what tune 3 --keep left in place
    """
    if action == "revert":
        if tune_id is None:
            raise UsageError("tune revert needs the tune's number", hint="cephbench tune revert 3")
        _revert(tune_id, store)
        return
    if tune_id is not None:
        raise UsageError(f"unexpected argument {tune_id}", hint="cephbench tune revert TUNE")
    from cephbench.tuning.remedies import remedies
    from cephbench.tuning.tune_report import remedies_table

    if list_:
        if fmt == "json":
            print_json({"remedies": [r.to_json() for r in remedies().values()]})
        else:
            _emit(remedies_table(remedies()), fmt)
        return
    _run(
        store,
        target,
        suite,
        keep,
        dry_run,
        max_time,
        allow,
        guard,
        target_ci,
        rounds,
        attempt_max_time,
        runtime,
        size,
        fmt,
    )


def _emit(table: Any, fmt: str) -> None:
    from cephbench.cli.common import emit_table

    emit_table(table, fmt)


def _emit_plan(doc: dict[str, Any], fmt: str) -> None:
    """The plan of ``--dry-run``: a table, or as blocks in a terminal narrower than
    :data:`PLAN_NARROW` columns (each change then on a line of its own)."""
    from cephbench.cli.common import console
    from cephbench.tuning.tune_report import PLAN_NARROW, plan_blocks, plan_table

    if fmt == "table" and console.width < PLAN_NARROW:
        click.echo(plan_blocks(doc, console.width))
    else:
        _emit(plan_table(doc), fmt)


def _percent(option: str, text: str) -> float:
    try:
        pct = float(text.strip().removesuffix("%"))
    except ValueError:
        pct = -1.0
    if not 0 <= pct <= 100:
        raise UsageError(f"{option} {text}: a percentage from 0 to 100, e.g. 5%")
    return pct


def _run(
    store: Store,
    target: str | None,
    suite: str,
    keep: bool,
    dry_run: bool,
    max_time: str | None,
    allow: tuple[str, ...],
    guard_text: str,
    target_ci: str | None,
    rounds: int | None,
    attempt_max_time: str | None,
    runtime: str | None,
    size: str | None,
    fmt: str,
) -> None:
    from cephbench.analysis.equivalence import SAME_WITHIN
    from cephbench.cli.diagnose import measure
    from cephbench.cli.live import RichProgress, print_note
    from cephbench.contracts import TUNING
    from cephbench.diagnose import stored
    from cephbench.diagnose.findings import diagnose
    from cephbench.execution.runner import run_request
    from cephbench.lab.connect import resolve
    from cephbench.planning.request import RunRequest
    from cephbench.store import tunings
    from cephbench.system.units import parse_seconds
    from cephbench.tools.plan import Overrides
    from cephbench.tuning.rounds import (
        DEFAULT_MAX_ROUNDS,
        DEFAULT_MAX_TIME,
        DEFAULT_TARGET_CI,
        check_rounds,
    )
    from cephbench.tuning.tune_report import attempts_table, kept_lines
    from cephbench.tuning.tuner import TuneOptions, run_tune

    guard = _percent("--guard", guard_text)
    if rounds is not None:
        if target_ci is not None:
            raise UsageError("give --rounds or --target-ci, not both")
        check_rounds(rounds)
    ci = _percent("--target-ci", target_ci) if target_ci else DEFAULT_TARGET_CI
    if ci <= 0:
        raise UsageError(f"--target-ci {target_ci}: a percentage above 0, e.g. 5%")
    budget = parse_seconds(max_time) if max_time else None
    per_attempt = parse_seconds(attempt_max_time) if attempt_max_time else DEFAULT_MAX_TIME
    request = RunRequest(
        suite=suite, target=target, overrides=Overrides(runtime=runtime, size=size)
    )
    resolved = request.resolve(note=print_note)  # an unrunnable suite fails before anything
    names = [w.name for w in resolved.plan.workloads]
    round_s = resolved.plan.expected_seconds(1)

    def note(text: str) -> None:
        console_err.print(text, markup=False)

    conn = resolve()
    note("diagnosing the cluster (diagnose --quick, no osd bench)")
    diagnosis_run = measure(store, conn, quick=True, osd_bench=False)
    d = diagnose(stored.evidence(store, diagnosis_run))
    findings = [
        {"code": f.code.name, "component": f.component, "summary": f.summary} for f in d.findings
    ]
    proposals, candidates = _propose(d, names, conn, allow)
    doc: dict[str, Any] = {
        "schema": TUNING,
        "tune": None,
        "status": "planned" if dry_run else "running",
        "suite": suite,
        "target": target,
        "workloads": names,
        "diagnosis_run": diagnosis_run,
        "findings": findings,
        "candidates": candidates,
        "guard_pct": guard,
        "same_within_pct": SAME_WITHIN,
        "target_ci_pct": None if rounds else ci,
        "rounds": rounds,
        "attempts": [],
        "kept": [],
        "kept_changes": [],
        "stopped": None,
        "error": None,
    }
    per_round = f"~{round_s:.0f} s" if round_s else "its runtime"
    doc["plan_notes"] = [
        f"diagnosis: run {diagnosis_run}, {len(findings)} finding(s): "
        + (", ".join(f"{f['code']} ({f['component']})" for f in findings) or "none"),
        f"{len(proposals)} attempt(s) after the first, then the final against the first if "
        f"one is kept; each "
        + (
            f"{rounds} rounds of {suite} ({per_round} each)"
            if rounds
            else f"at least 4 rounds of {suite} ({per_round} each) and at most "
            f"{DEFAULT_MAX_ROUNDS} rounds or {per_attempt / 60:g} min, until every IOPS CI "
            f"is within ±{ci:g} %"
        ),
    ]
    if dry_run:
        if fmt == "json":
            print_json(doc)
        else:
            _emit_plan(doc, fmt)
        return
    tune_id = tunings.start(store)
    doc["tune"] = tune_id
    tunings.save(store, tune_id, doc)
    note(f"tune {tune_id}: {len(proposals)} candidate(s)")

    def run_round(store: Store, req: RunRequest) -> int:
        outcome = run_request(store, req, progress=RichProgress, note=print_note)
        if outcome.failed_workloads:
            note(f"note: run {outcome.run_id}: {outcome.failed_workloads} workload(s) failed")
        return outcome.run_id

    opts = TuneOptions(
        suite,
        request,
        ci,
        rounds,
        DEFAULT_MAX_ROUNDS,
        per_attempt,
        budget,
        guard,
        SAME_WITHIN,
        keep,
    )
    status: str = "aborted"
    error: str | None = "interrupted"
    try:
        run_tune(
            store, tune_id, proposals, len(names), opts, run_round, conn, conn.lab_dir, doc, note
        )
        status, error = "complete", None
    except Exception as e:
        status, error = "failed", str(e)
        raise
    finally:
        doc["status"], doc["error"] = status, error
        tunings.save(store, tune_id, doc)
        tunings.finish(store, tune_id, status, error)
    note(f"Stored as tune {tune_id}")
    if fmt == "json":
        print_json(doc)
        return
    if not proposals:
        click.echo("No finding has a remedy cephbench knows (tune --list): nothing was changed.")
        return
    _emit(attempts_table(doc, "\n" if fmt == "table" else " "), fmt)
    for line in kept_lines(doc):
        click.echo(line)
    if not keep and doc["kept_changes"]:
        click.echo("every change was reverted; --keep leaves the ones kept")


def _propose(d: Any, names: list[str], conn: Any, allow: tuple[str, ...]):
    """The proposals (in registry order, one per finding a remedy answers; a setting changed
    by an earlier proposal is not changed again) and the candidates' JSON, skipped ones
    saying why."""
    from cephbench.tuning.attempts import Candidate
    from cephbench.tuning.remedies import remedies
    from cephbench.tuning.remedies.base import Cost, FindingRef
    from cephbench.tuning.tuner import Proposal

    proposals: list[Proposal] = []
    out: list[dict[str, Any]] = []
    slots: set[tuple[str, str, str]] = set()
    for remedy in remedies().values():
        for f in d.findings:
            ref = FindingRef(f.code.name, f.component, f.summary, f.evidence.to_json())
            changes = remedy.propose(ref)
            if not changes:
                continue
            entry: dict[str, Any] = {
                "remedy": remedy.name,
                "finding": f"{f.code.name} ({f.component})",
                "changes": [c.text for c in changes],
                "cost": remedy.cost.value,
                "workloads": list(remedy.moves(names)),
                "attempt": None,
                "skipped": None,
            }
            if remedy.cost is Cost.DATA_MOVEMENT and DATA_MOVEMENT not in allow:
                entry["skipped"] = "moves data: --allow data-movement"
            elif any(c.slot in slots for c in changes):
                entry["skipped"] = "an earlier candidate changes the same setting"
            else:
                slots.update(c.slot for c in changes)
                entry["attempt"] = len(proposals) + 2
                proposals.append(
                    Proposal(
                        Candidate(
                            remedy.name,
                            tuple(c.text for c in changes),
                            remedy.moves(names),
                            remedy.higher_is_better,
                        ),
                        changes,
                        remedy.cost.value,
                    )
                )
            out.append(entry)
    return proposals, out


def _revert(tune_id: int, store: Store) -> None:
    """Undo the changes `tune --keep` left in place (each verified back to what it was)."""
    from cephbench.tuning.tuner import revert as do_revert

    done = do_revert(store, tune_id, lambda t: console_err.print(t, markup=False))
    if not done:
        console_err.print(f"tune {tune_id} left nothing in place to revert", markup=False)
