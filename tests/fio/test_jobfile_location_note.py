"""A user's job file's ``filename=``/``directory=`` is replaced by the target's location:
the plan lists what it replaces, and ``run`` says so in one line per value at its start."""

from __future__ import annotations

from pathlib import Path

from cephbench.tools.fio.plan import make_fio_plan
from cephbench.tools.plan import Overrides
from tests.helpers import needs_fio

JOBS = """[global]
ioengine=psync
size=4m
runtime=1
time_based
[seq]
rw=read
filename=/dev/sdb
[rand]
rw=randread
filename=/dev/sdb
[w]
rw=write
directory=/mnt/x
"""


def _jobfile(tmp_path: Path, text: str = JOBS) -> Path:
    path = tmp_path / "mine.fio"
    path.write_text(text)
    return path


def test_the_plan_names_each_replaced_location_and_its_jobs(tmp_path: Path):
    plan = make_fio_plan(str(_jobfile(tmp_path)), Overrides())
    assert plan.replaced_locations() == [
        "filename=/dev/sdb ([seq], [rand]) is replaced by the target's location",
        "directory=/mnt/x ([w]) is replaced by the target's location",
    ]


def test_a_suite_or_a_file_without_locations_replaces_nothing(tmp_path: Path):
    assert make_fio_plan("quick", Overrides()).replaced_locations() == []
    plain = _jobfile(tmp_path, "[one]\nrw=read\nsize=4m\n")
    assert make_fio_plan(str(plain), Overrides()).replaced_locations() == []


@needs_fio
def test_run_says_which_filename_it_replaced(invoke, tmp_path: Path, bench_dir: Path):
    path = _jobfile(tmp_path)
    result = invoke("run", str(path), "--target", f"file:{bench_dir}")
    lines = [line for line in result.stderr.splitlines() if "is replaced by" in line]
    assert lines == [
        f"note: {path}: filename=/dev/sdb ([seq], [rand]) is replaced by the target's location",
        f"note: {path}: directory=/mnt/x ([w]) is replaced by the target's location",
    ]
