"""The steady-state criterion of a run: fio's own ``steadystate``, as the command line gives
it (``--steady-state iops:0.3% --steady-window 30s``), checked and turned into fio options."""

from __future__ import annotations

import re
from dataclasses import dataclass

from cephbench.errors import UsageError
from cephbench.system.units import parse_seconds

STEADY = re.compile(r"^(iops|bw)(_slope)?:(\d+(?:\.\d+)?)(%?)$")


@dataclass(frozen=True)
class SteadyState:
    """fio's own steady-state detection: a workload ends once its metric, over the last
    ``duration`` seconds, stays within the limit; it runs ``max_runtime`` at most."""

    criterion: str
    """fio's ``steadystate``: ``iops:0.3%``, ``bw_slope:0.1%``, ``iops:50`` ..."""
    duration: float
    """Seconds of the window judged (``steadystate_duration``)."""
    ramp: float = 0.0
    """Seconds before the window starts being judged (``steadystate_ramp_time``)."""
    max_runtime: float | None = None
    """The cap (fio's ``runtime``); None: the suite's runtime."""

    @classmethod
    def parse(
        cls, text: str, duration: str | None, ramp: str | None, max_runtime: str | None
    ) -> SteadyState:
        m = STEADY.match(text.strip())
        if not m:
            raise UsageError(
                f"--steady-state {text}: not a criterion fio knows",
                hint="METRIC:LIMIT with METRIC iops, bw, iops_slope or bw_slope, e.g. iops:0.3%",
            )
        cap = parse_seconds(max_runtime) if max_runtime else None
        window = parse_seconds(duration) if duration else max(2.0, min(60.0, (cap or 60.0) / 4))
        if cap is not None and window > cap:
            raise UsageError(
                f"the steady-state window ({window:g} s) is longer than --max-runtime ({cap:g} s)"
            )
        return cls(text.strip(), window, parse_seconds(ramp) if ramp else 0.0, cap)

    def options(self) -> dict[str, str]:
        opts = {
            "steadystate": self.criterion,
            "steadystate_duration": f"{self.duration:g}s",
            "steadystate_ramp_time": f"{self.ramp:g}s",
            "time_based": "1",
        }
        if self.max_runtime is not None:
            opts["runtime"] = f"{self.max_runtime:g}s"
        return opts
