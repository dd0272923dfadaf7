"""What cephbench asks fio to log for each job, and the window the logs are then read over
(the one asked for, never guessed from the lines)."""

from __future__ import annotations

from cephbench.tools.fio.capture import Logged, with_logs
from cephbench.tools.fio.jobfile import parse_jobfile

JOBS = """
[global]
time_based
runtime=2

[short]
rw=randread

[long]
rw=write
runtime=60

[own]
rw=read
write_iops_log=mine
"""


def test_each_job_is_read_over_the_window_it_was_asked_for():
    jobfile, logged = with_logs(parse_jobfile(JOBS))
    assert logged == {"short": Logged("cblog0", 100), "long": Logged("cblog1", 1000)}
    short, long, own = (jobfile.merged(j) for j in jobfile.jobs)
    assert (short["log_avg_msec"], short["write_iops_log"]) == ("100", "cblog0")
    assert long["log_avg_msec"] == "1000"
    assert "log_avg_msec" not in own  # the user's own logs are left as they are


def test_per_io_logs_have_no_window():
    jobfile, logged = with_logs(parse_jobfile(JOBS), per_io=True)
    assert logged["short"] == Logged("cblog0", None)
    assert jobfile.merged(jobfile.jobs[0])["log_avg_msec"] == "0"
