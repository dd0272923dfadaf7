"""The network suite's own options (``--all-pairs-at-once``, ``--streams-procs``)."""

from __future__ import annotations

from dataclasses import dataclass

from cephbench.errors import UsageError


@dataclass(frozen=True)
class NetworkOptions:
    """The network suite (between the ``--hosts``): every pair at once or one at a time, and
    how many iperf3 processes per pair."""

    all_pairs_at_once: bool = False
    procs: int = 1

    def __post_init__(self) -> None:
        if not 1 <= self.procs <= 64:
            raise UsageError(f"--streams-procs {self.procs}: from 1 to 64 processes per pair")

    @property
    def given(self) -> bool:
        return self != NetworkOptions()
