"""fio in Kubernetes pods (the ``pvc:`` target): a second kind of client beside ssh hosts.

The pods have no route from this machine (a pod network need not reach it), so fio's
client/server mode is not used: fio runs inside each pod through ``kubectl exec``
(kube/pods.py: started detached in every pod, then waited for), one workload per fio process.
With several pods, every job waits in its ``exec_prerun`` until one wall-clock instant chosen
a little ahead (as ``--clients`` does, many.py), and prints the time it went on: their spread
is the workload's ``start_skew_ms``; one pod starts as soon as it is set up. Each pod's JSON+
report becomes one client's entries of a fio client/server document (``hostname`` the pod
and its node), so the same parser gives each pod's figures and the exact aggregate (sums with
fsum, latency percentiles from the merged json+ bins: clients.py), never fio's own "All
clients". The raw output stored is that document, each pod's jobs exactly as fio printed them.
fio's logs (as for a local run: ``--no-logs`` to skip) are taken out of the pods after each
workload and read as one job's clones: the series are the pods' sum.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path, PurePosixPath

from cephbench.errors import ParseError
from cephbench.kube.objects import WORKDIR
from cephbench.kube.pods import Finished, PodSet
from cephbench.model import RawOutput, Series, WorkloadOutcome, now
from cephbench.system.process import ProcessResult
from cephbench.tools.base import RunContext, Step
from cephbench.tools.fio import command as fio_command
from cephbench.tools.fio import parse as fio_parse
from cephbench.tools.fio.capture import LOG_PREFIX, Logged, with_logs, workload_series
from cephbench.tools.fio.jobfile import JobFile
from cephbench.tools.fio.logs.names import kind_and_clone
from cephbench.tools.fio.many import (
    Clients,
    FioServer,
    StartGate,
    client_outcomes,
    read_start,
    start_skew_ms,
)
from cephbench.tools.fio.plan import Batch
from cephbench.tools.fio.steps import scheduled

RUN_DIR = WORKDIR
_steps = itertools.count(1)


def with_pod_start_gate(jobfile: JobFile, at: float) -> JobFile:
    """Each job waits until ``at`` (seconds since the epoch) in its ``exec_prerun`` and
    prints the time it went on, then the time it arrived at the gate (its set-up done, in
    nanoseconds: what the next workload's lead is learnt from); needs only ``sh``, ``date`` (``%N``) and ``sleep`` in the pod (no awk:
    the wait is computed in the shell's integer arithmetic, in nanoseconds). An image
    without ``date`` starts each pod's job once it is set up, and no skew is stored."""
    at_ns = round(at * 1e9)
    wait = (  # one subshell: fio sends only the last command's output to JOB.prerun.txt
        "( command -v date >/dev/null 2>&1 || exit 0 && "
        f"n=$(date +%s%N) && d=$(({at_ns} - n)) && "
        "( [ $d -le 0 ] || sleep $((d / 1000000000)).$(printf %09d $((d % 1000000000))) ) "
        "&& date +%s.%N && echo $n )"
    )
    jobs = [
        job if "exec_prerun" in jobfile.merged(job) else job.with_options({"exec_prerun": wait})
        for job in jobfile.jobs
    ]
    return JobFile(jobfile.global_, tuple(jobs))


def gate_times(text: str) -> tuple[list[float], list[float]]:
    """What the start gates printed: when the jobs went on (``1795723103.626794262``) and
    when they arrived at the gate (nanoseconds, ``1795723103611017216``), in seconds."""
    gone, came = [], []
    for line in text.split():
        if "." in line:
            if (t := read_start(line)) is not None:
                gone.append(t)
        elif line.isdigit():
            came.append(int(line) / 1e9)
    return gone, came


def as_clients(podset: PodSet) -> Clients:
    """The pods as fio clients: each pod's entries are named ``pod@node`` (port 0)."""
    servers = tuple(FioServer(p.host, p.host, 0) for p in podset.pods)
    return Clients(servers, (), lambda: {}, StartGate.after_reach(podset.reach_seconds))


def combined(
    finished: list[Finished], starts: dict[str, float] | None = None
) -> tuple[str, str, int]:
    """Each pod's JSON report as one client/server document (stdout), their stderr (with the
    pod named), and the worst exit status. The document's ``cephbench pods`` says, per pod,
    when its fio reported (its ``timestamp_ms``) and when its jobs' start gate let them go
    (``started``, seconds since the epoch; ``starts``)."""
    entries: list[dict] = []
    pods: list[dict] = []
    version, global_options, errors = None, None, []
    for f in finished:
        errors += [f"<{f.pod.host}> {ln}" for ln in f.stderr.splitlines()]
        try:
            doc = fio_parse.extract(f.stdout)
        except ParseError:
            errors.append(f"<{f.pod.host}> fio: no JSON report (exit {f.returncode})")
            continue
        version = version or doc.version
        pods.append(
            {
                "host": f.pod.host,
                "timestamp_ms": doc.data.get("timestamp_ms"),
                "started": (starts or {}).get(f.pod.host),
            }
        )
        global_options = global_options or doc.data.get("global options")
        for job in doc.data.get("jobs", []):
            entries.append({**job, "hostname": f.pod.host, "port": 0})
        errors += [f"<{f.pod.host}> {m}" for m in doc.messages]
    document: dict = {"fio version": version, "client_stats": entries, "cephbench pods": pods}
    if global_options is not None:
        document["global options"] = global_options
    codes = [f.returncode if f.returncode is not None else -1 for f in finished]
    stdout = json.dumps(document, indent=1) if entries else ""
    return stdout, "\n".join(errors), max(codes, key=abs) if codes else 0


def pod_steps(ctx: RunContext, podset: PodSet) -> Iterator[Step]:
    """Repeat by repeat, the workloads the schedule asks for, each in every pod at once
    (each pod's job file with the target's options and the pod's own over them)."""
    clients = as_clients(podset)
    base = ctx.fio_target.options
    for repeat, names in scheduled(ctx):
        selected = ctx.plan.only(names)
        per_pod = [selected.batches({**base, **dict(p.options)}, True) for p in podset.pods]
        for batches in zip(*per_pod, strict=True):
            ctx.before_each()
            yield run_pod_batch(ctx, podset, clients, repeat, batches)


def run_pod_batch(
    ctx: RunContext, podset: PodSet, clients: Clients, repeat: int, batches: Sequence[Batch]
) -> Step:
    """One workload in every pod at once (``batches``: each pod's), as one step."""
    started, t0 = now(), time.monotonic()
    prefixes: dict[str, Logged] = {}
    if ctx.options.logs:  # every pod logs under the same names; read back as fio's clones
        logged = [with_logs(b.jobfile, ctx.options.per_io_logs) for b in batches]
        batches = [replace(b, jobfile=j) for b, (j, _) in zip(batches, logged, strict=True)]
        prefixes = logged[0][1]
    launched = time.time()
    gated = len(podset.pods) > 1  # one pod has nobody to wait for: it starts once set up
    texts = [
        (
            with_pod_start_gate(b.jobfile, launched + clients.gate.lead) if gated else b.jobfile
        ).render()
        for b in batches
    ]
    batch = batches[0]
    tag = f"w{next(_steps)}"
    argv = ["fio", f"--output-format={fio_command.OUTPUT_FORMAT}", f"{tag}.fio"]
    gates = [f"{j.name}.prerun.txt" for j in batch.jobfile.jobs]  # in RUN_DIR
    prerun = [str(PurePosixPath(RUN_DIR) / g) for g in gates]
    # job file, gate times emptied, go: every pod at once (a kubectl exec each, not in turn)
    with ThreadPoolExecutor(len(podset.pods), thread_name_prefix="fio-launch") as pool:
        for done in [
            pool.submit(
                podset.launch, pod, f"{RUN_DIR}/{tag}.fio", text, RUN_DIR, tag, argv, prerun
            )
            for pod, text in zip(podset.pods, texts, strict=True)
        ]:
            done.result()
    name = batch.jobfile.jobs[0].name
    finished, interrupted = podset.wait(
        RUN_DIR,
        tag,
        on_tick=lambda elapsed: ctx.progress.update(repeat, name, elapsed),
        also=gates if gated else (),
        logs=LOG_PREFIX if prefixes else "",
    )
    starts, arrived = {}, []
    for f in finished if gated else ():
        gone, came = gate_times("".join(f.files.get(g, "") for g in gates))
        if gone:
            starts[f.pod.host] = min(gone)
        arrived += came
    clients.gate.observe(launched, arrived)
    skew = start_skew_ms(starts, len(podset.pods))
    stdout, stderr, code = combined(finished, starts)
    result = ProcessResult(("kubectl", "exec", *argv), code, stdout, stderr, time.monotonic() - t0)
    outcomes = client_outcomes(result, repeat, batch, clients, interrupted, skew)
    series = _pod_series(ctx.work, finished, prefixes, outcomes, repeat)
    given = "\n".join(f"# pod {p.host}\n{t}" for p, t in zip(podset.pods, texts, strict=True))
    raw = RawOutput("fio", result.argv, given, stdout, stderr, code, started, result.seconds)
    window = (t0, time.monotonic())
    return Step(repeat, raw, outcomes, [window] * len(outcomes), series, interrupted=interrupted)


def _pod_series(
    work: Path,
    finished: Sequence[Finished],
    prefixes: dict[str, Logged],
    outcomes: Sequence[WorkloadOutcome],
    repeat: int,
) -> list[Series]:
    """Each workload's time series from every pod's fio logs (read with its outputs): the
    pods' logs join as clones of one job (``pod k``'s clone N is numbered ``k * 10000 + N``),
    so IOPS and bandwidth add up per window and latency is weighted by IOPS, as for
    ``numjobs``; the start gate lines the pods' windows up to within a few ms."""
    series: list[Series] = []
    for o in outcomes:
        logged = prefixes.get(o.name)
        if logged is None:
            continue
        prefix = logged.prefix
        for k, f in enumerate(finished):
            for name, text in f.files.items():
                found = kind_and_clone(name)
                if found is None or not name.startswith(f"{prefix}_"):
                    continue
                kind, clone = found
                (work / f"{prefix}_{kind}.{k * 10000 + clone}.log").write_text(text)
        if not o.error:
            series += workload_series(work, logged, o.name, repeat)
        else:  # the files go; a failed workload keeps no series
            for path in work.glob(f"{prefix}_*.log"):
                path.unlink(missing_ok=True)
    return series
