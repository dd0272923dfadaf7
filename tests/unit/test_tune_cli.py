"""``cephbench tune``'s CLI without a cluster: --list, bad input, revert of what is not
there; and the tuning/1 document and attempts table built from hand-made rounds."""

from __future__ import annotations

import json

from cephbench.contracts import TUNING
from cephbench.tables.table import to_markdown
from cephbench.tuning.attempts import Plan, attempt_json, tune
from cephbench.tuning.remedies import REGISTRY
from cephbench.tuning.tune_report import attempts_table
from tests.contract import validate
from tests.unit.test_tune_attempts import DEBUG, blocks, measured


def test_list_prints_every_remedy_and_what_it_answers(invoke):
    doc = json.loads(invoke("tune", "--list", "--format", "json").stdout)
    assert [r["name"] for r in doc["remedies"]] == list(REGISTRY)
    pg = next(r for r in doc["remedies"] if r["name"] == "pg-num-up")
    assert pg["cost"] == "data-movement" and pg["answers"] == ["placement.too_few_pgs"]
    text = invoke("tune", "--list", "--format", "md").stdout
    assert "osd-debug-off" in text and "osd.debug_logging" in text


def test_bad_input_is_one_line_and_changes_nothing(invoke):
    r = invoke("tune", "--guard", "lots", expect=2)
    assert "--guard lots" in r.output and "Traceback" not in r.output
    r = invoke("tune", "revert", expect=2)
    assert "needs the tune's number" in r.output
    r = invoke("tune", "revert", "41", expect=None)
    assert r.exit_code != 0 and "no tune 41" in r.output


def tune_doc() -> dict:
    """A tune's document: one remedy (debug logging off) kept, from hand-made rounds."""
    m = measured(blocks(6, rand_wr=[1.95, 2.05, 2.0], rand_rd=[0.99, 1.01, 1.0]))
    plan = Plan(1, 2)
    rows = tune([DEBUG], [m], plan, [7], final=m, final_experiment=8)
    return document(rows, plan, kept_changes=["ceph config rm osd debug_osd"])


def document(rows: list, plan: Plan, **over) -> dict:
    """A tune's ``cephbench.tuning/1`` document of the attempts ``rows`` judged by ``plan``,
    as ``cephbench tune`` stores it (tune 1 of the quick suite), with ``over`` over it."""
    return {
        "schema": TUNING,
        "tune": 1,
        "status": "complete",
        "suite": "quick",
        "target": None,
        "workloads": sorted({c.workload for r in rows for c in r.cells}),
        "diagnosis_run": 1,
        "findings": [{"code": "osd.debug_logging", "component": "osd", "summary": "..."}],
        "candidates": [],
        "guard_pct": 5.0,
        "same_within_pct": 5.0,
        "target_ci_pct": None,
        "rounds": 8,
        "correction": {
            "method": "bonferroni",
            "tests": plan.tests,
            "alpha": 0.05,
            "level": plan.level,
        },
        "attempts": [attempt_json(r) for r in rows],
        "kept": [],
        "kept_changes": [],
        "stopped": None,
        "error": None,
        **over,
    }


def test_the_document_validates_and_the_table_shows_each_attempt():
    doc = tune_doc()
    validate(json.loads(json.dumps(doc)))
    md = to_markdown(attempts_table(doc, " "))
    assert "final vs first" in md and "better, kept" in md and "osd-debug-off" in md
    assert "Bonferroni over 4 tests" in md


def test_the_plan_at_80_columns_is_blocks_with_a_change_a_line():
    """--dry-run's plan in a narrow terminal: the candidates as _propose makes them (debug
    logging tried; too few PGs skipped without --allow data-movement)."""
    from cephbench.tuning.tune_report import plan_blocks

    doc = {
        "candidates": [
            {
                "remedy": "osd-debug-off",
                "finding": "osd.debug_logging (osd)",
                "changes": ["ceph config rm osd debug_bluestore", "ceph config rm osd debug_osd"],
                "cost": "online",
                "attempt": 2,
                "skipped": None,
            },
            {
                "remedy": "pg-num-up",
                "finding": "placement.too_few_pgs (pool cb-tune)",
                "changes": ["ceph osd pool set cb-tune pg_num 32"],
                "cost": "data-movement",
                "attempt": None,
                "skipped": "moves data: --allow data-movement",
            },
        ],
        "plan_notes": [
            "diagnosis: run 4, 2 finding(s): osd.debug_logging (osd), placement.too_few_pgs "
            "(pool cb-tune)",
            "1 attempt(s) after the first, then the final against the first if one is kept; "
            "each at least 4 rounds of quick (~40 s each) and at most 24 rounds or 10 min, "
            "until every IOPS CI is within ±10 %",
        ],
    }
    text = plan_blocks(doc, 80)
    lines = text.splitlines()
    assert max(map(len, lines)) <= 80
    assert lines[:5] == [
        "Tune plan",
        "",
        "attempt 2: osd-debug-off (answers osd.debug_logging (osd); online)",
        "    ceph config rm osd debug_bluestore",
        "    ceph config rm osd debug_osd",
    ]
    assert "not tried: pg-num-up (answers placement.too_few_pgs (pool cb-tune);" in text
    assert "    skipped: moves data: --allow data-movement" in lines
    assert lines[-1].startswith("  ") and "until every IOPS CI is within" in text
    empty = plan_blocks({"candidates": [], "plan_notes": []}, 80)
    assert "No finding has a remedy cephbench knows (tune --list)." in empty
