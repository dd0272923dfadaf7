"""rados bench's own options (``--concurrent-ios``, ``--object-size``, ``--run-name``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RadosBenchOptions:
    """rados bench's own options (``object_size`` is a block size when ``--bs`` is not given)."""

    concurrent_ios: int | None = None
    object_size: str | None = None
    run_name: str | None = None

    def tool_options(self) -> dict[str, int | str | None]:
        """The plan's tool options they set (``--object-size`` goes as ``--bs``)."""
        given = {"concurrent": self.concurrent_ios, "run_name": self.run_name}
        return {k: v for k, v in given.items() if v is not None}
