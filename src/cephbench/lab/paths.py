"""Where a lab keeps its files: everything lives under one directory that ``down`` removes."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

#: Set this to move the default lab (tests use it to share one lab with every module).
DIR_ENV = "CEPHBENCH_LAB_DIR"


def default_dir() -> Path:
    """``$CEPHBENCH_LAB_DIR``, else ``$XDG_STATE_HOME/cephbench/lab`` (~/.local/state/...)."""
    if os.environ.get(DIR_ENV):
        return Path(os.environ[DIR_ENV]).expanduser().absolute()
    state_home = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state_home).expanduser().absolute() / "cephbench" / "lab"


@dataclass(frozen=True)
class Layout:
    """The paths inside one lab directory (pure: nothing is created here)."""

    dir: Path

    @property
    def conf(self) -> Path:
        return self.dir / "ceph.conf"

    @property
    def state(self) -> Path:
        return self.dir / "state.json"

    @property
    def lock(self) -> Path:
        return self.dir / "state.lock"

    @property
    def admin_keyring(self) -> Path:
        return self.dir / "ceph.client.admin.keyring"

    @property
    def mon_keyring(self) -> Path:
        return self.dir / "mon.keyring"

    @property
    def monmap(self) -> Path:
        return self.dir / "monmap"

    @property
    def run(self) -> Path:
        return self.dir / "run"

    @property
    def log(self) -> Path:
        return self.dir / "log"

    @property
    def crash(self) -> Path:
        return self.dir / "crash"

    @property
    def disk(self) -> Path:
        return self.dir / "disk"

    @property
    def bin(self) -> Path:
        """A release lab's client programs for a shell (``lab env`` puts it first on PATH)."""
        return self.dir / "bin"

    def data(self, name: str) -> Path:
        """Data directory of daemon ``name`` ("mon.a", "osd.3"...)."""
        return self.dir / name

    def pid_file(self, name: str) -> Path:
        return self.run / f"{name}.pid"

    def log_file(self, name: str) -> Path:
        return self.log / f"{name}.log"

    def archive(self, tag: str, when: float | None = None) -> Path:
        """Where ``down`` keeps the logs: a sibling directory, one folder per lab."""
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(when))
        return self.dir.with_name(self.dir.name + "-logs") / f"{stamp}-{tag}"
