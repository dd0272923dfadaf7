"""The resource log: everything a run creates is recorded before it is created and marked
removed once undone, so a killed run can be cleaned up (`cephbench cleanup`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cephbench.store import Store


@dataclass(frozen=True)
class Resource:
    """Something a run created (a file, a pool...) and must undo."""

    id: int
    run_id: int | None
    kind: str
    name: str
    detail: dict[str, Any]


class ResourceLog:
    """Record-then-create, undo-then-mark: what targets use to create things safely."""

    def __init__(self, store: Store, run_id: int | None):
        self.store, self.run_id = store, run_id

    def add(self, kind: str, name: str, detail: dict | None = None) -> int:
        return self.store.add_resource(self.run_id, kind, name, detail)

    def removed(self, resource_id: int) -> None:
        self.store.resource_removed(resource_id)

    @contextmanager
    def elsewhere(self) -> Iterator[ResourceLog]:
        """The same log for another thread: the store opened again, a connection of that
        thread's own (SQLite's are each one thread's), closed at the end of the block."""
        from cephbench.store import Store

        store = Store(self.store.path)
        try:
            yield ResourceLog(store, self.run_id)
        finally:
            store.close()
