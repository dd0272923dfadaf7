"""A suite's name (or a job file's path) to the plan of the tool that runs it: a fixed suite
of rados bench, osd bench or iperf3, else fio's (a YAML suite or the user's job file)."""

from __future__ import annotations

from cephbench import tools
from cephbench.errors import UsageError
from cephbench.tools.fio.plan import Plan, make_fio_plan
from cephbench.tools.fio.steady_criterion import SteadyState
from cephbench.tools.fio.sweep import Axes
from cephbench.tools.plan import Overrides, ToolPlan, make_tool_plan


def make_plan(
    suite_or_file: str,
    overrides: Overrides,
    tool_options: dict | None = None,
    axes: Axes | None = None,
    steady: SteadyState | None = None,
) -> Plan | ToolPlan:
    axes = axes or Axes()
    fixed = tools.fixed_suites().get(suite_or_file)
    if fixed is None:
        return make_fio_plan(suite_or_file, overrides, axes, steady)
    tool, tool_suite = fixed
    if axes.swept or steady or overrides.rw or overrides.rwmixread or overrides.ramp_time:
        raise UsageError(
            f"the {tool_suite.name} suite runs {tool.name}: no sweeps, --rw, "
            "--rwmixread, --ramp-time or --steady-state"
        )
    return make_tool_plan(tool, tool_suite, overrides, tool_options or {})
