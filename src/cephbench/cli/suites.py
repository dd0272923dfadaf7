"""``cephbench suites``: the built-in suites and what they run (JSON: ``cephbench.suites/1``):
a table where it fits the terminal, else a list (at 80 columns: no name or option is split)."""

from __future__ import annotations

import click

from cephbench.cli.common import console, debug_option, emit_table, format_option, print_json
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
    from cephbench.tools.fio.plan import METADATA_OPERATIONS

    rows = []
    for s in specs:
        runtime = s.global_.get("runtime")
        for i, w in enumerate(s.workloads):
            mix = f" {w.rwmixread}/{100 - w.rwmixread}" if w.rwmixread is not None else ""
            operation = METADATA_OPERATIONS.get(str(w.options.get("ioengine")))
            extra = " ".join(f"{k}={v}" for k, v in w.options.items())
            rows.append(
                (
                    s.name if i == 0 else "",
                    w.name,
                    f"{operation} files" if operation else f"{w.rw}{mix}",
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
        HEADERS,
        tuple(rows),
        align=("l", "l", "l", "r", "r", "r", "r", "l"),
        notes=(
            *(f"{s.name}: {s.description}" for s in specs),
            *(f"{s.name}: {s.description}" for _, s in fixed),
        ),
    )
    if fmt == "table" and not fits(table, console.width):
        click.echo(as_list(table, console.width))
        return
    emit_table(table, fmt)


HEADERS = (
    "Suite",
    "Workload",
    "Pattern",
    "Block size",
    "iodepth",
    "numjobs",
    "Runtime each",
    "Other",
)


def fits(table: Table, width: int) -> bool:
    """Whether the table fits ``width`` with no cell wrapped (a name cut at the column's edge
    reads as two names: at a narrower width the suites are a list)."""
    from cephbench.tables.table import column_widths

    return all(w is None for w in column_widths(table, width))


def as_list(table: Table, width: int) -> str:
    """The suites table as a list for a narrow terminal: each suite with its description, then
    a line per workload, its name first and whole; lines wrap between words only, so a name
    or an option (``ioengine=filecreate``) is never split."""
    import textwrap

    def wrap(text: str, first: str, rest: str) -> list[str]:
        return textwrap.wrap(
            text,
            width,
            initial_indent=first,
            subsequent_indent=rest,
            break_long_words=False,
            break_on_hyphens=False,
        )

    descriptions = dict(note.split(": ", 1) for note in table.notes)
    names = [row[1] for row in table.rows]
    column = min(max(map(len, names)), 24) + 2
    lines: list[str] = []
    for row in table.rows:
        suite, name, pattern, bs, iodepth, numjobs, runtime, other = row
        if suite:
            each = f" ({runtime} each)" if runtime else ""
            lines += wrap(f"{suite}{each}: {descriptions.get(suite, '')}".rstrip(), "", "  ")
        shape = ", ".join(
            part
            for part in (
                pattern,
                bs,
                f"iodepth {iodepth}" if iodepth else "",
                f"numjobs {numjobs}" if numjobs else "",
                other,
            )
            if part
        )
        lead = f"    {name:<{column}}"
        if len(lead) > width // 2:  # a long name on a line of its own
            lines += wrap(name, "    ", "    ")
            lead = " " * 6
        lines += wrap(shape, lead, " " * len(lead))
    return "\n".join(lines)
