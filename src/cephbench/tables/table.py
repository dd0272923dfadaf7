"""A plain table (title, headers, rows of text, notes) and its Markdown and rich renderings."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.table import Table as RichTable
    from rich.text import Text

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


def to_rich(table: Table, width: int | None = None) -> RichTable | Text:
    """The rich table; with ``width`` (the console's: 80 when piped) sized to fit it with no
    figure, name or date cut or wrapped: see :func:`column_widths`. Where the columns that
    give way would be too narrow to read (a figure a character a line), the rows as blocks
    instead: :func:`to_blocks`."""
    from rich.table import Table as RichTable  # rich's table machinery: only when printing one
    from rich.text import Text

    widths: list[int | None] = column_widths(table, width) if width else [None] * len(table.headers)
    if width and not readable(table, widths):
        return Text(to_blocks(table, width), no_wrap=True)
    out = RichTable(
        title=table.title,
        title_justify="left",
        caption="\n".join(table.notes) or None,
        caption_justify="left",
    )
    for i, h in enumerate(table.headers):
        out.add_column(
            h,
            justify="right" if table.alignment(i) == "r" else "left",
            width=widths[i],
            overflow="fold",  # a cell too long is wrapped whole, never cut with an ellipsis
        )
    for row in table.rows:
        out.add_row(*row)
    return out


BORDER = 3
"""What rich's box takes per column: a rule and a space of padding either side."""


def column_widths(table: Table, width: int) -> list[int | None]:
    """Widths that fit ``width``: None each (rich's own) when the table fits as it is; else
    every column as wide as its longest cell (and its header's longest word: headers wrap
    between words), the room left given back left to right; and if even that is too wide,
    the widest columns share what the others leave, wrapping their cells."""
    n = len(table.headers)
    natural, least = _natural(table), _least(table)
    budget = width - BORDER * n - 1
    if sum(natural) <= budget:
        return [None] * n
    widths: list[int | None] = list(least)
    give_way = []
    for i in sorted(range(n), key=lambda i: -least[i]):
        if sum(w for w in widths if w is not None) <= budget:
            break
        widths[i] = None
        give_way.append(i)
    spare = budget - sum(w for w in widths if w is not None)
    if give_way:
        for i in give_way:
            widths[i] = max(spare // len(give_way), 1)
        return widths
    for i in range(n):
        extra = min(spare, natural[i] - least[i])
        widths[i] = least[i] + extra
        spare -= extra
    return widths


def _cells(table: Table) -> list[int]:
    """Each column's longest cell line."""
    from rich.cells import cell_len

    return [
        max((cell_len(line) for row in table.rows for line in row[i].splitlines()), default=0)
        for i in range(len(table.headers))
    ]


def _natural(table: Table) -> list[int]:
    from rich.cells import cell_len

    return [max(c, cell_len(h)) for c, h in zip(_cells(table), table.headers, strict=True)]


def _least(table: Table) -> list[int]:
    """Each column's width with no cell line wrapped (its header may wrap between words)."""
    from rich.cells import cell_len

    words = [max(map(cell_len, h.split()), default=0) for h in table.headers]
    return [max(c, w) for c, w in zip(_cells(table), words, strict=True)]


READABLE = 12
"""Columns: a column that gives way narrower than this (and than its longest cell) wraps its
figures and names into pieces no one reads; the table is printed as blocks then."""


def readable(table: Table, widths: list[int | None]) -> bool:
    """Whether ``widths`` (:func:`column_widths`'s) leave every column readable."""
    least = _least(table)
    return all(w is None or w >= min(least[i], READABLE) for i, w in enumerate(widths))


def to_blocks(table: Table, width: int) -> str:
    """The table for a terminal too narrow for its columns: the title, then a block per row
    headed by its first column, each other cell a ``header: value`` line under it (a cell's
    further lines indented beneath; empty cells left out), then the notes; every line within
    ``width``. A row whose first cell is empty continues the block above, as it reads in the
    table (a tune attempt's second workload, say)."""
    import textwrap

    def wrap(text: str, first: str, rest: str) -> list[str]:
        return textwrap.wrap(
            text, width, initial_indent=first, subsequent_indent=rest, break_on_hyphens=False
        ) or [first.rstrip()]

    lines = wrap(table.title, "", "  ") if table.title else []
    for cells in table.rows:
        if cells[0].strip() or not lines:
            lines += wrap(f"{table.headers[0]} {cells[0]}".strip(), "", "  ")
        for header, cell in zip(table.headers[1:], cells[1:], strict=True):
            parts = [p.strip() for p in cell.splitlines() if p.strip()]
            if not parts:
                continue
            lines += wrap(f"{header}: {parts[0]}", "  ", "      ")
            for part in parts[1:]:
                lines += wrap(part, "    ", "      ")
    for note in table.notes:
        lines += wrap(note, "", "  ")
    return "\n".join(lines)


def _md_cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def fmt_number(value: float | None, digits: int = 0) -> str:
    return MISSING if value is None else f"{value:.{digits}f}"


# One number format for every table of figures (``show``, ``compare``, ``ab``, the reports):
# a figure in its unit's decimals, no thousands separator (the write-ups' tables, pasted as
# they are); a percentage signed, two decimals; a CI of one in brackets.
def fmt_figure(value: float | None, unit: str) -> str:
    """A figure already in ``unit``: IO/s whole, ms as :func:`fmt_ms`, others two decimals."""
    if value is None:
        return MISSING
    if unit == "ms":
        return f"{value:.2f}" if abs(value) >= 1 else f"{value:.3f}"
    return f"{value:.0f}" if unit == "IO/s" else f"{value:.2f}"


def fmt_ms(us: float | None) -> str:
    """Microseconds as milliseconds: 2 decimals, 3 below 1 ms so small latencies keep a figure."""
    return MISSING if us is None else fmt_figure(us / 1000.0, "ms")


def fmt_pct(value: float | None, signed: bool = True) -> str:
    """A percentage: two decimals, signed (unless not ``signed``), never '-0.00': ``+2.50%``."""
    if value is None:
        return MISSING
    x = value if abs(value) >= 0.005 else 0.0
    return f"{x:+.2f}%" if signed else f"{x:.2f}%"


def fmt_pct_ci(ci: tuple[float, float] | list[float] | None) -> str:
    """A percentage's confidence interval: ``[-1.25, +3.00]``."""
    if ci is None:
        return MISSING
    return "[" + ", ".join(fmt_pct(x).removesuffix("%") for x in ci) + "]"


def fmt_change(
    pct: float | None, ci: tuple[float, float] | list[float] | None, sep: str = " "
) -> str:
    """A percent difference and its CI, as ``compare`` and ``ab`` print it: ``+2.50% [+1.00,
    +4.00]`` (``sep`` between them: a newline puts the CI under it in a narrow column)."""
    if pct is None:
        return MISSING
    return fmt_pct(pct) if ci is None else f"{fmt_pct(pct)}{sep}{fmt_pct_ci(ci)}"


def minute(started_at: str) -> str:
    """``2024-05-01T10:00:07.5+00:00`` -> ``2024-05-01 10:00`` (UTC): a stored time as tables
    show it, to the minute, so the listing fits 80 columns (the JSON keeps it whole)."""
    try:
        when = datetime.fromisoformat(started_at)
    except ValueError:
        return started_at
    if when.tzinfo is not None:
        when = when.astimezone(UTC)
    return when.strftime("%Y-%m-%d %H:%M")
