"""How ``ceph.link`` reads a ``ceph`` command: its words and output format, and the few
commands a daemon describes that it can match (checked against ``ceph_argparse`` itself over
the command descriptions recorded from Ceph 16.2.15; tests/data/ceph/16.2.15)."""

from __future__ import annotations

import json

import pytest

from cephbench.ceph import link
from tests.helpers import DATA

DESCRIPTIONS = DATA / "ceph" / "16.2.15"


@pytest.mark.parametrize(
    ("args", "words", "fmt"),
    [
        (("status", "-f", "json"), ["status"], "json"),
        (("osd", "pool", "ls", "detail", "--format", "json"), ["osd", "pool", "ls", "detail"], "json"),
        (("--format=json-pretty", "osd", "dump"), ["osd", "dump"], "json-pretty"),
        (("config", "get", "client", "rbd_cache"), ["config", "get", "client", "rbd_cache"], None),
        (("osd", "pool", "rm", "p", "p", "--yes-i-really-really-mean-it"),
         ["osd", "pool", "rm", "p", "p", "--yes-i-really-really-mean-it"], None),
        (("--connect-timeout", "5", "status"), None, None),  # a flag it does not read: the CLI
    ],
)  # fmt: skip
def test_words_and_format(args, words, fmt):
    assert link._split_format(args) == (words, fmt)


COMMANDS = {
    "mon": [
        ["status"],
        ["osd", "dump"],
        ["osd", "tree"],
        ["osd", "pool", "create", "cb-1-ab12", "8", "8", "replicated", "no-such-rule"],
        ["osd", "pool", "application", "enable", "cb-1-ab12", "rbd"],
        ["osd", "pool", "application", "set", "cb-1-ab12", "cephbench", "run", "run-1"],
        ["osd", "pool", "get", "cb-1-ab12", "size"],
        ["osd", "pool", "rm", "cb-1-ab12", "cb-1-ab12", "--yes-i-really-really-mean-it"],
        ["osd", "set", "noscrub"],
        ["osd", "blocklist", "add", "10.0.0.1:0/1", "60"],
        ["config", "get", "client", "rbd_cache"],
        ["config", "show", "osd.0", "osd_op_num_shards"],
        ["config", "dump"],
        ["pg", "dump", "pgs_brief"],
        ["pg", "ls-by-pool", "cb-1-ab12"],
        ["fs", "dump"],
        ["versions"],
        ["df"],
    ],
    "osd": [
        ["bench", "16777216", "4194304"],
        ["perf", "dump"],
        ["dump_historic_ops"],
        ["config", "get", "osd_op_num_shards"],
        ["injectargs", "--osd_op_history_size=200"],
    ],
}


@pytest.fixture(scope="module")
def argparse():
    modules = link._modules()
    if modules is None:
        pytest.skip("ceph_argparse and python3-rados are not installed (ceph-common)")
    return modules[1]


def sigs(argparse, kind: str):
    text = (DESCRIPTIONS / f"command-descriptions-{kind}.json").read_text()
    parsed = argparse.parse_json_funcsigs(text, "cli")
    return parsed, [link._Sig(link._literals(c["sig"], argparse), k, c) for k, c in parsed.items()]


def test_the_recorded_descriptions(argparse):
    assert len(json.loads((DESCRIPTIONS / "command-descriptions-mon.json").read_text())) == 584
    assert len(sigs(argparse, "osd")[0]) == 96


@pytest.mark.parametrize(("kind", "words"), [(k, w) for k, ws in COMMANDS.items() for w in ws])
def test_the_candidates_match_as_all_commands_do(argparse, kind, words):
    every, listed = sigs(argparse, kind)
    few = link._candidates(listed, words)
    assert 1 <= len(few) <= 12 < len(every)
    matched = argparse.validate_command(few, words)
    assert matched and matched == argparse.validate_command(every, words)


def test_words_no_command_starts_with_have_no_candidates(argparse):
    _every, listed = sigs(argparse, "mon")
    assert link._candidates(listed, ["no", "such", "command"]) == {}


@pytest.mark.parametrize("name", ["run", "ab", "tune", "capacity", "diagnose", "explain"])
def test_commands_that_make_many_ceph_commands_keep_one_connection(name):
    """Each of these makes tens of ``ceph`` commands a round, a step or a diagnosis: over one
    connection a few ms each, as ``ceph`` processes about 0.3 s each (a tune's round of a 2 s
    workload took 11 s that way, and 4 s over the connection)."""
    from cephbench.cli import COMMANDS

    callback = COMMANDS.load(name).callback
    while callback is not None and not getattr(callback, "one_ceph_connection", False):
        callback = getattr(callback, "__wrapped__", None)
    assert callback is not None, f"`cephbench {name}` is not wrapped by one_ceph_connection"
