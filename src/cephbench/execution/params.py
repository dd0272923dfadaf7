"""A run's stored params: what it was asked to do, in a fixed order (compared byte for byte
between runs, and what ``--resume`` starts again from)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cephbench.targets import Target
    from cephbench.tools.base import RunPlan, Tool
    from cephbench.tools.options import RunOptions

PARAMS_ORDER = (
    "tool",
    "repeat",
    "overrides",
    "sweep",
    "steady_state",
    "target_ci",
    "max_time",
    "request",
    "health",
    "connection",
    "tool_options",
    "drop_caches",
    "hosts",
)
"""The order of a run's stored params (its JSON is compared byte for byte, e.g. between runs)."""


def run_params(
    plan: RunPlan,
    tool: Tool,
    target: Target,
    repeats: int,
    options: RunOptions,
    request: dict[str, Any] | None,
) -> dict[str, Any]:
    """What the run was asked to do, stored with it (and what ``--resume`` starts again from)."""
    params: dict[str, Any] = {"tool": tool.name, "repeat": repeats, **plan.params()}
    if options.target_ci is not None and tool.resumable:
        params.update(target_ci=options.target_ci, max_time=options.max_time)
    if request is not None:
        params["request"] = request
    if target.cluster is not None:
        params.update(health=vars(options.health), connection=target.cluster.to_json())
    if options.drop_caches:
        params["drop_caches"] = True
    if options.hosts:
        params["hosts"] = options.hosts
    return {k: params[k] for k in sorted(params, key=PARAMS_ORDER.index)}
