"""The one seam for a cluster's client programs (``ceph/tools.py``): where each program is
reached, its record, and the one error mapper on the stderr Ceph's own programs printed
(tests/data/ceph/16.2.15/errors, see its README.source.md); the connection flags built one
way; this process's librados only for this machine's tools, with the reason when not."""

from __future__ import annotations

import shutil

import pytest

from cephbench.ceph import link
from cephbench.ceph.cephfs import fuse_args, fuse_argv
from cephbench.ceph.connection import Connection
from cephbench.ceph.tools import ROOT_PATH, CephTools, Outcome, chroot, classify, failure
from cephbench.errors import AccessDenied, CephbenchError, ToolFailed, ToolMissing
from cephbench.planning.request import CephConnectionOptions, _plain
from cephbench.system.process import ProcessResult
from cephbench.targets import TargetOptions
from cephbench.targets.cluster import CephOptions
from cephbench.targets.rbd import RbdTarget
from tests.helpers import DATA

ERRORS = DATA / "ceph" / "16.2.15" / "errors"

# file -> (argv as run, exit status, outcome): the README's table
RECORDED = {
    "rbd_info_nosuchpool": (("rbd", "info", "nosuchpool/x"), 2, Outcome.NOT_FOUND),
    "rbd_info_noimage": (("rbd", "info", "seamp/nosuch"), 2, Outcome.NOT_FOUND),
    "rbd_rm_noimage": (("rbd", "rm", "--no-progress", "seamp/nosuch"), 2, Outcome.NOT_FOUND),
    "rados_cleanup_nopool": (("rados", "-p", "nosuchpool", "cleanup"), 1, Outcome.NOT_FOUND),
    "ceph_bad_key": (("ceph", "-s"), 13, Outcome.DENIED),
    "ceph_newtype_keyring": (("ceph", "-s"), 1, Outcome.DENIED),
    "rbd_newtype_keyring": (("rbd", "ls", "seamp"), 5, Outcome.DENIED),
    "ceph_denied": (("ceph", "osd", "pool", "create", "seamq", "8"), 13, Outcome.DENIED),
    "rbd_denied": (("rbd", "create", "--size", "1M", "seamp/y"), 1, Outcome.DENIED),
    "ceph_unknown_command": (("ceph", "osd", "nosuchverb"), 22, Outcome.TOO_OLD),
    "ceph_unreachable": (("ceph", "-s"), 1, Outcome.UNREACHABLE),
    "rados_unreachable": (("rados", "lspools"), 1, Outcome.UNREACHABLE),
    "rbd_unreachable": (("rbd", "info", "a/b"), 110, Outcome.UNREACHABLE),
}


def recorded(name: str, argv: tuple[str, ...] | None = None) -> ProcessResult:
    words, code, _ = RECORDED.get(name, (("rbd", "info", "a/b"), 0, None))
    if name == "chroot_missing_root":
        code = 125
    if name == "env_missing_prog":
        code = 127
    return ProcessResult(argv or words, code, "", (ERRORS / f"{name}.stderr").read_text(), 0.1)


# -- where each program is reached -------------------------------------------------------------


def test_this_machines_tools_are_found_on_path():
    tools = CephTools()
    assert tools.local and not tools.reaches("rbd") and tools.describe() == "this machine"
    if shutil.which("rbd"):
        assert tools.argv("rbd", "ls") == [shutil.which("rbd"), "ls"]


def test_a_missing_local_program_is_tool_missing_with_its_package():
    with pytest.raises(ToolMissing, match="no-such-ceph-program is not installed"):
        CephTools().argv("no-such-ceph-program")


def test_a_users_prefix_reaches_the_clusters_cli_and_leaves_fio_and_ceph_fuse_here():
    tools = CephTools.from_cli("kubectl -n rook-ceph exec deploy/rook-ceph-tools --")
    assert tools.prefix == ("kubectl", "-n", "rook-ceph", "exec", "deploy/rook-ceph-tools", "--")
    assert not tools.local
    assert tools.argv("rbd", "info", "p/i") == [*tools.prefix, "rbd", "info", "p/i"]
    assert tools.argv("rados", "lspools")[: len(tools.prefix) + 1] == [*tools.prefix, "rados"]
    assert not tools.reaches("fio") and not tools.reaches("ceph-fuse")
    assert tools.describe() == "kubectl -n rook-ceph exec deploy/rook-ceph-tools --"


def test_cephadm_shell_and_an_empty_prefix():
    assert CephTools.from_cli("cephadm shell --").argv("ceph", "-s") == [
        "cephadm",
        "shell",
        "--",
        "ceph",
        "-s",
    ]
    assert CephTools.from_cli("  ") == CephTools() == CephTools.from_cli(None)


def test_a_release_root_runs_every_client_program_fio_included_in_the_directory_asked():
    tools = chroot("/var/lib/roots/tentacle", release="tentacle")
    # the root's own PATH: a caller's (after `lab env`) holds the lab's scripts, which the
    # view sees too and which would run themselves
    assert tools.argv("fio", "job.fio", cwd="/tmp/w") == [
        "chroot",
        "/var/lib/roots/tentacle",
        "env",
        "-C",
        "/tmp/w",
        f"PATH={ROOT_PATH}",
        "fio",
        "job.fio",
    ]
    assert tools.argv("ceph-fuse", "-f") == [
        "chroot",
        "/var/lib/roots/tentacle",
        "env",
        f"PATH={ROOT_PATH}",
        "ceph-fuse",
        "-f",
    ]


@pytest.mark.parametrize(
    "tools",
    [CephTools(), CephTools.from_cli("cephadm shell --"), chroot("/r", release="reef")],
    ids=["local", "cephadm", "chroot"],
)
def test_tools_round_trip_through_json_and_the_connection_record(tools):
    assert CephTools.from_json(tools.to_json()) == tools
    conn = Connection(conf="/etc/ceph/ceph.conf", id="bench", cluster="c2", tools=tools)
    assert Connection.from_json(conn.to_json()) == conn


def test_a_record_before_tools_existed_is_this_machine():
    assert Connection.from_json({"conf": "/c", "id": "admin"}).tools == CephTools()
    assert CephTools.from_json({"prefix": [], "release": None}) == CephTools()


# -- the connection's flags, one way -----------------------------------------------------------


def test_the_rbd_prefill_passes_the_connections_client_and_cluster_names():
    target = RbdTarget("pool/img", TargetOptions())
    conn = Connection(conf="/etc/ceph/c2.conf", id="bench", cluster="c2")
    target.configure(CephOptions(conn))
    target.size = 1 << 30
    args = target.prefill_args("pool", "img", "--bs=4M")
    assert "--clientname=bench" in args and "--clustername=c2" in args
    workloads = {"clientname": "bench", "clustername": "c2"}
    assert {k: v for k, v in conn.fio_options().items()} == workloads


def test_ceph_fuse_takes_the_connections_flags_and_runs_where_its_tools_are():
    conn = Connection(conf="/c.conf", id="bench", keyring="/k", cluster="c2")
    args = fuse_args(conn, "fs", "/d", "/mnt/x", "/p.pid")
    assert args[: len(conn.args())] == conn.args()
    root = Connection(conf="/c.conf", tools=chroot("/root-r"))
    assert fuse_argv(root, "fs", "", "/m", "/p")[:5] == [
        "chroot",
        "/root-r",
        "env",
        f"PATH={ROOT_PATH}",
        "ceph-fuse",
    ]


# -- the one error mapper, on what Ceph's programs printed -------------------------------------


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_each_recorded_failure_is_read_as_what_it_was(name):
    assert classify(recorded(name)) is RECORDED[name][2]


def test_a_prefix_that_could_not_run_the_program_is_neither_not_found_nor_a_failure():
    tools = chroot("/nonexistent-seam")
    result = recorded("chroot_missing_root", ("chroot", "/nonexistent-seam", "rbd", "info", "a/b"))
    assert classify(result) is Outcome.NOT_FOUND  # read alone, it looks like a missing image
    assert classify(result, tools, "rbd") is Outcome.UNAVAILABLE
    error = failure(result, "rbd info a/b", tools)
    assert isinstance(error, ToolMissing)
    assert str(error.message) == (
        "cannot run rbd through `chroot /nonexistent-seam`: chroot: cannot change root "
        "directory to '/nonexistent-seam': No such file or directory"
    )


def test_a_missing_prefix_program_says_the_prefix():
    tools = CephTools.from_cli("no-such-cephadm shell --")
    result = recorded("env_missing_prog", ("env", "no-such-cephadm", "shell", "--", "rbd"))
    assert classify(result, CephTools.from_cli("env no-such-cephadm shell --"), "rbd") is (
        Outcome.UNAVAILABLE
    )
    assert tools.unavailable("rbd", "x").message.startswith(
        "cannot run rbd through `no-such-cephadm shell --`: "
    )


def test_a_key_of_a_newer_type_is_denied_naming_the_keyring_and_the_way_out():
    error = failure(recorded("ceph_newtype_keyring"), "ceph -s", client="client.admin")
    assert isinstance(error, AccessDenied)
    assert "\n" not in str(error)
    assert error.message.startswith("ceph -s: the keyring holds a key ceph cannot read: auth:")
    assert error.message.endswith("Malformed input")
    assert error.hint is not None and "--ceph-cli" in error.hint


def test_a_key_the_cluster_does_not_know_is_denied_not_unreachable():
    error = failure(recorded("ceph_bad_key"), "ceph -s", client="client.admin")
    assert isinstance(error, AccessDenied)
    assert "refused client.admin" in error.message and "handle_auth_bad_method" in error.message
    assert (
        error.hint == "check --id and --keyring, and the client's caps (ceph auth get client.admin)"
    )


def test_caps_that_do_not_allow_it_are_denied():
    error = failure(recorded("rbd_denied"), "rbd create seamp/y", client="client.seamro")
    assert isinstance(error, AccessDenied)
    assert error.message.endswith("rbd: create error: (1) Operation not permitted")


def test_unreachable_and_too_old_and_a_plain_failure():
    via = CephTools.from_cli("cephadm shell --")
    error = failure(recorded("rbd_unreachable"), "rbd info a/b", via, where="/c.conf")
    assert type(error) is CephbenchError
    assert error.message.startswith(
        "cannot reach the Ceph cluster of /c.conf as the client (run through `cephadm shell --`): "
    )
    old = failure(recorded("ceph_unknown_command"), "ceph osd nosuchverb")
    assert isinstance(old, ToolFailed) and old.message.endswith("Error EINVAL: invalid command")
    plain = ProcessResult(("rbd", "x"), 1, "", "rbd: something else went wrong\n", 0.1)
    assert classify(plain) is Outcome.FAILED
    assert failure(plain, "rbd x").message == "rbd x failed: rbd: something else went wrong"


# -- this process's librados: this machine's tools only, and why not ----------------------------


def test_librados_stands_in_only_for_this_machines_tools_and_says_why_not():
    remote = Connection(conf="/c.conf", tools=CephTools.from_cli("cephadm shell --"))
    with link.scope():
        assert link.link_for(remote) is None
        reason = link.fallback_reason(remote)
    assert reason == link.Reason(link.Fallback.NOT_LOCAL, "cephadm shell --")
    assert link.fallback_reason(Connection(conf="/c.conf")) == link.Reason(link.Fallback.NO_SCOPE)


# -- --ceph-cli in the run request ------------------------------------------------------------


def test_ceph_cli_is_stored_only_when_given():
    assert "ceph_cli" not in _plain(CephConnectionOptions())
    given = CephConnectionOptions(ceph_cli="cephadm shell --")
    assert _plain(given)["ceph_cli"] == "cephadm shell --" and given.given
