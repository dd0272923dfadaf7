"""``cephbench suites``: the built-in suites and what they run (JSON: ``cephbench.suites/1``)."""

from __future__ import annotations

import click

from cephbench.cli.common import debug_option, emit_table, format_option, print_json
from cephbench.tables.table import Table


@click.command()
@format_option("table", "md", "json")
@debug_option
def suites(fmt: str) -> None:
    """List the built-in suites and their workloads."""
    from cephbench import tools  # the tools, YAML and pydantic: not for --help
    from cephbench.contracts import SUITES, document  # the JSON contract: not for --help
    from cephbench.tools.fio.suites import builtin_names, load_suite

    specs = [load_suite(name) for name in builtin_names()]
    fixed = [(tool.name, s) for tool, s in tools.fixed_suites().values()]
    if fmt == "json":
        print_json(
            document(
                SUITES,
                suites=[
                    *(
                        {
                            "name": s.name,
                            "tool": "fio",
                            "description": s.description,
                            "global": s.global_,
                            "workloads": [w.model_dump(exclude_none=True) for w in s.workloads],
                        }
                        for s in specs
                    ),
                    *(
                        {
                            "name": s.name,
                            "tool": tool,
                            "description": s.description,
                            "default_target": s.default_target,
                            "workloads": list(s.workloads),
                        }
                        for tool, s in fixed
                    ),
                ],
            )
        )
        return
    rows = []
    for s in specs:
        runtime = s.global_.get("runtime")
        for i, w in enumerate(s.workloads):
            mix = f" {w.rwmixread}/{100 - w.rwmixread}" if w.rwmixread is not None else ""
            extra = " ".join(f"{k}={v}" for k, v in w.options.items())
            rows.append(
                (
                    s.name if i == 0 else "",
                    w.name,
                    f"{w.rw}{mix}",
                    w.bs,
                    str(w.iodepth),
                    str(w.numjobs),
                    f"{runtime} s" if i == 0 and runtime else "",
                    extra,
                )
            )
    for tool, fs in fixed:
        runtime = f"{fs.runtime:g} s" if fs.runtime else ""
        rows.append(
            (
                fs.name,
                ", ".join(fs.workloads) or "(per OSD / host pair)",
                tool,
                "",
                "",
                "",
                runtime,
                f"default target {fs.default_target}",
            )
        )
    table = Table(
        (
            "Suite",
            "Workload",
            "Pattern",
            "Block size",
            "iodepth",
            "numjobs",
            "Runtime each",
            "Other",
        ),
        tuple(rows),
        align=("l", "l", "l", "r", "r", "r", "r", "l"),
        notes=(
            *(f"{s.name}: {s.description}" for s in specs),
            *(f"{s.name}: {s.description}" for _, s in fixed),
        ),
    )
    emit_table(table, fmt)
