"""A lab of Reef and of Tentacle, each from its own root: the daemons and every client program
are the release's, each suite kind runs on it, its schedulers are recorded, the mClock fault is
named by diagnose with its OSD, and ``lab down`` leaves no mount, process or directory."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

from cephbench.lab import ceph_json, down, faults, release_view, releases, up
from cephbench.lab.paths import Layout
from cephbench.lab.spec import LabSpec
from cephbench.lab.state import load
from tests.helpers import wait_for

MAJOR = {"reef": "18.", "tentacle": "20."}


def _release(lab) -> str:
    return load(Layout(lab.dir)).spec.release


def test_every_daemon_is_the_release_run_from_the_labs_view_of_its_root(rlab):
    release = _release(rlab)
    state = load(Layout(rlab.dir))
    assert state.view and rlab.tools.prefix == ("chroot", state.view)
    versions = ceph_json(rlab, "versions")["overall"]
    assert [v.split()[2][:3] for v in versions] == [MAJOR[release]] and release in next(
        iter(versions)
    )
    for d in state.daemons.values():  # each daemon's root directory is the view
        assert os.readlink(f"/proc/{d.pid}/root") == state.view
    built = releases.built(releases.get(release))
    assert built is not None and built.version.startswith(MAJOR[release])
    # the manager's modules load (Reef's needs its stand-in for bcrypt): pg_autoscaler answers
    wait_for(
        lambda: _answers(rlab, "osd", "pool", "autoscale-status"),
        "the manager's pg_autoscaler module",
    )


def _answers(lab, *args: str) -> bool:
    from cephbench.errors import ToolFailed

    try:
        ceph_json(lab, *args)
    except ToolFailed:
        return False
    return True


def test_quick_suite_on_rbd_with_the_releases_client_and_fio(invoke, invoke_json, in_rlab):
    release = _release(in_rlab)
    invoke("run", "quick", "--runtime", "1", "--size", "64m")
    run = invoke_json("show", "last")
    assert run["status"] == "complete" and run["target"] == "rbd:lab"
    assert {r["workload"] for r in run["results"]} == {"seq_wr", "seq_rd", "rand_rd", "rand_wr"}
    assert all(r["iops"] > 0 for r in run["results"])
    cluster = run["cluster"]
    assert release in cluster["ceph_version"]
    built = releases.built(releases.get(release))
    assert cluster["client"].startswith(f"{built.version} ({release}), chroot ")
    assert run["environment"]["tools"]["fio"] == f"fio-{built.fio}"
    assert cluster["scheduler"].startswith("mclock_scheduler, balanced, ")
    shown = invoke("show", "last", "--cluster").output
    assert "OSD scheduler" in shown and "mclock_scheduler" in shown


def test_rados_and_osd_suites(invoke, invoke_json, in_rlab):
    invoke("run", "rados", "--runtime", "1", "--concurrent-ios", "4", "--object-size", "1M")
    run = invoke_json("show", "last")
    assert run["status"] == "complete" and run["target"] == "rados:lab"
    assert [r["workload"] for r in run["results"]] == ["write", "seq", "rand"]
    assert all(r["bw_bytes_per_s"] > 0 for r in run["results"])
    assert run["cluster"]["pool"]["name"] not in ceph_json(in_rlab, "osd", "pool", "ls")
    invoke("run", "osd", "--size", "16M", "--bs", "4M")
    run = invoke_json("show", "last")
    assert run["status"] == "complete"
    assert sorted(r["workload"] for r in run["results"]) == ["osd.0", "osd.1", "osd.2"]


def test_clients_over_ssh_run_the_releases_fio(invoke, invoke_json, in_rlab, tmp_path):
    """Each lab host answers ssh from inside the release's root: its fio servers, and the fio
    client that drives them here, are the release's (Pacific's could not talk to Tentacle)."""
    built = releases.built(releases.get(_release(in_rlab)))
    suite = tmp_path / "one.yaml"
    suite.write_text(
        "name: one\ndescription: one workload\nextends: quick\n"
        "workloads:\n  - {name: rand_rd, rw: randread, bs: 4k, iodepth: 8}\n"
    )
    invoke("run", suite, "--clients", "lab", "--size", "16m", "--runtime", "1", "--pg-num", "8")
    run = invoke_json("show", "last")
    assert run["status"] == "complete" and run["params"]["clients"] == ["host0", "host1", "host2"]
    for r in run["results"]:
        assert [c["host"] for c in r["clients"]] == ["host0", "host1", "host2"]
        assert all(c["iops"] > 0 for c in r["clients"])
    assert run["environment"]["tools"]["fio"] == f"fio-{built.fio}"


def test_the_mclock_fault_is_named_with_its_osd(invoke, invoke_json, in_rlab, tmp_path):
    """diagnose names it; explain's ceiling for random reads is its limit over its share of
    the primaries (reads: each costs mClock one I/O, whatever librbd's cache does)."""
    reads = tmp_path / "reads.yaml"
    reads.write_text(
        "name: reads\ndescription: 4k random reads\nextends: quick\n"
        "workloads:\n  - {name: rand_rd, rw: randread, bs: 4k, iodepth: 32}\n"
    )
    with faults.injected(in_rlab, "mclock", "osd.1"):
        diagnosis = invoke_json("diagnose", "--quick")
        invoke("run", reads, "--size", "64m", "--runtime", "3")
        run = invoke_json("show", "last")
        doc = invoke_json("explain", str(run["id"]), "--diagnosis", str(diagnosis["run"]))
    [explained] = doc["workloads"]
    assert explained["limiting_part"] == "osd.1's mClock limit", explained["line"]
    assert not explained["model_defect"] and explained["efficiency"] > 0.5, explained["line"]
    named = [
        f
        for f in diagnosis["findings"]
        if f["component"] == "osd.1"
        and "mClock" in f["summary"]
        and "100 small ops" in f["summary"]
    ]
    assert named, json.dumps(diagnosis["findings"], indent=1)
    assert not [f for f in diagnosis["findings"] if "mClock" in f["summary"] and f is not named[0]]
    # its ops queue behind the limit by design: no CPU finding on it (test_diagnose_mclock.py)
    assert [f for f in diagnosis["findings"] if f["component"] == "osd.1"] == named
    own = ceph_json(in_rlab, "config", "dump")
    assert not [e for e in own if e["name"].startswith("osd_mclock")]  # cleared exactly


def test_lab_down_leaves_no_view_mount_or_directory(rlab, tmp_path: Path):
    release = _release(rlab)
    lab_dir = tmp_path / "small"
    info = up(LabSpec(dir=lab_dir, release=release, osds=1), timeout=120).info
    view = Path(info.tools.prefix[1])
    assert release_view.mounts_under(view)
    down(lab_dir, purge=True)
    assert release_view.leftovers(view) == [] and not lab_dir.exists()


def test_lab_env_gives_a_shell_the_releases_programs(rlab):
    """``eval "$(cephbench lab env)"; ceph -s`` reaches the lab with the release's ceph."""
    import subprocess
    import sys

    cephbench = str(Path(sys.executable).with_name("cephbench"))
    script = f'eval "$({cephbench} lab env --dir {rlab.dir})"; ceph --version; ceph health'
    out = subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, check=True, timeout=60
    ).stdout.splitlines()
    assert out[0].startswith(f"ceph version {MAJOR[_release(rlab)]}") and out[1] == "HEALTH_OK"


def test_ab_applies_an_mclock_profile_and_puts_the_configuration_back(
    invoke_json, in_rlab, tmp_path, bench_dir
):
    """``ab`` on the release: side B switches the OSDs' mClock profile to high_client_ops
    (a runtime change on Reef and later), applied and reverted through the release's own
    tools, and afterwards the configuration database is what it was, byte for byte. What the
    rounds measure is not the subject: they run on a file, a second each."""
    suite = tmp_path / "one.yaml"
    suite.write_text(
        "name: one\ndescription: one workload\nextends: quick\n"
        "workloads:\n  - {name: rand_rd, rw: randread, bs: 4k, iodepth: 8}\n"
    )
    before = ceph_json(in_rlab, "config", "dump")
    change = "ceph config set osd osd_mclock_profile high_client_ops"
    doc = invoke_json(
        "ab", str(suite), "--b", change, "--rounds", "4", "--target", f"file:{bench_dir}",
        "--runtime", "1", "--size", "16m",
    )  # fmt: skip
    assert doc["order"] == "ABBA" and doc["changes"]["b"] == [change]
    setting = "config osd osd_mclock_profile"
    assert doc["applied"] == [{"setting": setting, "original": "balanced", "times_applied": 2}]
    assert [(r["setting"], r["verified"]) for r in doc["reverted"]] == [(setting, True)]
    assert ceph_json(in_rlab, "config", "dump") == before  # the entry gone, not set to balanced


def test_this_machines_client_is_told_what_it_cannot_read_before_anything(
    invoke, rlab, db, monkeypatch
):
    """A user's own (Pacific) fio on a newer cluster, not the lab's: on Reef once the OSD map
    uses pg-upmap-primary (its I/O to that PG would hang), on Tentacle at once (its keys).
    One line names both releases; no run is stored and the pool is as it was."""
    from cephbench.lab import ensure_pool, remove_pool
    from cephbench.lab.ceph import ceph

    release = _release(rlab)
    required = ceph_json(rlab, "osd", "dump")["require_min_compat_client"]
    ensure_pool(rlab, "cb-compat", pg_num=8)
    try:
        if release == "reef":
            yes = "--yes-i-really-mean-it"
            ceph(rlab, "osd", "set-require-min-compat-client", "reef", yes)
            pool_id = next(
                p["pool_id"]
                for p in ceph_json(rlab, "osd", "pool", "ls", "detail")
                if p["pool_name"] == "cb-compat"
            )
            mapped = ceph_json(rlab, "pg", "map", f"{pool_id}.0")
            other = mapped["acting"][1]  # the first is the primary
            ceph(rlab, "osd", "pg-upmap-primary", f"{pool_id}.0", str(other))
            assert ceph_json(rlab, "osd", "dump")["min_compat_client"] == "reef"
        monkeypatch.delenv("CEPHBENCH_LAB_DIR", raising=False)  # the cluster as a user names it
        cluster = ["-c", str(rlab.conf_path), "-k", str(rlab.keyring_path)]
        out = invoke("run", "quick", "--target", "rbd:cb-compat/img", *cluster, expect=1).output
        line = " ".join(out.split())
        assert "16.2.15 (Pacific)" in line, out
        if release == "reef":
            assert "1 pg-upmap-primary mapping(s) that only Reef 18 and newer" in line, out
        else:
            assert "Tentacle" in line, out
        assert "Traceback" not in out
        if db.exists():
            with sqlite3.connect(db) as conn:
                assert conn.execute("SELECT count(*) FROM runs").fetchone() == (0,)
    finally:
        if release == "reef":
            ceph(rlab, "osd", "rm-pg-upmap-primary", f"{pool_id}.0")
        remove_pool(rlab, "cb-compat")
        ceph(rlab, "osd", "set-require-min-compat-client", required, "--yes-i-really-mean-it")
    assert ceph_json(rlab, "osd", "dump")["require_min_compat_client"] == required
