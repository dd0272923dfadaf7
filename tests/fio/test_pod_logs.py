"""What a step left in its pods, read in one call (``PodSet.files``, its shell script run by a
real ``sh`` on this machine in place of ``kubectl exec``): every file exactly, fio's logs taken
out of the pod, and those logs read as one job's clones (two pods' logs of a recorded
``numjobs=2`` run give exactly the series of that run's own two clones)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np

from cephbench.kube.pods import Pod, PodSet
from cephbench.model import WorkloadOutcome
from cephbench.system.process import run
from cephbench.tools.fio import pods as fio_pods
from cephbench.tools.fio.capture import Logged
from cephbench.tools.fio.logs import collect

RECORDED = Path(__file__).parents[1] / "data" / "fio" / "3.33" / "logs" / "avg_numjobs2"


class LocalPods:
    """``kubectl exec`` as ``sh`` here: each pod's run directory is a directory of its own."""

    def __init__(self, root: Path):
        self.root = root

    def exec(self, namespace, pod, argv, *, stdin=None, timeout=60, check=True, **kw):
        run_dir, here = fio_pods.RUN_DIR, str(self.root / pod)
        argv = [here + a[len(run_dir) :] if a.startswith(run_dir) else a for a in argv]
        return run(argv, stdin=stdin, timeout=timeout, check=check)


def pods_with_clone_logs(tmp_path: Path) -> PodSet:
    """Two pods; pod k's run directory holds the recorded run's clone k+1 as its clone 1
    (what each pod's own one-job fio writes), beside a file that is not a log."""
    podset = PodSet(LocalPods(tmp_path), "ns", (Pod("p0", "n", "c0"), Pod("p1", "n", "c1")))  # type: ignore[arg-type]
    for k, pod in enumerate(podset.pods):
        d = tmp_path / pod.name
        d.mkdir()
        for src in RECORDED.glob(f"rr_*.{k + 1}.log"):
            shutil.copy(src, d / src.name.replace(f".{k + 1}.log", ".1.log"))
        (d / "w1.fio").write_text("[rr]\n")
        (d / "w1.rc").write_text("0\n")  # the step has ended
    return podset


def test_one_call_reads_the_named_files_and_takes_the_logs(tmp_path):
    podset = pods_with_clone_logs(tmp_path)
    (tmp_path / "p0" / "w1.rc").write_text("0\n")
    (tmp_path / "p0" / "w1.err").write_text("no newline at the end")
    (tmp_path / "p0" / "w1.out").write_text("#cb-file looks like a marker but is not one\n\n")
    names = ["w1.rc", "w1.out", "w1.err", "w1.missing"]
    got = podset.files(podset.pods[0], fio_pods.RUN_DIR, names, logs="rr")
    assert got.pop("w1.rc") == "0\n" and got.pop("w1.err") == "no newline at the end"
    assert got.pop("w1.missing") == ""
    assert got.pop("w1.out") == "#cb-file looks like a marker but is not one\n\n"
    assert sorted(got) == sorted(p.name for p in RECORDED.glob("rr_*.1.log"))
    for name, text in got.items():
        assert text == (RECORDED / name).read_text()  # byte for byte
    left = sorted(p.name for p in (tmp_path / "p0").iterdir())
    assert left == ["w1.err", "w1.fio", "w1.out", "w1.rc"]  # the logs are gone, nothing else
    assert podset.files(podset.pods[0], fio_pods.RUN_DIR, [], logs="rr") == {}


def test_pods_logs_are_one_jobs_clones(tmp_path):
    podset = pods_with_clone_logs(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    finished, _ = podset.wait(fio_pods.RUN_DIR, "w1", logs="rr")
    asked = {"rr": Logged("rr", 200)}  # the recorded job's log_avg_msec
    got = fio_pods._pod_series(work, finished, asked, [WorkloadOutcome("rr")], 0)
    want = collect(RECORDED, "rr", workload="rr", interval_ms=200)
    assert [(s.op, s.metric) for s in got] == [(s.op, s.metric) for s in want]
    for g, w in zip(got, want, strict=True):
        assert np.array_equal(g.t_s, w.t_s) and np.array_equal(g.values, w.values)
    assert list(work.iterdir()) == []  # read, then removed


def test_a_failed_workload_keeps_no_series_and_no_file(tmp_path):
    podset = pods_with_clone_logs(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    failed = WorkloadOutcome("rr", error="fio: exit 1")
    finished, _ = podset.wait(fio_pods.RUN_DIR, "w1", logs="rr")
    assert fio_pods._pod_series(work, finished, {"rr": Logged("rr", 200)}, [failed], 0) == []
    assert list(work.iterdir()) == [] and not list((tmp_path / "p1").glob("rr_*"))


def test_one_call_writes_the_input_and_starts_the_program(tmp_path):
    podset = pods_with_clone_logs(tmp_path)
    pod, run_dir = podset.pods[1], fio_pods.RUN_DIR
    gate = f"{run_dir}/rr.prerun.txt"
    (tmp_path / pod.name / "rr.prerun.txt").write_text("a gate time of the step before\n")
    script = "cat w2.in; echo to stderr >&2; echo 1795723103.5 > rr.prerun.txt; exit 3"
    podset.launch(pod, f"{run_dir}/w2.in", "the job\n", run_dir, "w2", ["sh", "-c", script],
                  clear=[gate])  # fmt: skip
    for p in podset.pods[:1]:  # only pod 1 runs it: give pod 0 the same step, ended
        (tmp_path / p.name / "w2.rc").write_text("0\n")
    finished, interrupted = podset.wait(run_dir, "w2", also=["rr.prerun.txt"])
    assert not interrupted
    mine = finished[1]
    assert (mine.returncode, mine.stdout, mine.stderr) == (3, "the job\n", "to stderr\n")
    assert mine.files["rr.prerun.txt"] == "1795723103.5\n"  # emptied before the step, then written
