"""A run's stored params (``params`` of ``show --format json``), byte for byte: what the
runner stores is a contract (``--resume``, ``compare``'s environment diff and exports read
it), so changing how a run is planned and started must leave it as it was. The expected
documents were recorded from runs of the code before the option model was unified (bench
paths as BENCH; an adaptive run's measured summary left out)."""

from __future__ import annotations

import json

import pytest

from tests.helpers import needs_fio

SWEEP = (
    '{"tool": "fio", "repeat": 2, "overrides": {"runtime": "1", "size": "16m", "bs": "8k"}, '
    '"sweep": {"bs": ["8k"], "iodepth": [1, 2]}, "request": {"schema": "cephbench.run-'
    'request/1", "suite": "matrix", "target": "file:BENCH", "label": "p", "repeat": 2, '
    '"overrides": {"runtime": "1", "size": "16m", "ramp_time": null}, "axes": {"rw": [], '
    '"rwmixread": [], "bs": ["8k"], "numjobs": [], "iodepth": [1, 2]}, "steady_state": null, '
    '"adaptive": {"target_ci": null, "max_repeats": 10, "max_time": null}, "capture": '
    '{"logs": false, "per_io_log": false}, "ceph": {"conf": null, "client_id": null, '
    '"keyring": null, "cluster": null, "connect_timeout": 30.0}, "pool": {"size": null, '
    '"pg_num": 32, "prefill": true}, "health": {"allow_unhealthy": false, "quiesce": false, '
    '"interval": 5.0}, "device": {"destroy_data": null, "drop_caches": false, "hosts": null},'
    ' "rados_bench": {"concurrent_ios": null, "object_size": null, "run_name": null}, '
    '"clients": {"spec": null, "shared_image": false}, "network": {"all_pairs_at_once": '
    'false, "procs": 1}}}'
)

STEADY_ADAPTIVE = (
    '{"tool": "fio", "repeat": 3, "overrides": {"runtime": "2", "size": "16m", "rw": '
    '"randwrite", "ramp_time": "1"}, "steady_state": {"criterion": "iops:50%", "duration": '
    '15.0, "ramp": 0.0, "max_runtime": null}, "target_ci": 0.9, "max_time": null, "request": '
    '{"schema": "cephbench.run-request/1", "suite": "tests/data/fio/3.33/randread_qd8.fio", '
    '"target": "file:BENCH", "label": null, "repeat": 1, "overrides": {"runtime": "2", '
    '"size": "16m", "ramp_time": "1"}, "axes": {"rw": ["randwrite"], "rwmixread": [], "bs": '
    '[], "numjobs": [], "iodepth": []}, "steady_state": {"criterion": "iops:50%", "duration":'
    ' 15.0, "ramp": 0.0, "max_runtime": null}, "adaptive": {"target_ci": 0.9, "max_repeats": '
    '3, "max_time": null}, "capture": {"logs": true, "per_io_log": false}, "ceph": {"conf": '
    'null, "client_id": null, "keyring": null, "cluster": null, "connect_timeout": 30.0}, '
    '"pool": {"size": null, "pg_num": 32, "prefill": true}, "health": {"allow_unhealthy": '
    'false, "quiesce": false, "interval": 5.0}, "device": {"destroy_data": null, '
    '"drop_caches": false, "hosts": null}, "rados_bench": {"concurrent_ios": null, '
    '"object_size": null, "run_name": null}, "clients": {"spec": null, "shared_image": '
    'false}, "network": {"all_pairs_at_once": false, "procs": 1}}}'
)

RADOS = (
    '{"tool": "rados-bench", "repeat": 3, "overrides": {"runtime": "5", "bs": "4k"}, '
    '"request": {"x": 1}, "health": {"allow_unhealthy": false, "quiesce": false, "interval": '
    '5.0}, "connection": {"conf": "/etc/ceph/ceph.conf"}, "tool_options": {"concurrent": 8, '
    '"object_size": 4096}, "drop_caches": true, "hosts": "lab"}'
)

OSD = (
    '{"tool": "osd-bench", "repeat": 3, "overrides": {"runtime": "5", "bs": "4k"}, "request":'
    ' {"x": 1}, "health": {"allow_unhealthy": false, "quiesce": false, "interval": 5.0}, '
    '"connection": {"conf": "/etc/ceph/ceph.conf"}, "tool_options": {"bs": 4096}, '
    '"drop_caches": true, "hosts": "lab"}'
)


def _params(invoke, bench_dir, *args: str) -> dict:
    invoke("run", *args, "--target", f"file:{bench_dir}")
    params = json.loads(invoke("show", "last", "--format", "json").stdout)["params"]
    return json.loads(json.dumps(params).replace(str(bench_dir), "BENCH"))


@needs_fio
def test_a_sweeps_params_are_as_before(invoke, bench_dir):
    args = ("matrix", "--iodepth", "1,2", "--bs", "8k", "--runtime", "1", "--size", "16m")
    got = _params(invoke, bench_dir, *args, "--no-logs", "--label", "p", "--repeat", "2")
    assert json.dumps(got) == SWEEP


@needs_fio
def test_a_job_files_steady_adaptive_params_are_as_before(invoke, bench_dir):
    job = "tests/data/fio/3.33/randread_qd8.fio"
    args = ("--steady-state", "iops:50%", "--runtime", "2", "--size", "16m", "--ramp-time", "1")
    got = _params(
        invoke,
        bench_dir,
        job,
        *args,
        "--target-ci",
        "90%",
        "--max-repeats",
        "3",
        "--rw",
        "randwrite",
    )
    assert set(got.pop("adaptive")) == {"randread_qd8"}  # measured: its figures vary
    assert json.dumps(got) == STEADY_ADAPTIVE


class _Cluster:
    def to_json(self) -> dict:
        return {"conf": "/etc/ceph/ceph.conf"}


class _CephTarget:
    cluster = _Cluster()


@pytest.mark.parametrize(
    ("suite", "tool_options", "expected"), [("rados", {"concurrent": 8}, RADOS), ("osd", {}, OSD)]
)
def test_a_tool_suites_params_are_as_before(suite, tool_options, expected):
    from cephbench import tools
    from cephbench.execution.params import run_params
    from cephbench.planning.plan import make_plan
    from cephbench.tools.options import RunOptions
    from cephbench.tools.plan import Overrides

    plan = make_plan(suite, Overrides(runtime="5", bs="4k"), tool_options)
    options = RunOptions(drop_caches=True, hosts="lab")
    got = run_params(plan, tools.get(plan.tool), _CephTarget(), 3, options, {"x": 1})
    assert json.dumps(got) == expected
