"""Chained workloads run by real fio: one fio process, and still strictly one workload
after another (the chain's gates without fio: tests/unit/test_chain.py)."""

from __future__ import annotations

from cephbench.planning.plan import make_plan
from cephbench.tools.fio import command as fio_command
from cephbench.tools.fio import parse as fio_parse
from cephbench.tools.fio.chain import Chain, links_of
from cephbench.tools.fio.jobfile import parse_jobfile
from cephbench.tools.plan import Overrides
from tests.helpers import needs_fio

JOBS = """
[global]
ioengine=null
size=64m
time_based
runtime=400ms
rate_iops=2000
write_lat_log=lat
log_unix_epoch=1
stonewall
[first]
rw=randread
[second]
rw=randwrite
numjobs=2
[third]
rw=read
"""


def _span(path) -> tuple[int, int]:
    """First and last completion time (unix ms) in a fio latency log."""
    stamps = [int(line.split(",")[0]) for line in path.read_text().splitlines() if line.strip()]
    return min(stamps), max(stamps)


@needs_fio
def test_workloads_never_overlap_and_all_run_their_full_time(tmp_path):
    jobfile = parse_jobfile(JOBS)
    with Chain(links_of(jobfile), tmp_path) as chain:
        result = fio_command.run_jobfile(chain.jobfile(jobfile).render(), tmp_path)
    spans = {int(log.name.split(".")[1]): _span(log) for log in tmp_path.glob("lat_lat.*.log")}
    assert result.returncode == 0, result.stderr
    outcomes = fio_parse.parse(result.stdout)
    assert [o.name for o in outcomes] == ["first", "second", "third"]
    assert all(o.results[0].runtime_s >= 0.399 for o in outcomes)
    assert outcomes[1].results[0].numjobs == 2
    # fio numbers the logs per job in file order: 1 = first, 2 and 3 = second's clones, 4 = third
    first, second, third = [spans[1]], [spans[2], spans[3]], [spans[4]]
    assert max(end for _, end in first) <= min(start for start, _ in second)
    assert max(end for _, end in second) <= min(start for start, _ in third)


@needs_fio
def test_every_repeat_of_a_suite_runs_in_order(tmp_path, db):
    """Through the runner: in the second repeat too, no workload overlaps the one before."""
    from cephbench.execution.runner import execute
    from cephbench.store import Store
    from cephbench.targets import parse_target

    logs = tmp_path / "logs"
    logs.mkdir()
    suite = tmp_path / "ordered.yaml"
    workloads = "\n".join(
        f"  - {{name: w{i}, rw: randread, options: {{write_lat_log: {logs}/w{i}, log_unix_epoch: 1}}}}"
        for i in range(3)
    )
    suite.write_text(
        "name: ordered\ndescription: d\nglobal: {ioengine: null, size: 16m, time_based: true, "
        "runtime: 300ms, rate_iops: 2000}\nworkloads:\n" + workloads + "\n"
    )
    (tmp_path / "bench").mkdir()
    with Store(db) as store:
        outcome = execute(
            store,
            make_plan(str(suite), Overrides()),
            parse_target(f"file:{tmp_path / 'bench'}"),
            repeats=2,
        )
        assert store.get_run(outcome.run_id).status == "complete"
    # fio numbers a log by its job's place in the job file; the second repeat wrote them last
    spans = [_span(logs / f"w{i}_lat.{i + 1}.log") for i in range(3)]
    assert spans[0][1] <= spans[1][0] and spans[1][1] <= spans[2][0]


@needs_fio
def test_a_workload_that_dies_in_setup_does_not_stall_the_chain(tmp_path):
    """fio skips exec_postrun when a job fails before its I/O; the next workloads still run."""
    jobfile = parse_jobfile(
        "[global]\nioengine=null\nsize=16m\ntime_based\nruntime=300ms\n"
        "stonewall\n[dies]\nrw=read\nexec_prerun=false\n"
        "[b]\nrw=read\nnumjobs=2\n[c]\nrw=write\n"
    )
    with Chain(links_of(jobfile), tmp_path) as chain:
        result = fio_command.run_jobfile(chain.jobfile(jobfile).render(), tmp_path, timeout=60)
    outcomes = {o.name: o for o in fio_parse.parse(result.stdout, 0, result.stderr)}
    assert not outcomes["dies"].results  # fio reports it with error 0: the runner calls it failed
    assert outcomes["b"].results[0].runtime_s >= 0.299 and outcomes["b"].results[0].numjobs == 2
    assert outcomes["c"].results[0].runtime_s >= 0.299
