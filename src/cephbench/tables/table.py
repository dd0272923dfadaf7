"""A plain table (title, headers, rows of text, notes) and its Markdown and rich renderings."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.table import Table as RichTable

MISSING = "n/a"


@dataclass(frozen=True)
class Table:
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    title: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    align: tuple[str, ...] = ()
    """Per column: 'l' or 'r'. Default: first column left, others right."""

    def alignment(self, i: int) -> str:
        if self.align:
            return self.align[i]
        return "l" if i == 0 else "r"


def to_markdown(table: Table) -> str:
    """A GitHub table, ready to paste; '|' in cells is escaped."""
    lines = []
    if table.title:
        lines += [f"**{_md_cell(table.title)}**", ""]
    lines.append("| " + " | ".join(_md_cell(h) for h in table.headers) + " |")
    lines.append(
        "|"
        + "|".join(
            "---:" if table.alignment(i) == "r" else ":---" for i in range(len(table.headers))
        )
        + "|"
    )
    for row in table.rows:
        lines.append("| " + " | ".join(_md_cell(c) for c in row) + " |")
    if table.notes:
        lines.append("")
        lines += [f"{n}  " if i < len(table.notes) - 1 else n for i, n in enumerate(table.notes)]
    return "\n".join(lines) + "\n"


def to_rich(table: Table) -> RichTable:
    from rich.table import Table as RichTable  # rich's table machinery: only when printing one

    out = RichTable(
        title=table.title,
        title_justify="left",
        caption="\n".join(table.notes) or None,
        caption_justify="left",
    )
    for i, h in enumerate(table.headers):
        out.add_column(h, justify="right" if table.alignment(i) == "r" else "left")
    for row in table.rows:
        out.add_row(*row)
    return out


def _md_cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def fmt_number(value: float | None, digits: int = 0) -> str:
    return MISSING if value is None else f"{value:.{digits}f}"


def fmt_ms(us: float | None) -> str:
    """Microseconds as milliseconds: 2 decimals, 3 below 1 ms so small latencies keep a figure."""
    if us is None:
        return MISSING
    ms = us / 1000.0
    return f"{ms:.2f}" if ms >= 1 else f"{ms:.3f}"
