"""What the lab's interrupt tests share: a real ``cephbench run`` subprocess, the conditions
that show it reached a stage (its child processes, its resource log, fio's chain events),
and a check that nothing it made is left on the cluster, the machine or in the store."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from cephbench.lab import ceph_json
from cephbench.store import Store
from cephbench.system.pids import running

CEPHBENCH = str(Path(sys.executable).with_name("cephbench"))
POLL = 0.01


def children(pid: int) -> list[tuple[int, list[str]]]:
    """Direct children of ``pid`` and their argv (from /proc)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_bytes()
            if int(stat[stat.rfind(b")") + 2 :].split()[1]) != pid:
                continue
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().decode(errors="replace").split("\0")
        except (OSError, ValueError):
            continue
        out.append((int(entry), [a for a in argv if a]))
    return out


def query(db: Path, sql: str) -> list[tuple]:
    """Read-only peek at the run's store (opening a Store would race its first migration)."""
    if not db.exists():
        return []
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    try:
        return conn.execute(sql).fetchall()
    except sqlite3.OperationalError:  # tables not created yet
        return []
    finally:
        conn.close()


@dataclass
class Run:
    """A ``cephbench run`` subprocess, and every process it started that was seen."""

    proc: subprocess.Popen
    db: Path
    seen: dict[int, list[str]] = field(default_factory=dict)

    def child(self, *words: str) -> bool:
        """Whether a child runs whose argv contains each of ``words`` (noting every child)."""
        found = False
        for pid, argv in children(self.proc.pid):
            self.seen.setdefault(pid, argv)
            if all(any(w in a for a in argv) for w in words):
                found = True
        return found

    def resource(self, kind: str) -> bool:
        return bool(query(self.db, f"SELECT 1 FROM resources WHERE kind = '{kind}'"))

    def workdir(self) -> Path | None:
        rows = query(self.db, "SELECT name FROM resources WHERE kind = 'dir'")
        return Path(rows[0][0]) if rows else None

    def events(self) -> int:
        """Workloads of the first fio process that finished (the chain's ``events`` file)."""
        work = self.workdir()
        try:
            return len((work / "repeat0-batch0" / "events").read_text().split()) if work else 0
        except OSError:
            return 0

    def wait_for(self, what, timeout: float = 180) -> None:
        deadline = time.monotonic() + timeout
        while not what():
            if self.proc.poll() is not None:
                _out, err = self.proc.communicate()
                raise AssertionError(f"the run ended before the stage: {err}")
            assert time.monotonic() < deadline, "timed out waiting for the stage"
            time.sleep(POLL)


def start(db: Path, lab, *args: str, env: dict | None = None) -> Run:
    full = {**os.environ, "CEPHBENCH_DB": str(db), "CEPHBENCH_LAB_DIR": str(lab.dir), **(env or {})}
    proc = subprocess.Popen(
        [CEPHBENCH, "run", *args],
        env=full,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    return Run(proc, db)


def blocklist(lab) -> set[str]:
    out = subprocess.run(
        ["ceph", "osd", "blocklist", "ls", "-f", "json"],
        env={**os.environ, **lab.env},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    decoder, pos, found = json.JSONDecoder(), 0, set()
    while out[pos:].strip():
        pos += len(out[pos:]) - len(out[pos:].lstrip())
        value, pos = decoder.raw_decode(out, pos)
        found |= {e["addr"] for e in value}
    return found


def images(lab, pool: str) -> list[str]:
    result = subprocess.run(
        ["rbd", "ls", pool, "--format", "json"],
        env={**os.environ, **lab.env},
        capture_output=True,
        text=True,
    )
    return json.loads(result.stdout) if result.returncode == 0 else []


def leftovers(lab, run: Run, blocklist_before: set[str]) -> list[str]:
    """Everything of ``run``'s still there: pools, images, flags, blocklist entries,
    processes, its work directory, open resources in its store."""
    left = []
    with Store(run.db) as s:
        runs = s.runs()
        left += [f"open resource {r.kind} {r.name}" for r in s.open_resources()]
    for r in runs:
        pools = [p for p in ceph_json(lab, "osd", "pool", "ls") if p.startswith(f"cb-{r.id}-")]
        left += [f"pool {p}" for p in pools] + [
            f"image {p}/{i}" for p in pools for i in images(lab, p)
        ]
    flags = ceph_json(lab, "osd", "dump")["flags"].split(",")
    left += [f"flag {f}" for f in flags if f in ("noscrub", "nodeep-scrub")]
    left += [f"blocklist {a}" for a in blocklist(lab) - blocklist_before]
    left += [f"process {pid} {argv[:3]}" for pid, argv in run.seen.items() if running(pid)]
    for row in query(run.db, "SELECT name FROM resources WHERE kind = 'dir'"):
        if Path(row[0]).exists():
            left.append(f"directory {row[0]}")
        left += [f"process {p} in {row[0]}" for p in _in_dir(row[0])]
    return left


def _in_dir(path: str) -> list[int]:
    """Processes whose working directory is inside ``path`` (fio, its hooks)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cwd = os.readlink(f"/proc/{entry}/cwd")
            except OSError:
                continue
            if cwd.startswith(path):
                found.append(int(entry))
    return found
