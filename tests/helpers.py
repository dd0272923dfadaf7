"""What tests share beyond fixtures: the recorded data, the tools a test needs, waiting on a
condition (never on the clock), the processes a command started, the cephbench CLI (in-process:
`invoke`, the one way tests call it; and as a subprocess), runs stored with known figures, the
recorded Ceph fingerprint, and Chromium to render reports. Fixtures are in the conftest.py files."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

import pytest
from click.testing import CliRunner
from click.testing import Result as CliResult

from cephbench.ceph.fingerprint import COMMANDS
from cephbench.cli import cli
from cephbench.model import Result, WorkloadOutcome
from cephbench.store import Store
from cephbench.system.pids import running as alive  # noqa: F401 (tests import it from here)
from tests.contract import validate

T = TypeVar("T")
CEPHBENCH = [sys.executable, "-c", "from cephbench.console import main; main()"]

DATA = Path(__file__).parent / "data"
FIO_DATA = DATA / "fio" / "3.33"

needs_fio = pytest.mark.skipif(
    shutil.which("fio") is None, reason="fio is not installed (make install)"
)
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root")


def invoke(
    *args: str | Path,
    db: Path | None = None,
    expect: int | None = 0,
    env: dict[str, str] | None = None,
    input: str | bytes | None = None,
) -> CliResult:
    """``cephbench ARGS`` in-process (the ``invoke`` fixture binds ``db`` to the test's store):
    on the store ``db`` when given, with ``env`` and ``input`` (standard input); asserts the exit
    status unless ``expect`` is None. An exception cephbench does not turn into a message and an
    exit status is raised, with its traceback."""
    result = CliRunner().invoke(
        cli,
        [str(a) for a in args],
        env={**({"CEPHBENCH_DB": str(db)} if db is not None else {}), **(env or {})},
        input=input,
        catch_exceptions=False,
        prog_name="cephbench",
    )
    if expect is not None:
        assert result.exit_code == expect, f"exit {result.exit_code}\n{result.output}"
    return result


def wait_for(predicate: Callable[[], T], what: str, timeout: float = 60.0, poll: float = 0.05) -> T:
    """``predicate()``'s first truthy value; fails the test naming ``what`` after ``timeout``
    seconds. The timeout only bounds a hang: tests wait on the condition, not on the clock."""
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        assert time.monotonic() < deadline, f"gave up after {timeout:g} s waiting for {what}"
        time.sleep(poll)
    return value


def children(pid: int) -> list[int]:
    kids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            kids.append(int(stat.parent.name))
    return kids


def descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        kids = children(todo.pop())
        found += kids
        todo += kids
    return found


def chain_events(tmp: Path) -> list[int]:
    """Workloads finished so far by the chained fio processes of runs whose TMPDIR is ``tmp``:
    one entry per clone's ``exec_postrun`` (see tools/fio/chain.py)."""
    done = []
    for events in tmp.glob("cephbench-run-*/*/events"):
        try:
            done += [int(x) for x in events.read_text().split()]
        except (OSError, ValueError):
            continue
    return done


def cephbench_cli(db: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*CEPHBENCH, *args],
        env={**os.environ, "CEPHBENCH_DB": str(db)},
        capture_output=True,
        text=True,
    )


ENV = {
    "host": "lab1",
    "kernel": "6.1.0-18-amd64",
    "tools": {"fio": "fio-3.33"},
    "target": {"spec": "file:/mnt/bench", "filesystem": "ext4", "device_model": "Samsung SSD 870"},
}


WORKLOADS = (
    ("seq_wr", "write", 131072),
    ("seq_rd", "read", 131072),
    ("rand_rd", "read", 4096),
    ("rand_wr", "write", 4096),
)


def result(
    workload: str,
    op: str,
    bs: int,
    repeat: int,
    iops: float,
    lat_us: float | None,
    flags: tuple[str, ...] = (),
) -> CliResult:
    return Result(
        workload=workload,
        repeat=repeat,
        op=op,
        bs=bs,
        iodepth=256,
        numjobs=1,
        runtime_s=5.0,
        iops=iops,
        bw_bytes_per_s=iops * bs,
        lat_mean_us=lat_us,
        lat_p99_us=None if lat_us is None else lat_us * 3,
        lat_kind="lat" if lat_us else None,
        percentiles=()
        if lat_us is None
        else ((50.0, lat_us), (99.0, lat_us * 3), (99.9, lat_us * 4)),
        flags=flags,
    )


def store_run(
    db: Path,
    label: str | None,
    iops: Sequence[Sequence[float]],
    *,
    env: dict | None = None,
    lat_factor: float = 1.0,
    skip: Sequence[str] = (),
    flags: dict[str, tuple[str, ...]] | None = None,
    started_at: str = "2024-05-01T10:00:00+00:00",
    suite: str = "quick",
    target: str = "file:/mnt/bench",
    params: dict | None = None,
) -> int:
    """A run of the four quick workloads: ``iops[repeat][workload]``; latency from Little's law."""
    with Store(db) as s:
        run_id = s.start_run(
            label=label,
            suite=suite,
            target=target,
            environment=env or ENV,
            params={"repeat": len(iops), "overrides": {}, **(params or {})},
            started_at=started_at,
        )
        for rep, row in enumerate(iops):
            outcomes = []
            for (name, op, bs), v in zip(WORKLOADS, row, strict=True):
                if name in skip:
                    continue
                lat = (
                    None
                    if (flags or {}).get(name) == ("no_latency",)
                    else 256 / v * 1e6 * lat_factor
                )
                outcomes.append(
                    WorkloadOutcome(
                        name, (result(name, op, bs, rep, v, lat, (flags or {}).get(name, ())),)
                    )
                )
            s.record_batch(run_id, rep, None, outcomes)
        s.finish_run(run_id, "complete")
    return run_id


CHROMIUM = next(
    (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None
)


needs_chromium = pytest.mark.skipif(
    CHROMIUM is None,
    reason="chromium is not installed: apt-get install -y chromium (make deps installs it)",
)


def chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=3000",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )


def console_messages(stderr: str) -> list[str]:
    return [ln for ln in stderr.splitlines() if ":CONSOLE" in ln]


CEPH = DATA / "ceph" / "16.2.15"


FILES = {
    "versions": "versions",
    "status": "status",
    "osd_tree": "osd-tree",
    "osd_metadata": "osd-metadata",
    "pools": "osd-pool-ls-detail",
    "crush_rules": "crush-rule-dump",
    "df": "df",
    "config": "config-dump",
}


def lab_fingerprint() -> dict:
    assert set(FILES) == set(COMMANDS)
    return {k: json.loads((CEPH / f"{f}.json").read_text()) for k, f in FILES.items()}


def shown(db: Path, ref: str, *extra: str) -> dict:
    return validate(json.loads(invoke("show", ref, "--format", "json", *extra, db=db).stdout))


def without_bookkeeping(doc: dict) -> dict:
    """A run document apart from what moving it changes: its id, environment.imported_from."""
    env = {k: v for k, v in doc["environment"].items() if k != "imported_from"}
    return {**doc, "id": None, "environment": env}


def fuse_daemons(*serving: str) -> list[int]:
    """Live (not zombie) ceph-fuse processes whose command line names any of ``serving`` (a
    mountpoint, or the prefix cephbench's mountpoints share), on this machine or in a lab
    host's namespace."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                argv = Path(f"/proc/{entry}/cmdline").read_bytes()
                state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if b"ceph-fuse" in argv and state != "Z" and any(s.encode() in argv for s in serving):
                found.append(int(entry))
    return found


#: A small metadata suite (creates, stats, deletes of 200 files by each of 2 jobs): the CephFS
#: tests count its operations exactly.
META_SMALL = (
    "name: meta-small\ndescription: small\nextends: metadata\n"
    "workloads:\n"
    "  - {name: create, rw: read, numjobs: 2, options: "
    "{ioengine: filecreate, nrfiles: 200, create_on_open: 1}}\n"
    "  - {name: stat, rw: read, numjobs: 2, options: {ioengine: filestat, nrfiles: 200}}\n"
    "  - {name: delete, rw: read, numjobs: 2, options: {ioengine: filedelete, nrfiles: 200}}\n"
)


def check_capacity_split(db: Path, doc: dict, n: int, spread: str) -> None:
    """A capacity search from ``n`` generators (``--clients``/``--pods``): each step's rate
    split evenly (each fio's ``rate_iops`` its share, ``randrepeat=0``: independent
    arrivals), and the step judged by the aggregate: IOPS summed over the generators, the
    percentile from their merged bins (so between their own, never a mean of them)."""
    assert doc["workload"]["generators"] == n and doc["workload"]["spread"] == spread
    with Store(db) as store:
        for step in doc["steps"]:
            assert step["offered_iops"] % n == 0
            (agg,) = [r for r in store.get_run(step["run_id"]).results if r.iops is not None]
            assert len(agg.clients) == n and step["achieved_iops"] == agg.iops
            assert abs(agg.iops - sum(c.iops or 0 for c in agg.clients)) < 1e-6 * agg.iops
            p99s = [dict(c.percentiles)[99.0] for c in agg.clients]
            assert min(p99s) <= step["p99_us"] <= max(p99s)
            options = [
                job["job options"]
                for out in store.outputs(step["run_id"])
                if out["tool"] == "fio"
                for job in _fio_jobs(out["stdout"])
                if "job options" in job  # not the "All clients" sum
            ]
            assert len(options) >= n, options
            share = str(round(step["offered_iops"] / n))
            assert {o["rate_iops"] for o in options} == {share}, options
            assert {o["randrepeat"] for o in options} == {"0"}, options


def _fio_jobs(stdout: str) -> list[dict]:
    """The jobs of fio's JSON output (a client/server run's: every client's)."""
    doc = json.loads(stdout[stdout.find("{") :])
    return doc.get("client_stats", []) + doc.get("jobs", [])


def own_mountpoints(db: Path) -> list[str]:
    """The CephFS mount points this test's runs recorded in its store: its own objects. Other
    tiers mount CephFS under the same /tmp at the same time (a release lab's view shares the
    machine's /tmp), so a test checks these, never every ``cephbench-cephfs-*`` there is."""
    if not db.exists():
        return []
    query = "SELECT kind, name FROM resources WHERE kind IN ('cephfs_mount', 'remote_cephfs_mount')"
    with sqlite3.connect(db) as conn:
        rows = conn.execute(query).fetchall()
    # a client host's is recorded as HOST:PATH; the hosts share this machine's /tmp
    return [name.partition(":")[2] if kind.startswith("remote") else name for kind, name in rows]


def assert_own_mounts_gone(db: Path) -> None:
    """Each of the test's CephFS mount points unmounted, its ceph-fuse gone, its directory and
    pid file removed."""
    from cephbench.ceph import cephfs

    own = own_mountpoints(db)
    if not own:
        return
    wait_for(lambda: not fuse_daemons(*own), "the test's ceph-fuse daemons to exit", timeout=30)
    assert [m.mountpoint for m in cephfs.mounts() if m.mountpoint in own] == []
    left = [p for m in own for p in (m, f"{m}.pid") if Path(p).exists()]
    assert left == [], left
