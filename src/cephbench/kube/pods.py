"""Running a program in the run's pods through ``kubectl exec``, detached, so that every pod
runs at once while cephbench makes one kubectl call at a time.

The program starts in the background of a ``sh`` in the pod (its output to files in a
directory of the pod), cephbench then waits for each pod's ``rc`` file, and reads the files
back. Each pod costs three calls a step, however many files: one writes the program's input
and starts it (:meth:`PodSet.launch`), one waits, one reads every file the step left, each
after a marker line (:meth:`PodSet.files`; kubectl exec costs a few tenths of a second a
call, which is most of a short workload's overhead in pods). A Ctrl-C while waiting is passed on to the program in every pod as SIGINT (fio then
prints what it measured). The directory is the pod's own (an ``emptyDir`` at
``objects.WORKDIR``), each step's files named by a tag of its own (``TAG.out``, ``TAG.rc``):
the image needs ``sh`` and ``sleep`` only (no mkdir, no rm); ``cat`` is used when it has one.
Nothing here knows fio (tools/fio/pods.py does)."""

from __future__ import annotations

import functools
import re
import secrets
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

from cephbench.errors import CephbenchError
from cephbench.kube.kubectl import Kubectl, KubeError
from cephbench.system.process import ProcessInterrupted, ProcessResult

_CAT = (  # a file to stdout: cat where the image has one, else the shell's own read loop
    'if command -v cat >/dev/null 2>&1; then cat "$1"; '
    'else while IFS= read -r l || [ -n "$l" ]; do printf "%s\\n" "$l"; done < "$1"; fi'
)
_START = (  # the program in the background, its files named by the step's tag
    'd=$1; t=$2; shift 2; cd "$d" || exit 1; '
    '( "$@" > "$t.out" 2> "$t.err" & echo $! > "$t.pid"; wait $!; echo $? > "$t.rc" ) '
    "</dev/null >/dev/null 2>&1 &"
)
_LAUNCH = (  # stdin into FILE, the N files after it emptied; then DIR TAG ARGV... as _START
    'f=$1; n=$2; shift 2; while [ "$n" -gt 0 ]; do : > "$1"; shift; n=$((n - 1)); done; '
    'if command -v cat >/dev/null 2>&1; then cat > "$f"; '
    'else while IFS= read -r l || [ -n "$l" ]; do printf "%s\\n" "$l"; done > "$f"; fi; ' + _START
)
_FILES = (  # in DIR: each named file, then each PREFIX*_*.log (removed once read; emptied
    # where the image has no rm), each after a line "MARK name" and followed by one newline
    f'cat_() {{ {_CAT}; }}; m=$1; cd "$2" || exit 0; p=$3; shift 3; '
    'for f; do echo "$m $f"; [ -f "$f" ] && cat_ "$f"; echo; done; '
    '[ -n "$p" ] && for f in "$p"*_*.log; do [ -f "$f" ] || continue; echo "$m $f"; '
    'cat_ "$f"; echo; if command -v rm >/dev/null 2>&1; then rm -f "$f"; else : > "$f"; fi; '
    "done; true"
)
_WAIT = 'until [ -s "$1/$2.rc" ]; do sleep 0.05; done; read rc < "$1/$2.rc"; echo "$rc"'
"""Until the step's ``rc`` file has its status: not empty (``-s``), as ``echo $? > FILE``
creates the file before it writes to it (a wait that took it as there once it existed read
an empty status)."""
_SIGNAL = (
    '[ -s "$2/$3.pid" ] && [ ! -e "$2/$3.rc" ] && read p < "$2/$3.pid" && kill -"$1" "$p"; true'
)
STOP_GRACE = 20.0
"""Seconds the programs get to end after SIGINT before their results are read anyway."""


@dataclass(frozen=True)
class Pod:
    name: str
    node: str
    claim: str
    options: tuple[tuple[str, str], ...] = ()
    """fio options of this pod's own (its own RBD image, its own object prefix), over the
    target's."""

    @property
    def host(self) -> str:
        """How results name the pod: ``pod@node``."""
        return f"{self.name}@{self.node}" if self.node else self.name


@dataclass(frozen=True)
class Finished:
    """What a program left in one pod."""

    pod: Pod
    returncode: int | None
    stdout: str
    stderr: str
    files: dict[str, str] = field(default_factory=dict)
    """The other files read with it (``wait``'s ``also`` and ``logs``): name -> text."""


@dataclass(frozen=True)
class PodSet:
    """The run's pods (in one namespace) and how to reach them."""

    kubectl: Kubectl
    namespace: str
    pods: tuple[Pod, ...]
    reach_seconds: float | None = None
    """How long one ``kubectl exec`` into the first pod took (its ``fio --version``): what the
    first start gate's lead is set from (tools/fio/pods.py)."""

    def exec(self, pod: Pod, argv: Sequence[str], **kwargs) -> ProcessResult:
        return self.kubectl.exec(self.namespace, pod.name, argv, **kwargs)

    def files(
        self, pod: Pod, workdir: str, names: Sequence[str] = (), logs: str = ""
    ) -> dict[str, str]:
        """In one call: the files ``names`` in ``workdir`` (a missing one is empty), and with
        ``logs`` every ``LOGS*_*.log`` there (fio's logs), each removed once read: name ->
        text, exactly as in the pod where it has ``cat``."""
        mark = f"#cb-file-{secrets.token_hex(8)}"  # a line no file holds
        out = self.exec(pod, ["sh", "-c", _FILES, "sh", mark, workdir, logs, *names]).stdout
        return split_files(out, mark)

    def launch(
        self,
        pod: Pod,
        path: str,
        text: str,
        workdir: str,
        tag: str,
        argv: Sequence[str],
        clear: Sequence[str] = (),
    ) -> None:
        """In one call: ``text`` into ``path`` (the files ``clear`` emptied), then ``argv``
        started as :meth:`start` does."""
        args = [path, str(len(clear)), *clear, workdir, tag, *argv]
        self.exec(pod, ["sh", "-c", _LAUNCH, "sh", *args], stdin=text)

    def start(self, pod: Pod, workdir: str, tag: str, argv: Sequence[str]) -> None:
        """``argv`` in the background of ``pod``, in ``workdir`` (its stdout to ``TAG.out``)."""
        self.exec(pod, ["sh", "-c", _START, "sh", workdir, tag, *argv])

    def signal(self, pod: Pod, workdir: str, tag: str, sig: str = "INT") -> None:
        self.exec(pod, ["sh", "-c", _SIGNAL, "sh", sig, workdir, tag], check=False, timeout=30)

    def wait(
        self,
        workdir: str,
        tag: str,
        *,
        on_tick: Callable[[float], None] | None = None,
        timeout: float | None = None,
        also: Sequence[str] = (),
        logs: str = "",
    ) -> tuple[list[Finished], bool]:
        """Wait for the program started in every pod; what each left, and whether a
        Ctrl-C stopped them (each then got SIGINT and ``STOP_GRACE`` seconds). Each pod's
        outputs are read in one call, with the files ``also`` and the logs ``logs`` (see
        :meth:`files`)."""
        interrupted = False
        for pod in self.pods:
            try:
                self.exec(
                    pod,
                    ["sh", "-c", _WAIT, "sh", workdir, tag],
                    timeout=timeout or 86400.0,
                    on_tick=on_tick,
                    check=False,
                )
            except ProcessInterrupted:
                interrupted = True
                break
        if interrupted:
            for pod in self.pods:
                self.signal(pod, workdir, tag)
            for pod in self.pods:
                self.exec(
                    pod, ["sh", "-c", _WAIT, "sh", workdir, tag], timeout=STOP_GRACE, check=False
                )
        return [self._finished(pod, workdir, tag, also, logs) for pod in self.pods], interrupted

    def _finished(
        self, pod: Pod, workdir: str, tag: str, also: Sequence[str], logs: str
    ) -> Finished:
        own = [f"{tag}.rc", f"{tag}.out", f"{tag}.err"]
        files = self.files(pod, workdir, [*own, *also], logs)
        rc, out, err = (files.pop(name, "") for name in own)
        try:
            code = int(rc.strip()) if rc.strip() else None
        except ValueError:
            code = None
        return Finished(pod, code, out, err, files)


def split_files(out: str, mark: str) -> dict[str, str]:
    """What :data:`_FILES` printed (a line ``MARK name``, the file, one newline, per file)
    -> name -> the file's text."""
    found: dict[str, str] = {}
    marks = list(re.finditer(rf"^{re.escape(mark)} (.*)\n", out, re.M))
    ends = [m.start() for m in marks[1:]] + [len(out)] if marks else []
    for m, end in zip(marks, ends, strict=True):
        body = out[m.end() : end]
        found[m.group(1)] = body[:-1] if body.endswith("\n") else body
    return found


class FioVersion:
    """fio's version in a run's pods, read by one ``kubectl exec`` into the first: begun at
    once where many pods start (that call's time sets their start gate's lead: :meth:`seconds`,
    while the others are still starting), else the first time it is asked for (one pod: once
    its workloads ended, as nothing before them needs it, and a second exec beside the first
    workload's launch only delays it)."""

    ARGV = ("fio", "--version")
    TIMEOUT = 15.0
    """Seconds the read may take: it may run as a stopped run cleans up, which it must not
    hold back for long."""

    def __init__(self, read: Callable[[], ProcessResult], pool: ThreadPoolExecutor | None = None):
        """``read``: the exec of :data:`ARGV` into the first pod; ``pool``: where to begin it
        at once (None: when first asked for)."""
        self._read: Future[ProcessResult] | Callable[[], ProcessResult] = (
            pool.submit(read) if pool is not None else read
        )

    @classmethod
    def in_pod(
        cls, kubectl: Kubectl, namespace: str, pod: str, pool: ThreadPoolExecutor | None = None
    ) -> FioVersion:
        """The read of ``pod``'s fio (see the class)."""
        read = functools.partial(kubectl.exec, namespace, pod, list(cls.ARGV), timeout=cls.TIMEOUT)
        return cls(read, pool)

    def seconds(self) -> float:
        """Seconds the read took (waited for)."""
        return self._result().seconds

    def _result(self) -> ProcessResult:
        if not isinstance(self._read, Future):
            done: Future[ProcessResult] = Future()
            try:
                done.set_result(self._read())
            except CephbenchError as e:
                done.set_exception(e)
            self._read = done
        return self._read.result()

    @functools.cached_property
    def text(self) -> str | None:
        """``fio-3.33``; None when it could not be read (the workloads' own outputs say why
        fio did not run)."""
        try:
            return first_line(self._result())
        except CephbenchError:
            return None


def first_line(result: ProcessResult) -> str:
    lines = result.stdout.strip().splitlines()
    if not lines:
        raise KubeError(f"no output from {' '.join(result.argv[-3:])}: {result.last_error_line()}")
    return lines[0]
