"""``--ceph-cli PREFIX``: the cluster's ceph, rados and rbd reached through a prefix, here
the real ``env`` program (a harmless prefix that runs what follows it), against a cluster no
monitor answers for (loopback port 9); and a prefix whose program does not exist. Either
way: one line, a non-zero exit, no traceback."""

from __future__ import annotations

import shutil

import pytest

from cephbench.ceph.connection import Connection
from cephbench.ceph.objects import remove_bench_objects
from cephbench.ceph.tools import CephTools
from cephbench.errors import CephbenchError

pytestmark = pytest.mark.skipif(
    shutil.which("ceph") is None or shutil.which("rados") is None,
    reason="the Ceph client programs are not installed (make install)",
)


@pytest.fixture
def nowhere(tmp_path):
    """A ceph.conf whose only monitor nothing listens for."""
    conf = tmp_path / "ceph.conf"
    conf.write_text("[global]\nmon_host = 127.0.0.1:9\n")
    return conf


def _one_line_error(output: str) -> str:
    assert "Traceback" not in output
    errors = [ln for ln in output.splitlines() if ln.startswith("Error: ")]
    assert len(errors) == 1, output
    return errors[0]


def test_a_run_reaches_the_clusters_ceph_through_the_prefix(invoke, nowhere):
    result = invoke(
        "run",
        "rados",
        "--target",
        "rados:bench-pool",
        "--conf",
        nowhere,
        "--connect-timeout",
        "1",
        "--ceph-cli",
        "env",
        expect=1,
    )
    assert _one_line_error(result.output) == (
        f"Error: cannot reach the Ceph cluster of {nowhere} as client.admin within 1 s "
        "(ceph run through `env`)"
    )


def test_rados_through_the_prefix_fails_as_one_mapped_line(nowhere):
    conn = Connection(conf=str(nowhere), timeout=1, tools=CephTools.from_cli("env"))
    with pytest.raises(CephbenchError) as raised:
        remove_bench_objects(conn, "bench-pool", "cephbench-1-0")
    error = raised.value
    assert error.message == (
        f"cannot reach the Ceph cluster of {nowhere} as client.admin (run through `env`): "
        "failed to fetch mon config (--no-mon-config to skip)"
    )
    assert "\n" not in str(error)


def test_a_prefix_whose_program_does_not_exist_is_one_line(invoke, nowhere):
    result = invoke(
        "run",
        "rados",
        "--target",
        "rados:bench-pool",
        "--conf",
        nowhere,
        "--connect-timeout",
        "1",
        "--ceph-cli",
        "no-such-cephadm shell --",
        expect=1,
    )
    assert _one_line_error(result.output) == (
        "Error: cannot run rados through `no-such-cephadm shell --`: no-such-cephadm is not "
        "installed or not on PATH"
    )
    assert "check --ceph-cli" in result.output


# A key as Tentacle 20.2.4's `ceph-authtool --gen-print-key` printed it (a throwaway, never a
# cluster's): type 2, AES256KRB5, which this machine's Pacific client cannot parse.
TENTACLE_KEY = "AgD4BQtrH8pAEyAAHsFkQJ8OziXkLCr8lYWbDyYpEsElXose6ht4o6G+gAk="


@pytest.fixture
def tentacle_keyring(tmp_path):
    keyring = tmp_path / "ceph.client.admin.keyring"
    keyring.write_text(f"[client.admin]\n\tkey = {TENTACLE_KEY}\n")
    return keyring


def test_a_client_older_than_the_clusters_keys_is_told_before_anything_runs(
    invoke, nowhere, tentacle_keyring
):
    """Pacific's ceph would say "cannot reach the cluster" after its timeout; the keyring
    says at once which release the cluster is and the way out."""
    result = invoke(
        "run",
        "rados",
        "--target",
        "rados:p",
        "--conf",
        nowhere,
        "--keyring",
        tentacle_keyring,
        expect=1,
    )
    line = _one_line_error(result.output)
    assert "16.2" in line and "(Pacific)" in line and "Tentacle 20 or newer" in line, line
    assert '--ceph-cli "cephadm shell --"' in result.output


def test_through_a_prefix_the_cli_passes_but_fio_here_is_refused(invoke, nowhere, tentacle_keyring):
    """The cluster's own ceph through --ceph-cli may read the key; fio's rbd engine still runs
    on this machine, with Pacific's librbd: the run says so before it starts."""
    result = invoke(
        "run",
        "quick",
        "--target",
        "rbd:p/img",
        "--conf",
        nowhere,
        "--keyring",
        tentacle_keyring,
        "--ceph-cli",
        "env",
        expect=1,
    )
    line = _one_line_error(result.output)
    assert "Ceph libraries (fio's rbd and rados engines) are 16.2" in line, line
    assert "--pods" in result.output
