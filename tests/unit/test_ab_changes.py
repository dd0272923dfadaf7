"""Changes as data (pure): the command lines users type, parsed; values checked against the
option metadata Ceph 16.2.15 printed (tests/data/ceph/16.2.15/config-help-*.json); the lab's
ceph.conf edited and read back."""

from __future__ import annotations

import json
import sqlite3

import pytest

from cephbench.errors import UsageError
from cephbench.tuning.changes import (
    Change,
    check_value,
    make_side,
    parse_change,
    parse_size,
    same_value,
)
from cephbench.tuning.kinds.conf_set import conf_get, conf_with
from tests.helpers import CEPH, invoke


def help_of(key: str) -> dict:
    return json.loads((CEPH / f"config-help-{key}.json").read_text())


@pytest.mark.parametrize(
    ("text", "change"),
    [
        (
            "ceph config set client rbd_cache false",
            Change("config", "rbd_cache", "false", "client"),
        ),
        (
            "ceph config set osd.2 osd_op_num_shards 8",
            Change("config", "osd_op_num_shards", "8", "osd.2"),
        ),
        (
            "ceph config rm osd osd_max_backfills",
            Change("config_rm", "osd_max_backfills", None, "osd"),
        ),
        ("ceph osd pool set rbd size 2", Change("pool", "size", "2", "rbd")),
        ("sysctl -w net.core.rmem_max=4194304", Change("sysctl", "net.core.rmem_max", "4194304")),
        (
            "sysctl 'net.ipv4.tcp_rmem=4096 87380 6291456'",
            Change("sysctl", "net.ipv4.tcp_rmem", "4096 87380 6291456"),
        ),
        ("conf-set osd_op_num_shards=8", Change("conf_set", "osd_op_num_shards", "8")),
        ("lab conf-set bluestore_cache_size=1G", Change("conf_set", "bluestore_cache_size", "1G")),
    ],
)
def test_changes_parse_from_the_commands_users_type_and_print_back(text, change):
    parsed = parse_change(text)
    assert parsed == change
    assert parse_change(parsed.text) == parsed  # the canonical text parses to the same change


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("rm -rf /", "unknown command"),
        ("ceph config set osd osd_op_num_shards", "needs WHO, KEY and VALUE"),
        ("ceph config set os;d osd_op_num_shards 8", "not a config section"),
        ("ceph config set osd 'osd op$' 8", "not an option name"),
        ("ceph osd pool set rbd size", "needs POOL, KEY and VALUE"),
        ("sysctl net.core.rmem_max", "one KEY=VALUE"),
        ("sysctl ../../etc/passwd=1", "not a sysctl name"),
        ("ceph config set osd x 'unterminated", "No closing quotation"),
    ],
)
def test_a_malformed_change_is_one_line_naming_the_forms(text, why):
    with pytest.raises(UsageError, match=why) as e:
        parse_change(text)
    assert "\n" not in e.value.message and "ceph config set WHO KEY VALUE" in (e.value.hint or "")


def test_a_side_comes_from_a_yaml_file_and_may_not_set_one_thing_twice(tmp_path):
    f = tmp_path / "b.yaml"
    f.write_text(
        "label: shards8\nchanges:\n  - ceph config set osd osd_op_num_shards 8\n"
        "  - sysctl net.core.rmem_max=4194304\n"
    )
    side = make_side("B", (str(f),))
    assert side.label == "shards8" and [c.kind for c in side.changes] == ["config", "sysctl"]
    assert make_side("mine", (str(f),)).label == "mine"  # --b-label wins over the file's
    with pytest.raises(UsageError, match="changes rbd_cache twice"):
        make_side(
            "B", ("ceph config set client rbd_cache false", "ceph config rm client rbd_cache")
        )
    bad = tmp_path / "bad.yaml"
    bad.write_text("changes: {a: 1}\n")
    with pytest.raises(UsageError, match="expected a list of changes"):
        make_side("B", (str(bad),))
    with pytest.raises(UsageError, match="cannot read"):
        make_side("B", (str(tmp_path / "missing.yaml"),))


def test_the_recorded_option_metadata_is_what_the_source_file_says():
    assert help_of("osd_op_num_shards")["type"] == "int"
    assert help_of("osd_op_num_shards")["can_update_at_runtime"] is False
    assert help_of("rbd_cache")["type"] == "bool" and help_of("rbd_cache")["services"] == ["rbd"]
    assert help_of("osd_op_queue")["enum_values"] == ["wpq", "mclock_scheduler", "debug_random"]
    assert (help_of("ms_async_op_threads")["min"], help_of("ms_async_op_threads")["max"]) == (1, 24)


@pytest.mark.parametrize(
    ("key", "value", "error"),
    [
        ("osd_op_num_shards", "8", None),
        ("osd_op_num_shards", "eight", "of type int"),
        ("osd_max_backfills", "-1", "of type uint"),
        ("rbd_cache", "false", None),
        ("rbd_cache", "nope", "is a bool"),
        ("bluestore_cache_size", "1G", None),
        ("bluestore_cache_size", "lots", "of type size"),
        ("osd_op_queue", "mclock_scheduler", None),
        ("osd_op_queue", "fifo", "one of wpq, mclock_scheduler, debug_random"),
        ("ms_async_op_threads", "24", None),
        ("ms_async_op_threads", "25", "at most 24"),
        ("ms_async_op_threads", "0", "at least 1"),
        ("osd_recovery_sleep", "0.5", None),
        ("osd_recovery_sleep", "inf", "of type float"),
    ],
)
def test_values_are_checked_against_cephs_own_option_metadata(key, value, error):
    why = check_value(help_of(key), value)
    if error is None:
        assert why is None
    else:
        assert why is not None and error in why


def test_spellings_of_one_value_are_the_same_value():
    assert parse_size("4K") == 4096 and parse_size("1GiB") == 2**30 and parse_size("x") is None
    assert same_value("size", "1G", "1073741824")
    assert same_value("bool", "yes", "true") and not same_value("bool", "false", "true")
    assert same_value("float", "0.50", "0.5") and same_value("str", "4096  87380", "4096 87380")
    assert not same_value("str", "wpq", "mclock_scheduler")


CONF = """[global]
fsid = 1
osd_op_num_shards = 4
[osd]
osd op num shards = 2
osd_data = /x
[client]
rbd_cache = true
"""


def test_conf_set_puts_the_key_in_global_only_and_reads_back():
    text = conf_with(CONF, "osd_op_num_shards", "8")
    assert conf_get(text, "osd_op_num_shards") == "8"
    assert text.count("op_num_shards") + text.count("op num shards") == 1
    assert "osd_data = /x" in text and "rbd_cache = true" in text
    cache_off = conf_with(CONF, "rbd_cache", "false")
    assert conf_get(cache_off, "rbd_cache") == "false" and "rbd_cache = true" not in cache_off
    assert conf_get(CONF, "rbd_cache") == "true" and conf_get(CONF, "nope") is None


def test_conf_set_changes_sharing_the_file_each_restore_their_own_key():
    """Two conf-set changes on one side, then a side with only one of them: each write keeps
    the other's, each restore puts back its own key only, and the last restore gives the
    original file byte for byte (before: a second change's write dropped the first's)."""
    from cephbench.tuning.kinds.conf_set import conf_restore, key_lines

    both = conf_with(conf_with(CONF, "osd_op_num_shards", "8"), "rbd_cache", "false")
    assert conf_get(both, "osd_op_num_shards") == "8" and conf_get(both, "rbd_cache") == "false"
    only_cache = conf_restore(both, CONF, "osd_op_num_shards")
    assert conf_get(only_cache, "rbd_cache") == "false"  # the other change kept
    assert key_lines(only_cache, "osd_op_num_shards") == key_lines(CONF, "osd op num shards")
    assert conf_restore(only_cache, CONF, "rbd_cache") == CONF  # the original, exactly
    assert conf_restore(conf_with(CONF, "rbd_cache", "false"), CONF, "rbd_cache") == CONF


def test_a_suite_that_cannot_run_fails_before_any_setting_is_read_or_changed(tmp_path):
    """The request is planned first: a bad suite or target costs no restart and no round."""
    broken = tmp_path / "broken.yaml"
    broken.write_text(
        "name: broken\ndescription: d\nworkloads:\n  - {name: w, rw: randread, rate_iops: 5}\n"
    )
    db = tmp_path / "results.db"
    change = ["--b", "sysctl net.core.somaxconn=1"]
    out = invoke("ab", str(broken), "--target", f"file:{tmp_path}", *change, db=db, expect=2)
    assert "workloads.0.rate_iops: unknown field" in out.output and "Traceback" not in out.output
    out = invoke("ab", "quick", "--target", "nowhere:x", *change, db=db, expect=2)
    assert "nowhere" in out.output and "Traceback" not in out.output
    if db.exists():  # no experiment started: nothing was read, changed or stored
        with sqlite3.connect(db) as conn:
            assert conn.execute("SELECT COUNT(*) FROM ab_experiments").fetchone() == (0,)
