"""Running a program in the run's pods through ``kubectl exec``, detached, so that every pod
runs at once while cephbench makes one kubectl call at a time.

The program starts in the background of a ``sh`` in the pod (its output to files in a
directory of the pod), cephbench then waits for each pod's ``rc`` file, and reads the files
back. A Ctrl-C while waiting is passed on to the program in every pod as SIGINT (fio then
prints what it measured). The directory is the pod's own (an ``emptyDir`` at
``objects.WORKDIR``), each step's files named by a tag of its own (``TAG.out``, ``TAG.rc``):
the image needs ``sh`` and ``sleep`` only (no mkdir, no rm); ``cat`` is used when it has one.
Nothing here knows fio (tools/fio/pods.py does)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from cephbench.kube.kubectl import Kubectl, KubeError
from cephbench.system.process import ProcessInterrupted, ProcessResult

_WRITE = (  # truncate the files named after the first (shell redirections: no rm needed)
    'f=$1; shift; for p; do : > "$p"; done; if command -v cat >/dev/null 2>&1; then cat > "$f"; '
    'else while IFS= read -r l || [ -n "$l" ]; do printf "%s\\n" "$l"; done > "$f"; fi'
)
_READ = (
    'if command -v cat >/dev/null 2>&1; then cat "$@" 2>/dev/null; else for f; do '
    '[ -e "$f" ] && while IFS= read -r l || [ -n "$l" ]; do printf "%s\\n" "$l"; done < "$f"; '
    "done; fi; true"
)
_TAKE = (  # each file named ``PREFIX*_*.log`` in DIR after a marker line, then removed
    'cd "$1" || exit 0; for f in "$2"*_*.log; do [ -f "$f" ] || continue; '
    'echo "#cb-file $f"; if command -v cat >/dev/null 2>&1; then cat "$f"; '
    'else while IFS= read -r l || [ -n "$l" ]; do printf "%s\\n" "$l"; done < "$f"; fi; echo; '
    'if command -v rm >/dev/null 2>&1; then rm -f "$f"; else : > "$f"; fi; done; true'
)
_MARK = "#cb-file "
_START = (  # the program in the background, its files named by the step's tag
    'd=$1; t=$2; shift 2; cd "$d" || exit 1; '
    '( "$@" > "$t.out" 2> "$t.err" & echo $! > "$t.pid"; wait $!; echo $? > "$t.rc" ) '
    "</dev/null >/dev/null 2>&1 &"
)
_WAIT = 'until [ -e "$1/$2.rc" ]; do sleep 0.05; done; read rc < "$1/$2.rc"; echo "$rc"'
_SIGNAL = (
    '[ -e "$2/$3.pid" ] && [ ! -e "$2/$3.rc" ] && read p < "$2/$3.pid" && kill -"$1" "$p"; true'
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


@dataclass(frozen=True)
class PodSet:
    """The run's pods (in one namespace) and how to reach them."""

    kubectl: Kubectl
    namespace: str
    pods: tuple[Pod, ...]

    def exec(self, pod: Pod, argv: Sequence[str], **kwargs) -> ProcessResult:
        return self.kubectl.exec(self.namespace, pod.name, argv, **kwargs)

    def write(self, pod: Pod, path: str, text: str, clear: Sequence[str] = ()) -> None:
        """``text`` into ``path``, and the files ``clear`` emptied (all in ``pod``)."""
        self.exec(pod, ["sh", "-c", _WRITE, "sh", path, *clear], stdin=text)

    def read(self, pod: Pod, *paths: str) -> str:
        return self.exec(pod, ["sh", "-c", _READ, "sh", *paths]).stdout

    def take(self, pod: Pod, workdir: str, prefix: str) -> dict[str, str]:
        """The files ``PREFIX*_*.log`` in ``workdir`` (fio's logs): name -> text, each
        removed from the pod once read (emptied where the image has no ``rm``)."""
        out = self.exec(pod, ["sh", "-c", _TAKE, "sh", workdir, prefix]).stdout
        files: dict[str, list[str]] = {}
        lines: list[str] = []
        for line in out.splitlines():
            if line.startswith(_MARK):
                lines = files.setdefault(line.removeprefix(_MARK), [])
            elif line:  # the empty line after each file (one without a last newline)
                lines.append(line)
        return {name: "".join(f"{ln}\n" for ln in body) for name, body in files.items()}

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
    ) -> tuple[list[Finished], bool]:
        """Wait for the program started in every pod; what each left, and whether a
        Ctrl-C stopped them (each then got SIGINT and ``STOP_GRACE`` seconds)."""
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
        return [self._finished(pod, workdir, tag) for pod in self.pods], interrupted

    def _finished(self, pod: Pod, workdir: str, tag: str) -> Finished:
        rc = self.read(pod, f"{workdir}/{tag}.rc").strip()
        try:
            code = int(rc) if rc else None
        except ValueError:
            code = None
        out, err = self.read(pod, f"{workdir}/{tag}.out"), self.read(pod, f"{workdir}/{tag}.err")
        return Finished(pod, code, out, err)


def first_line(result: ProcessResult) -> str:
    lines = result.stdout.strip().splitlines()
    if not lines:
        raise KubeError(f"no output from {' '.join(result.argv[-3:])}: {result.last_error_line()}")
    return lines[0]
