"""Environment differences between compared runs: one row per setting, as users name it.

Ceph's configuration is real `ceph config dump` output: the lab's dump before any change
(tests/data/ceph/16.2.15/config-dump.json) and after real `ceph config set`/`rm` on the lab
(tests/data/compare/config-dump-*.json, see config-dump.source.md). Where a test needs a
shape the recordings lack (one option only, a second mask), it edits a copy and says so.
"""

from __future__ import annotations

import copy
import json

import pytest

from cephbench.analysis.compare import compare
from cephbench.analysis.envdiff import config_options, env_diff, flatten
from cephbench.cli.compare import load_clusters
from cephbench.report.markdown import cluster_table, comparison_markdown
from cephbench.store import Store
from tests.helpers import CEPH, DATA, ENV, store_run
from tests.helpers import FILES as ALL_FILES

FILES = {k: v for k, v in ALL_FILES.items() if k != "config"}  # the config dump varies here
BEFORE = json.loads((CEPH / "config-dump.json").read_text())
SET = json.loads((DATA / "compare" / "config-dump-set.json").read_text())
CHANGED = json.loads((DATA / "compare" / "config-dump-changed.json").read_text())
IOPS = [[1000, 2000, 30000, 12000]]
LEAKED = ("level", "can_update_at_runtime", "mask", "device_class", "cluster.config", "[")


def fingerprint(config: list[dict]) -> dict:
    """The lab's real fingerprint with ``config`` as its `ceph config dump`."""
    fp = {k: json.loads((CEPH / f"{f}.json").read_text()) for k, f in FILES.items()}
    return {**fp, "config": config}


def stored(db, *configs: list[dict] | None, labels=None) -> list[int]:
    """One run per config dump (None: a run on no cluster), each with the lab's fingerprint."""
    ids = []
    for i, config in enumerate(configs):
        run_id = store_run(db, (labels or [f"r{i}" for i in configs])[i], IOPS)
        if config is not None:
            with Store(db) as s:
                s.save_fingerprint(run_id, fingerprint(config), "recpool")
        ids.append(run_id)
    return ids


def env_rows(md: str) -> list[str]:
    return md.split("**Environment differences**", 1)[1].strip().splitlines()[2:]


def test_one_option_set_is_one_row_named_as_ceph_config_set_takes_it(db, invoke):
    # the case: only `ceph config set client rbd_cache false` between the runs; the
    # entry is the recorded one, added to a copy of the dump from before
    rbd_cache = next(e for e in SET if e["name"] == "rbd_cache")
    a, b = stored(db, BEFORE, [*copy.deepcopy(BEFORE), rbd_cache], labels=["before", "no cache"])
    md = invoke("compare", str(a), str(b), "--format", "md").stdout
    assert env_rows(md) == ["| client rbd_cache | (default) | false |"]
    rich = invoke("compare", str(a), str(b)).stdout
    line = next(x for x in rich.splitlines() if "rbd_cache" in x)
    assert [c.strip() for c in line.split("│")[1:4]] == ["client rbd_cache", "(default)", "false"]
    assert not any(w in rich.split("Environment differences")[1] for w in LEAKED)


def test_set_changed_and_removed_options_each_one_row(db, invoke, invoke_json):
    a, b, c = stored(db, BEFORE, SET, CHANGED, labels=["baseline", "set", "changed"])
    md = invoke("compare", str(a), str(b), str(c), "--format", "md").stdout
    assert env_rows(md) == [
        "| global ms_crc_data | (default) | false | (default) |",  # set, then `ceph config rm`
        "| osd/class:hdd osd_op_num_shards | (default) | 4 | 8 |",  # masked: who as typed
        "| client rbd_cache | (default) | false | false |",
    ]
    assert not any(w in md.split("**Environment differences**")[1] for w in LEAKED)
    rows = invoke_json("compare", str(a), str(b), str(c))["env_diff"]
    assert rows[1] == {
        "path": "osd/class:hdd osd_op_num_shards",
        "kind": "ceph_config",
        "values": {str(a): None, str(b): "4", str(c): "8"},
        "default": [str(a)],
    }
    assert [r["default"] for r in rows] == [[str(a), str(c)], [str(a)], [str(a)]]


def test_same_dump_no_rows_and_option_order_does_not_matter(db, invoke):
    a, b = stored(db, SET, list(reversed(SET)))
    md = invoke("compare", str(a), str(b), "--format", "md").stdout
    assert "Environment differences" not in md


def test_same_option_under_two_masks_are_two_settings():
    # a copy of the recorded masked entry, re-masked for class ssd: Ceph keys the dump by
    # section, mask and name, so the two must not overwrite each other
    hdd = next(e for e in CHANGED if e["mask"])
    ssd = {**hdd, "mask": "class:ssd", "device_class": "ssd", "value": "2"}
    assert config_options([hdd, ssd]) == {
        "osd/class:hdd osd_op_num_shards": "8",
        "osd/class:ssd osd_op_num_shards": "2",
    }


def test_run_on_no_cluster_is_not_recorded_rather_than_default(db):
    a, b = stored(db, None, SET)
    with Store(db) as s:
        runs = [s.get_run(a), s.get_run(b)]
        clusters = load_clusters(s, runs)
    diffs = {d.path: d for d in env_diff(runs, clusters)}
    rbd_cache = diffs["client rbd_cache"]
    assert (rbd_cache.text(a), rbd_cache.text(b)) == ("—", "false") and not rbd_cache.default
    assert diffs["cluster.osds"].text(a) == "—" and diffs["cluster.osds"].text(b) == "3"


def test_other_lists_of_dicts_give_one_row_per_item_never_per_index_or_field(db):
    keyed = [{"id": i, "model": "QEMU HARDDISK", "class": "hdd"} for i in (0, 1)]
    other = copy.deepcopy(keyed)
    other[1]["class"] = "ssd"
    anonymous = [{"model": "A"}, {"model": "B"}]
    dup = [{"name": "x", "v": 1}, {"name": "x", "v": 2}]  # a key that is not unique keys nothing
    a = store_run(db, "a", IOPS, env={**ENV, "disks": keyed, "nics": anonymous, "dup": dup})
    b = store_run(
        db, "b", IOPS, env={**ENV, "disks": other, "nics": anonymous[:1], "dup": dup[::-1]}
    )
    with Store(db) as s:
        runs = [s.get_run(a), s.get_run(b)]
    diffs = {d.path: d for d in env_diff(runs)}
    assert set(diffs) == {"disks.1", "nics", "dup"}
    assert diffs["disks.1"].text(a) == '{"model": "QEMU HARDDISK", "class": "hdd"}'
    assert diffs["disks.1"].text(b) == '{"model": "QEMU HARDDISK", "class": "ssd"}'
    assert diffs["nics"].values == {a: anonymous, b: anonymous[:1]}


def test_the_label_is_the_column_not_a_difference(db):
    with Store(db) as s:
        ids = [
            s.start_run(
                label=label,
                suite="quick",
                target="file:/mnt/bench",
                environment=ENV,
                started_at="2024-05-01T10:00:00+00:00",
                params={"repeat": 1, "request": {"label": label, "runtime": "5"}},
            )
            for label in ("a", "b")
        ]
        runs = [s.get_run(i) for i in ids]
    assert env_diff(runs) == []


def test_cluster_table_shows_options_as_values():
    rows = dict(flatten({"config": CHANGED}))
    assert rows == {
        "config mgr mgr/devicehealth/enable_monitoring": "false",
        "config osd/class:hdd osd_op_num_shards": "8",
        "config client rbd_cache": "false",
    }


@pytest.mark.parametrize("label", ["baseline", "Baseline run", "#1", "the baseline"])
def test_footnote_names_the_baseline_once_whatever_its_label(db, label):
    a = store_run(db, label, IOPS)
    b = store_run(db, "tuned", [[1100, 2000, 30000, 12000]])
    with Store(db) as s:
        md = comparison_markdown(compare([s.get_run(a), s.get_run(b)]))
    note = (
        "Percent difference = (run − baseline) / baseline; the baseline is the first "
        f"column, “{label}”."
    )
    assert md.count(note) == 4  # under each metric's table
    assert "baseline baseline" not in md and ", baseline baseline" not in md


def test_cluster_table_of_a_run_has_no_field_rows(db):
    (a,) = stored(db, SET)
    with Store(db) as s:
        run = s.get_run(a)
        table = cluster_table(run, load_clusters(s, [run])[a])
    settings = [r for r in table.rows if r[0].startswith("config")]
    assert settings == [
        ("config global ms_crc_data", "false"),
        ("config mgr mgr/devicehealth/enable_monitoring", "false"),
        ("config osd/class:hdd osd_op_num_shards", "4"),
        ("config client rbd_cache", "false"),
    ]
