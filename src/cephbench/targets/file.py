"""``file:PATH``: a data file in a directory (created and removed by the run), or a new file.

An existing file is never used: it may be somebody's data, and fio would overwrite it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cephbench.ceph import cephfs
from cephbench.errors import CephbenchError, TargetError
from cephbench.resources.shield import recorded
from cephbench.resources.undo import remove_file, undoes
from cephbench.store import Resource, ResourceLog
from cephbench.system.environment import storage_of
from cephbench.system.units import format_size
from cephbench.targets import FioTarget, Target, fio_escape

TREE_SUFFIX = ".d"


@undoes("file_tree")
def remove_tree(resource: Resource) -> None:
    """The directory the metadata suite's files went in (only one named as cephbench names it)."""
    path = Path(resource.name)
    if not (path.name.startswith("cephbench-") and path.name.endswith(TREE_SUFFIX)):
        raise CephbenchError(f"{path} is not a directory cephbench made; not removing it")
    shutil.rmtree(path, ignore_errors=True)


class FileTarget(Target):
    kind = "file"
    undo = (remove_file, remove_tree)

    @property
    def path(self) -> Path:
        return Path(self.location).expanduser().absolute()

    @property
    def directory(self) -> Path:
        return self.path if self.path.is_dir() else self.path.parent

    def data_file(self, run_id: int) -> Path:
        return self.path / f"cephbench-{run_id}.dat" if self.path.is_dir() else self.path

    def check(self, size: int) -> None:
        if self.path.exists() and not self.path.is_dir():
            raise TargetError(
                f"{self.path} already exists and cephbench did not create it",
                hint="give a directory (cephbench makes its own file there) or a new file name",
            )
        directory = self.directory
        if not directory.is_dir():
            raise TargetError(
                f"directory {directory} does not exist", hint=f"create it: mkdir -p {directory}"
            )
        if not os.access(directory, os.W_OK | os.X_OK):
            raise TargetError(
                f"cannot write to {directory}: permission denied",
                hint="choose a directory you can write to",
            )
        free = shutil.disk_usage(directory).free
        if free < size:
            raise TargetError(
                f"{directory} has {format_size(free)} free, the run needs {format_size(size)}",
                hint="free some space, or use a smaller --size",
            )

    @contextmanager
    def session(self, run_id: int, resources: ResourceLog) -> Iterator[FioTarget]:
        path = self.data_file(run_id)
        if path.exists():
            raise TargetError(f"{path} already exists and cephbench did not create it")
        if self.wants_tree:
            with self._tree(run_id, resources) as tree:
                yield FioTarget({"filename": fio_escape(str(path))}, tree=str(tree))
            return
        with recorded(resources, "file", str(path)):
            try:
                yield FioTarget({"filename": fio_escape(str(path))})
            finally:
                path.unlink(missing_ok=True)

    @contextmanager
    def _tree(self, run_id: int, resources: ResourceLog) -> Iterator[Path]:
        """``DIR/cephbench-<run>.d``, where the metadata suite creates (and deletes) its files;
        removed with whatever is left in it."""
        tree = self.directory / f"cephbench-{run_id}{TREE_SUFFIX}"
        if tree.exists():
            raise TargetError(f"{tree} already exists and cephbench did not create it")
        with recorded(resources, "file_tree", str(tree)):
            try:
                tree.mkdir()
                yield tree
            finally:
                shutil.rmtree(tree, ignore_errors=True)

    def describe(self) -> dict[str, Any]:
        info = {"spec": self.spec, "path": str(self.path), **storage_of(str(self.directory))}
        on_cephfs = cephfs.mount_fingerprint(self.directory)
        if on_cephfs is not None:
            info["cephfs"] = on_cephfs
        return info
