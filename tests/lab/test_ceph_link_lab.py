"""``ceph`` commands over one librados connection (``ceph.link``) against the ``ceph`` CLI, on
the shared lab: for every form cephbench uses, the same exit status, the same output (JSON
that parses to the same shape, ``osd.N:`` lines for ``tell osd.*``), the same error line;
what only the CLI does is left to it; the connection is made once and closed with its scope;
a cluster it cannot reach is the same one-line error as the CLI's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cephbench.ceph import commands, link
from cephbench.ceph.connection import Connection
from cephbench.errors import CephbenchError
from cephbench.lab import LabInfo


@pytest.fixture(autouse=True)
def _this_machines_release(request: pytest.FixtureRequest) -> None:
    """The link is this process' librados, of this machine's release: a lab of another
    release (CEPHBENCH_TEST_RELEASE) is reached by its root's programs, never over it."""
    if "lab" in request.fixturenames and request.getfixturevalue("lab").view is not None:
        pytest.skip("the in-process link is this machine's release's; the lab runs another")


def connection(lab: LabInfo, **kw) -> Connection:
    keyring = str(lab.keyring_path) if lab.keyring_path else None
    return Connection(conf=str(lab.conf_path), id=lab.client_name, keyring=keyring, **kw)


def shape(out: str):
    """What a caller reads: parsed JSON's kind and keys, or ``tell osd.*``'s daemons."""
    if out.lstrip().startswith("osd."):
        return [line.split(":", 1)[0] for line in out.splitlines() if line]
    data = json.loads(out) if out.strip() else None
    return type(data).__name__, sorted(data) if isinstance(data, dict) else None


def last_line(text: str) -> str:
    return ([line for line in text.splitlines() if line.strip()] or [""])[-1]


FORMS = [
    ("status", "-f", "json"),
    ("osd", "dump", "-f", "json"),
    ("osd", "pool", "ls", "detail", "--format", "json"),
    ("pg", "dump", "pgs_brief", "-f", "json"),
    ("config", "get", "client", "rbd_cache"),
    ("config", "show", "osd.0", "osd_op_num_shards"),
    ("tell", "osd.0", "config", "get", "osd_op_num_shards", "-f", "json"),
    ("tell", "osd.*", "perf", "dump", "-f", "json"),
    ("tell", "osd.*", "injectargs", "--debug_ms=0/0"),
    ("osd", "pool", "get", "no-such-pool", "size", "-f", "json"),
]


@pytest.mark.parametrize("args", FORMS, ids=" ".join)
def test_each_form_reads_as_the_cli_prints_it(lab, args):
    conn = connection(lab)
    cli = commands.ceph(conn, *args, check=False)
    with link.scope():
        assert link.link_for(conn) is not None
        over = commands.ceph(conn, *args, check=False)
    assert over.returncode == cli.returncode
    assert last_line(over.stderr) == last_line(cli.stderr)  # "Error ENOENT: ..." and the like
    assert shape(over.stdout) == shape(cli.stdout)
    assert over.stdout[:1] == cli.stdout[:1]  # the CLI's empty line before JSON, or none


def test_a_pool_made_and_removed_over_the_link_with_the_clis_messages(lab):
    conn = connection(lab)
    with link.scope():
        made = commands.ceph(conn, "osd", "pool", "create", "cb-link-test", "1", "1")
        again = commands.ceph(conn, "osd", "pool", "create", "cb-link-test", "1", "1")
        pools = commands.ceph_json(conn, "osd", "pool", "ls")
        gone = commands.ceph(
            conn, "osd", "pool", "rm", "cb-link-test", "cb-link-test",
            "--yes-i-really-really-mean-it",
        )  # fmt: skip
    assert made.stderr.strip() == "pool 'cb-link-test' created"
    assert again.stderr.strip() == "pool 'cb-link-test' already exists"
    assert "cb-link-test" in pools
    assert gone.stderr.strip() == "pool 'cb-link-test' removed"
    assert "cb-link-test" not in commands.ceph_json(conn, "osd", "pool", "ls")


def test_one_connection_per_scope_closed_at_its_end(lab):
    conn = connection(lab)
    assert link.link_for(conn) is None  # outside a scope: the CLI
    with link.scope():
        first = link.link_for(conn)
        with link.scope():  # nested: the same connection
            assert link.link_for(conn) is first
        commands.ceph(conn, "status")
        assert link.link_for(conn) is first
    assert first is not None and first.handle.state == "shutdown"
    assert link.link_for(conn) is None


def test_what_only_the_cli_does_is_left_to_it(lab):
    conn = connection(lab)
    with link.scope():
        handle = link.link_for(conn)
        assert handle is not None
        assert handle.run(("daemon", "osd.0", "perf", "dump"), 10) is None
        assert handle.run(("no", "such", "command"), 10) is None
        assert handle.run(("tell", "mds.a", "perf", "dump"), 10) is None  # libcephfs's
        wrong = commands.ceph(conn, "no", "such", "command", check=False)
    assert wrong.returncode != 0 and wrong.argv[0].endswith("/ceph")  # the CLI said why


def test_a_cluster_it_cannot_reach_is_the_clis_error(lab, tmp_path):
    conf = tmp_path / "ceph.conf"
    conf.write_text("[global]\nmon host = 127.0.0.1:1\n")  # nothing listens there
    conn = Connection(conf=str(conf), keyring=str(lab.keyring_path), timeout=2)
    with pytest.raises(CephbenchError) as cli:
        commands.ceph(conn, "status")
    with link.scope(), pytest.raises(CephbenchError) as over:
        commands.ceph(conn, "status")
    assert over.value.message == cli.value.message
    assert "cannot reach the Ceph cluster" in over.value.message
    assert Path(conf).read_text().startswith("[global]")
