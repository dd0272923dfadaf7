"""fio's logs taken out of pods (``PodSet.take``, its shell script run by a real ``sh`` on this
machine in place of ``kubectl exec``) and read as one job's clones: two pods' logs of a
recorded ``numjobs=2`` run give exactly the series of that run's own two clones."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np

from cephbench.kube.pods import Pod, PodSet
from cephbench.model import WorkloadOutcome
from cephbench.system.process import run
from cephbench.tools.fio import pods as fio_pods
from cephbench.tools.fio.logs import collect

RECORDED = Path(__file__).parents[1] / "data" / "fio" / "3.33" / "logs" / "avg_numjobs2"


class LocalPods:
    """``kubectl exec`` as ``sh`` here: each pod's run directory is a directory of its own."""

    def __init__(self, root: Path):
        self.root = root

    def exec(self, namespace, pod, argv, *, stdin=None, timeout=60, check=True, **kw):
        argv = [str(self.root / pod) if a == fio_pods.RUN_DIR else a for a in argv]
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
    return podset


def test_take_returns_each_log_and_removes_it(tmp_path):
    podset = pods_with_clone_logs(tmp_path)
    taken = podset.take(podset.pods[0], fio_pods.RUN_DIR, "rr")
    assert sorted(taken) == sorted(p.name for p in RECORDED.glob("rr_*.1.log"))
    for name, text in taken.items():
        assert text == (RECORDED / name).read_text()  # byte for byte
    assert sorted(p.name for p in (tmp_path / "p0").iterdir()) == ["w1.fio"]  # logs gone
    assert podset.take(podset.pods[0], fio_pods.RUN_DIR, "rr") == {}


def test_pods_logs_are_one_jobs_clones(tmp_path):
    podset = pods_with_clone_logs(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    got = fio_pods._pod_series(work, podset, {"rr": "rr"}, [WorkloadOutcome("rr")], 0)
    want = collect(RECORDED, "rr", workload="rr")
    assert [(s.op, s.metric) for s in got] == [(s.op, s.metric) for s in want]
    for g, w in zip(got, want, strict=True):
        assert np.array_equal(g.t_s, w.t_s) and np.array_equal(g.values, w.values)
    assert list(work.iterdir()) == []  # read, then removed


def test_a_failed_workload_keeps_no_series_and_no_file(tmp_path):
    podset = pods_with_clone_logs(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    failed = WorkloadOutcome("rr", error="fio: exit 1")
    assert fio_pods._pod_series(work, podset, {"rr": "rr"}, [failed], 0) == []
    assert list(work.iterdir()) == [] and not list((tmp_path / "p1").glob("rr_*"))
