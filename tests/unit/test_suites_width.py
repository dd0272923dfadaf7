"""``cephbench suites`` at any width keeps every workload name and every option whole (issue
34, item 7): a table where one fits, a list in a narrow terminal (80 columns, a pipe); the
metadata suite's workloads say what they do to files (create, stat, delete), not fio's ``read``."""

from __future__ import annotations

import pytest

from cephbench import tools
from cephbench.tools.fio.plan import METADATA_ENGINES
from cephbench.tools.fio.suites import builtin_names, load_suite


def _at_width(invoke, monkeypatch, columns: int) -> str:
    monkeypatch.setenv("COLUMNS", str(columns))
    from cephbench.cli.common import console

    monkeypatch.setattr(console, "_console", None)  # a console of this width
    return invoke("suites").stdout


def _expected() -> tuple[list[str], list[str]]:
    """Every built-in suite's workload names and the tokens of its "Other" column."""
    names, tokens = [], []
    for suite in map(load_suite, builtin_names()):
        for w in suite.workloads:
            names.append(w.name)
            tokens += [f"{k}={v}" for k, v in w.options.items()]
    for _tool, fixed in tools.fixed_suites().values():
        names += fixed.workloads
        tokens.append(fixed.default_target)
    return names, tokens


def _words(text: str) -> set[str]:
    return {word.strip(",│") for line in text.splitlines() for word in line.split()}


@pytest.mark.parametrize("columns", [80, 100, 250])
def test_no_name_or_option_is_split_at_any_width(invoke, monkeypatch, columns):
    out = _at_width(invoke, monkeypatch, columns)
    assert max(map(len, out.splitlines())) <= columns
    words = _words(out)
    names, tokens = _expected()
    assert len(names) >= 30 and len(tokens) >= 20
    missing = [t for t in (*names, *tokens) if t not in words]
    assert not missing, f"split at {columns} columns: {missing}"


def test_80_columns_is_a_list_and_250_a_table(invoke, monkeypatch):
    narrow = _at_width(invoke, monkeypatch, 80)
    assert "┃" not in narrow and "│" not in narrow
    assert "\n    create_d1_f4000  " in narrow
    wide = _at_width(invoke, monkeypatch, 250)
    assert "┃ Workload" in wide and "│ create_d1_f4000 " in wide


@pytest.mark.parametrize("columns", [80, 250])
def test_metadata_workloads_say_what_they_do_to_files(invoke, monkeypatch, columns):
    out = _at_width(invoke, monkeypatch, columns)
    lines = {w.name: "" for w in load_suite("metadata").workloads}
    for line in out.splitlines():
        for name in lines:
            if f" {name} " in line:
                lines[name] = line
    assert set(METADATA_ENGINES) == {"filecreate", "filestat", "filedelete"}
    for name, line in lines.items():
        operation = name.split("_")[0]  # create_d1_f4000, stat_..., delete_...
        assert f"{operation} files" in line, line
        assert " read" not in line, line
