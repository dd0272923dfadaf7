"""The typed run request: click option bundles build it, it is stored as versioned JSON,
read back (and migrated from what older cephbench stored) by ``--resume``."""

from __future__ import annotations

import json

import click
import pytest
from click.testing import CliRunner

from cephbench.ceph.session import HealthOptions
from cephbench.cli import run_options as bundles
from cephbench.cli.options import SectionedCommand
from cephbench.cli.run_options import run_request_options
from cephbench.errors import UsageError
from cephbench.kube.options import KubeOptions
from cephbench.planning.request import (
    SCHEMA,
    AdaptiveOptions,
    CaptureOptions,
    CephConnectionOptions,
    DeviceOptions,
    PoolOptions,
    RunRequest,
)
from cephbench.store import Store
from cephbench.tools.fio.steady_criterion import SteadyState
from cephbench.tools.fio.sweep import Axes
from cephbench.tools.iperf3.options import NetworkOptions
from cephbench.tools.plan import Overrides
from cephbench.tools.rados_bench.options import RadosBenchOptions

# What `cephbench run matrix --target file:/tmp/h11legacy/bench --iodepth 1,2 --runtime 1
# --size 16m --no-logs --label old` stored as params["request"] before the versioned request
# (the click keyword arguments), recorded by running that code with real fio.
LEGACY = {
    "target_spec": "file:/tmp/h11legacy/bench",
    "iodepth": "1,2",
    "runtime": "1",
    "size": "16m",
    "no_logs": True,
    "label": "old",
    "repeat": 1,
    "numjobs": None,
    "bs": None,
    "rw": None,
    "rwmixread": None,
    "ramp_time": None,
    "steady_state": None,
    "steady_window": None,
    "steady_ramp": None,
    "max_runtime": None,
    "target_ci": None,
    "max_repeats": 10,
    "max_time": None,
    "per_io_log": False,
    "destroy_data": None,
    "conf": None,
    "client_id": None,
    "keyring": None,
    "cluster": None,
    "connect_timeout": 30.0,
    "pool_size": None,
    "pg_num": 32,
    "no_prefill": False,
    "allow_unhealthy": False,
    "quiesce": False,
    "health_interval": 5.0,
    "drop_caches": False,
    "concurrent_ios": None,
    "object_size": None,
    "run_name": None,
}

FULL = RunRequest(
    suite="matrix",
    target="rbd:rbd/img",
    label="tuned",
    repeat=2,
    overrides=Overrides(runtime="2m", size="4G", ramp_time="5"),
    axes=Axes(
        rw=("randread", "randrw"),
        rwmixread=(70,),
        bs=("4k", "1M"),
        numjobs=(1, 4),
        iodepth=(1, 8, 64),
    ),
    steady=SteadyState("iops:0.3%", 10.0, 2.0, 120.0),
    adaptive=AdaptiveOptions(0.02, 7, 1800.0),
    capture=CaptureOptions(logs=False, per_io_log=True),
    ceph=CephConnectionOptions("/etc/ceph/x.conf", "bench", "/etc/ceph/k", "x", 12.5),
    pool=PoolOptions(size=2, pg_num=64, prefill=False),
    health=HealthOptions(allow_unhealthy=True, quiesce=True, interval=1.5),
    device=DeviceOptions(destroy_data="/dev/sdz", drop_caches=True),
    rados_bench=RadosBenchOptions(concurrent_ios=32, object_size="1M", run_name="cb"),
    network=NetworkOptions(all_pairs_at_once=True, procs=4),
    kube=KubeOptions(3, "Block", "img:1", "/k", "ctx", "ns", "a=b", True, "2", "1Gi"),
)
"""A request with no part at its default: a field left out of the JSON would not round-trip."""


def test_every_part_round_trips_through_stored_json():
    stored = json.loads(json.dumps(FULL.to_json()))
    assert stored["schema"] == SCHEMA == "cephbench.run-request/1"
    assert RunRequest.from_json(stored) == FULL
    assert RunRequest.from_json(RunRequest("quick").to_json()) == RunRequest("quick")


def test_the_stored_shape():
    doc = FULL.to_json()
    assert list(doc) == [
        "schema",
        "suite",
        "target",
        "label",
        "repeat",
        "overrides",
        "axes",
        "steady_state",
        "adaptive",
        "capture",
        "ceph",
        "pool",
        "health",
        "device",
        "rados_bench",
        "clients",
        "network",
        "kube",
    ]
    assert doc["axes"] == {
        "rw": ["randread", "randrw"],
        "rwmixread": [70],
        "bs": ["4k", "1M"],
        "numjobs": [1, 4],
        "iodepth": [1, 8, 64],
    }
    assert doc["steady_state"] == {
        "criterion": "iops:0.3%",
        "duration": 10.0,
        "ramp": 2.0,
        "max_runtime": 120.0,
    }
    assert doc["adaptive"] == {"target_ci": 0.02, "max_repeats": 7, "max_time": 1800.0}
    assert doc["label"] == "tuned"  # params.request.label: what compare's env diff ignores


def test_a_legacy_request_is_migrated():
    got = RunRequest.from_json(LEGACY, suite="matrix")
    assert got == RunRequest(
        suite="matrix",
        target="file:/tmp/h11legacy/bench",
        label="old",
        overrides=Overrides(runtime="1", size="16m"),
        axes=Axes(iodepth=(1, 2)),
        capture=CaptureOptions(logs=False),
    )


def test_a_legacy_request_without_per_io_log_is_migrated():
    older = {k: v for k, v in LEGACY.items() if k != "per_io_log"}  # before --per-io-log
    assert RunRequest.from_json(older, suite="matrix").capture == CaptureOptions(logs=False)


def test_every_legacy_option_lands_in_its_part():
    old = {
        **LEGACY,
        "target_spec": None,
        "bs": "4k,64k",
        "rw": "randrw",
        "rwmixread": "70",
        "numjobs": "2",
        "iodepth": "8",
        "ramp_time": "3",
        "steady_state": "bw_slope:0.1%",
        "steady_window": "6",
        "steady_ramp": "1",
        "max_runtime": "30",
        "target_ci": "2.5%",
        "max_repeats": 5,
        "max_time": "10m",
        "no_logs": False,
        "per_io_log": True,
        "destroy_data": "/dev/sdz",
        "conf": "/c",
        "client_id": "bench",
        "keyring": "/k",
        "cluster": "x",
        "connect_timeout": 9.0,
        "pool_size": 2,
        "pg_num": 8,
        "no_prefill": True,
        "allow_unhealthy": True,
        "quiesce": True,
        "health_interval": 2.0,
        "drop_caches": True,
        "concurrent_ios": 4,
        "object_size": "1M",
        "run_name": "n",
    }
    got = RunRequest.from_json(old, suite="matrix")
    assert got == RunRequest(
        suite="matrix",
        target=None,
        label="old",
        repeat=1,
        overrides=Overrides(runtime="1", size="16m", ramp_time="3"),
        axes=Axes(rw=("randrw",), rwmixread=(70,), bs=("4k", "64k"), numjobs=(2,), iodepth=(8,)),
        steady=SteadyState("bw_slope:0.1%", 6.0, 1.0, 30.0),
        adaptive=AdaptiveOptions(0.025, 5, 600.0),
        capture=CaptureOptions(True, True),
        ceph=CephConnectionOptions("/c", "bench", "/k", "x", 9.0),
        pool=PoolOptions(2, 8, False),
        health=HealthOptions(True, True, 2.0),
        device=DeviceOptions("/dev/sdz", True),
        rados_bench=RadosBenchOptions(4, "1M", "n"),
    )
    assert got.repeats == 5  # --target-ci makes --max-repeats the cap
    assert RunRequest.from_json(got.to_json()) == got


def test_a_legacy_request_with_an_option_never_stored_is_refused():
    with pytest.raises(UsageError, match="does not know: warp_speed"):
        RunRequest.from_json({**LEGACY, "warp_speed": 9}, suite="matrix")


@pytest.mark.parametrize(
    "doc, message",
    [
        ({**FULL.to_json(), "schema": "cephbench.run-request/2"}, "stored by a newer cephbench"),
        ({"schema": "cephbench.run-request/0"}, "unknown version"),
        ({"schema": "someone-else/1"}, "not cephbench.run-request/N"),
        ({"schema": SCHEMA}, "malformed"),  # no suite
        ({**FULL.to_json(), "repeat": "twice"}, "malformed"),
        ([1, 2], "not a JSON object"),
    ],
)
def test_requests_it_cannot_read_are_refused(doc, message):
    with pytest.raises(UsageError, match=message):
        RunRequest.from_json(doc, suite="matrix")


# -- the click bundles ------------------------------------------------------------------------


def _receiver(*bundle_list):
    """A command with ``bundle_list``, and the keyword arguments it received."""
    received: dict = {}

    def body(**parts):
        received.update(parts)

    for b in reversed(bundle_list):
        body = b(body)
    return click.command(cls=SectionedCommand)(body), received


def _run(bundle_list, *args):
    command, received = _receiver(*bundle_list)
    result = CliRunner().invoke(command, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return received


def test_each_bundle_builds_its_part():
    cmd = (bundles.steady, bundles.capture, bundles.pool, bundles.adaptive, bundles.axes)
    got = _run(
        cmd,
        "--steady-state",
        "iops:1%",
        "--max-runtime",
        "20",
        "--no-logs",
        "--no-prefill",
        "--pg-num",
        "8",
        "--target-ci",
        "3%",
        "--iodepth",
        "1,4",
        "--bs",
        "64k",
    )
    assert got == {
        "steady": SteadyState("iops:1%", 5.0, 0.0, 20.0),
        "capture": CaptureOptions(logs=False, per_io_log=False),
        "pool": PoolOptions(size=None, pg_num=8, prefill=False),
        "adaptive": AdaptiveOptions(0.03, 10, None),
        "axes": Axes(bs=("64k",), iodepth=(1, 4)),
    }


def test_plain_bundle_passes_values_through():
    assert _run((bundles.run_basics,), "-t", "file:/x", "-r", "3") == {
        "target": "file:/x",
        "label": None,
        "repeat": 3,
        "resume_ref": None,
    }


def test_the_options_defaults_are_the_requests_defaults():
    """No flags: the request a run stores equals the dataclasses' own defaults, which is what
    a request that left a value out is read back with."""

    @click.command()
    @click.argument("suite")
    @run_request_options
    def cmd(suite, resume_ref, **parts):
        click.echo(json.dumps(RunRequest(suite, **parts).to_json()))

    out = CliRunner().invoke(cmd, ["quick"])
    assert json.loads(out.output) == RunRequest("quick").to_json()
    out = CliRunner().invoke(
        cmd,
        [
            "matrix",
            "--id",
            "bench",
            "--health-interval",
            "2",
            "--destroy-data",
            "/dev/sdz",
            "--concurrent-ios",
            "4",
        ],
    )
    got = RunRequest.from_json(json.loads(out.output))
    assert (
        got.ceph.client_id,
        got.health.interval,
        got.device.destroy_data,
        got.rados_bench.concurrent_ios,
    ) == ("bench", 2.0, "/dev/sdz", 4)


@pytest.mark.parametrize(
    "args, message",
    [
        (("--max-time", "1m"), "goes with --target-ci"),
        (("--steady-window", "5"), "go with --steady-state"),
        (("--target-ci", "0%"), "a percentage above 0"),
        (("--iodepth", "1,x"), "whole numbers only"),
    ],
)
def test_bundles_refuse_bad_combinations(args, message):
    cmd, _ = _receiver(bundles.steady, bundles.adaptive, bundles.axes)
    result = CliRunner().invoke(cmd, list(args))
    assert isinstance(result.exception, UsageError) and message in result.exception.message


def test_run_help_shows_the_options_in_sections(invoke):
    out = invoke("run", "--help").output
    titles = [
        "Run:",
        "Workload overrides:",
        "Sweeps (one value replaces the suite's, a list sweeps):",
        "Steady state:",
        "Adaptive repeats:",
        "Time series:",
        "Devices and page cache:",
        "Ceph connection:",
        "Ceph pools and images:",
        "Ceph health:",
        "rados bench:",
        "Other options:",
    ]
    at = [out.index(f"\n{t}\n") for t in titles]
    assert at == sorted(at)
    sections = dict(
        zip(titles, (out[a:b] for a, b in zip(at, [*at[1:], len(out)], strict=True)), strict=True)
    )
    assert "--keyring" in sections["Ceph connection:"] and "--quiesce" in sections["Ceph health:"]
    assert "--steady-window" in sections["Steady state:"] and "--bs" in sections[titles[2]]
    assert "--format" in sections["Other options:"] and "--db" in sections["Other options:"]
    assert "Options:\n" not in out.replace("Other options:\n", "")


def test_every_run_option_but_output_belongs_to_a_section():
    from cephbench.cli.run import run

    loose = [
        p.name
        for p in run.params
        if isinstance(p, click.Option) and getattr(p, "section", None) is None
    ]
    assert sorted(loose) == ["db_path", "debug", "fmt"]


# -- stored and resumed (with real fio: tests/fio/test_run_request.py) ------------------------


def test_a_run_of_a_newer_cephbench_is_not_resumed(invoke, invoke_json, db, bench_dir):
    newer = {
        **RunRequest("matrix", target=f"file:{bench_dir}").to_json(),
        "schema": "cephbench.run-request/2",
    }
    with Store(db) as s:
        run_id = s.start_run(
            label=None,
            suite="matrix",
            target=f"file:{bench_dir}",
            environment={},
            params={"tool": "fio", "request": newer},
        )
        s.finish_run(run_id, "aborted", "interrupted")
    out = invoke("run", "matrix", "--resume", str(run_id), expect=2)
    assert f"run {run_id} cannot be resumed: the run was stored by a newer cephbench" in out.stderr
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 2  # + hint
    run = invoke_json("show", str(run_id))
    assert run["status"] == "aborted" and run["results"] == []
