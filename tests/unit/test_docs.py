"""The README and docs/ hold to the code: every command, option, JSON kind, path and link
they name exists (after sqlite-utils' test_docs.py).

Pure Python: the command tree is read from click (commands load lazily, by name), the JSON
kinds from the contracts, paths from the checkout. Nothing is run.

What is checked, in code blocks and inline code:

- ``cephbench CMD [SUB...] [--option...]`` (also ``.venv/bin/cephbench ...``, and inline code
  that starts with a command's name, e.g. ``lab up --ssh``): each command and subcommand
  exists, each option belongs to the command it follows; an option alone (``--no-logs``)
  belongs to some command;
- paths under ``src/``, ``bench/``, ``tests/``, ``docs/`` and the top-level files match at least
  one file or directory (a glob, or ``<placeholder>``, matches anything there).

And everywhere: every ``cephbench.<kind>/<N>`` is a contract, every relative link resolves,
and the README links every page in docs/.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import click
import pytest

from cephbench import contracts
from cephbench.cli import cli

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.glob("*.md"))]

TOP_FILES = ("Makefile", "pyproject.toml", "README.md")
PATH = re.compile(
    r"(?<![\w./~$:-])((?:src|bench|tests|docs)/[\w./*<>{}-]*|"
    + "|".join(re.escape(f) for f in TOP_FILES)
    + r")(?![\w/-])"
)
KIND = re.compile(r"\bcephbench\.([a-z][a-z0-9-]*/\d+)\b")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*(```|~~~)")
INLINE = re.compile(r"(`+)(.+?)\1", re.S)
SEPARATORS = set("|;&<>()")


@dataclass(frozen=True)
class Code:
    """A piece of code in a page: a code block's line (continuations joined) or inline code."""

    line: int
    text: str
    inline: bool


def split_page(text: str) -> tuple[list[Code], str]:
    """The page's code, and its prose (code blocks blanked, so offsets keep their lines)."""
    codes: list[Code] = []
    prose: list[str] = []
    in_block = False
    pending: tuple[int, str] | None = None
    for n, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            in_block = not in_block
            prose.append("")
            continue
        if not in_block:
            prose.append(line)
            continue
        prose.append("")
        start, joined = pending if pending else (n, "")
        joined += line.lstrip() if pending else line
        if line.rstrip().endswith("\\"):
            pending = (start, joined.rstrip()[:-1].rstrip() + " ")
            continue
        pending = None
        codes.append(Code(start, joined, inline=False))
    prose_text = "\n".join(prose)
    for m in INLINE.finditer(prose_text):
        at = prose_text.count("\n", 0, m.start()) + 1
        codes.append(Code(at, m.group(2).replace("\n", " ").strip(), inline=True))
    return codes, prose_text


# -- commands and options ----------------------------------------------------------------


@cache
def command_at(path: tuple[str, ...]) -> click.Command | None:
    """The command at ``path`` under ``cephbench`` (lazily loaded), or None."""
    command: click.Command = cli
    ctx = click.Context(cli, info_name="cephbench")
    for name in path:
        if not isinstance(command, click.Group):
            return None
        sub = command.get_command(ctx, name)
        if sub is None:
            return None
        ctx = click.Context(sub, parent=ctx, info_name=name)
        command = sub
    return command


def options_of(command: click.Command) -> dict[str, click.Option]:
    ctx = click.Context(command)
    params = [*command.get_params(ctx)]
    return {
        name: p
        for p in params
        if isinstance(p, click.Option)
        for name in (*p.opts, *p.secondary_opts)
    }


@cache
def all_options() -> frozenset[str]:
    """Every option of every command, for an option mentioned on its own."""
    found: set[str] = set()

    def walk(path: tuple[str, ...]) -> None:
        command = command_at(path)
        assert command is not None
        found.update(options_of(command))
        if isinstance(command, click.Group):
            ctx = click.Context(command)
            for name in command.list_commands(ctx):
                walk((*path, name))

    walk(())
    return frozenset(found)


def _words(text: str) -> list[str]:
    """Shell words and separators; ``$(...)`` inside a word is spliced in as words of its own."""
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        words = list(lexer)
    except ValueError:  # an unclosed quote: a fragment of a command in prose
        words = text.split()
    out: list[str] = []
    for w in words:
        if "$(" in w:
            out.append(";")
            out += _words(w[w.index("$(") + 2 :].rsplit(")", 1)[0])
            out.append(";")
        else:
            out.append(w)
    return out


def _is_separator(word: str) -> bool:
    return bool(word) and set(word) <= SEPARATORS


def _is_cephbench(word: str) -> bool:
    return word == "cephbench" or word.endswith("bin/cephbench")


def command_problems(text: str, *, inline: bool = False) -> list[str]:
    """What is wrong with the cephbench command lines in ``text`` (one line of code).

    ``inline``: also read code that starts with a command's name (``lab up --ssh``) as a
    cephbench command, and an option alone (``--no-logs``) as some command's.
    """
    words = _words(text)
    problems: list[str] = []
    starts = [i + 1 for i, w in enumerate(words) if _is_cephbench(w)]
    if inline and words:
        top = click.Context(cli)
        if words[0] in cli.list_commands(top):
            starts.append(0)
        elif re.fullmatch(r"--[a-z][\w-]*", words[0].split("=")[0]):
            option = words[0].split("=")[0]
            if option not in all_options():
                problems.append(f"{option}: no cephbench command has this option")
    for start in starts:
        problems += _check_command(words[start:])
    return problems


def _check_command(words: list[str]) -> list[str]:
    path: tuple[str, ...] = ()
    command = command_at(path)
    assert command is not None
    name = "cephbench"
    for word in words:
        if _is_separator(word):
            break
        if word.startswith("-") and word not in ("-", "--") and not re.fullmatch(r"-\d.*", word):
            option = word.split("=")[0]
            if option not in (*options_of(command), "-h", "--help"):
                return [f"{option}: `{name}` has no such option"]
            continue
        if isinstance(command, click.Group):
            if word in ("...", "…"):
                break
            sub = command_at((*path, word))
            if sub is None:
                return [f"`{name} {word}`: no such command"]
            path, command, name = (*path, word), sub, f"{name} {word}"
    return []


# -- paths, kinds, links -----------------------------------------------------------------


def path_problems(text: str) -> list[str]:
    problems = []
    for m in PATH.finditer(text):
        path = m.group(1).rstrip(".,:;")
        pattern = re.sub(r"<[^>]*>", "*", path).rstrip("/")
        if not any(ROOT.glob(pattern)):
            problems.append(f"{path}: no such path in the repository")
    return problems


def kind_problems(text: str) -> list[str]:
    known = {k.removeprefix(contracts.PREFIX) for k in contracts.KINDS}
    return [
        f"cephbench.{k}: not a JSON kind in the contracts"
        for k in KIND.findall(text)
        if k not in known
    ]


def anchors(page: Path) -> set[str]:
    """The anchors of a Markdown page's headings, as GitHub makes them."""
    _, prose = split_page(page.read_text(encoding="utf-8"))
    return {
        re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
        for m in re.finditer(r"^#{1,6}\s+(.+)$", prose, re.M)
    }


def link_problems(text: str, page: Path) -> list[str]:
    """Relative links whose file, or whose anchor in a Markdown file, does not exist."""
    problems = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        path = (page.parent / file) if file else page
        if not path.exists():
            problems.append(f"link {target}: no such file")
        elif anchor and path.suffix == ".md" and anchor not in anchors(path):
            problems.append(f"link {target}: no such heading in {path.name}")
    return problems


def page_problems(page: Path) -> Iterator[str]:
    text = page.read_text(encoding="utf-8")
    codes, prose = split_page(text)
    where = page.relative_to(ROOT)
    for code in codes:
        for p in command_problems(code.text, inline=code.inline) + path_problems(code.text):
            yield f"{where}:{code.line}: {p}"
    for p in kind_problems(text) + link_problems(prose, page):
        yield f"{where}: {p}"


# -- the docs ----------------------------------------------------------------------------


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_page_names_only_what_exists(page: Path):
    problems = list(page_problems(page))
    assert not problems, "\n".join(problems)


def test_readme_links_every_docs_page():
    assert DOCS.is_dir() and PAGES[1:], "docs/ holds no page"
    linked = {
        (ROOT / t.split("#", 1)[0]).resolve()
        for t in LINK.findall(README.read_text(encoding="utf-8"))
    }
    missing = [f"docs/{p.name}" for p in PAGES[1:] if p.resolve() not in linked]
    assert not missing, f"README.md does not link {', '.join(missing)}"


def test_docs_name_every_json_kind():
    text = (DOCS / "store-and-json.md").read_text(encoding="utf-8")
    missing = [k for k in contracts.KINDS if f"`{k}`" not in text]
    assert not missing, f"docs/store-and-json.md does not list {missing}"


# -- the checker itself fails when it should -----------------------------------------------


def test_checker_finds_a_made_up_command():
    assert command_problems("cephbench frobnicate")
    assert command_problems(".venv/bin/cephbench lab frobnicate --osds 3")
    assert command_problems("cephbench lab fault frobnicate osd.1")
    assert command_problems("lab frobnicate", inline=True)
    assert not command_problems("lab frobnicate")  # code block: only after `cephbench`


def test_checker_finds_a_made_up_option():
    assert command_problems("cephbench run quick --frobnicate 3")
    assert command_problems("cephbench lab up --iops 150")  # slow-disk's, not up's
    assert command_problems("cephbench lab fault slow-disk osd.1 --percent=15")
    assert command_problems("--frobnicate", inline=True)
    assert command_problems('eval "$(cephbench lab env --frobnicate)"; ceph -s')


def test_checker_passes_real_commands():
    for line in (
        "cephbench lab fault list",
        ".venv/bin/cephbench run standard --target file:/tmp --label 'a b' -r 2  # --no-such",
        'eval "$(cephbench lab env)"; ceph -s',
        "cephbench lab stop-osd 2 --kill; cephbench lab restart-osd 2",
        "cephbench diagnose --format json|md",
        "cephbench runs --format csv > runs.csv",
        "cephbench --debug show last",
        "cephbench run quick --id=bench -n bench --user bench",
    ):
        assert not command_problems(line), line
    assert not command_problems("show --format md", inline=True)
    assert not command_problems("--steady-window", inline=True)


def test_checker_finds_unknown_kinds_paths_and_links():
    assert kind_problems("prints cephbench.frobnication/1")
    assert not kind_problems("prints `cephbench.run/1` and cephbench.<kind>/<N>")
    assert path_problems("see src/cephbench/no_such_module.py")
    assert path_problems("bench/no_such_benchmark.py --rounds 3")
    assert not path_problems("tests/conftest.py and tests/data/<tool>/<version>/ and Makefile")
    assert not path_problems("src/cephbench/contracts/*.schema.json")
    assert not path_problems("--target rbd:bench/img")  # a pool named bench: not a path
    assert link_problems("[gone](docs/no-such-page.md)", README)
    assert link_problems("[gone](docs/store-and-json.md#no-such-heading)", README)
    assert not link_problems("[ok](tests/conftest.py#L1) [web](https://example.org)", README)
    assert not link_problems("[ok](docs/store-and-json.md#the-json-contract)", README)
    assert "sweeps-steady-state-adaptive-repeats-time-series" in anchors(DOCS / "run-and-suites.md")


def test_split_page_reads_blocks_and_inline_code():
    page = (
        "a `cephbench runs`\nspan `show\n--raw` x\n```\ncephbench ab quick \\\n  --rounds 8\n```\n"
    )
    codes, prose = split_page(page)
    assert Code(5, "cephbench ab quick --rounds 8", inline=False) in codes
    assert Code(1, "cephbench runs", inline=True) in codes
    assert Code(2, "show --raw", inline=True) in codes
    assert "--rounds" not in prose


def test_readme_draws_the_layers_the_contract_enforces():
    """The README's layer diagram and import-linter's contract (pyproject.toml) name the same
    layers in the same order, siblings alike."""
    import tomllib

    contract = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    [layers] = [c["layers"] for c in contract["contracts"] if c["type"] == "layers"]
    enforced = [layer.replace("cephbench.", "") for layer in layers]
    section = README.read_text().split("## Layers", 1)[1].split("```")[1]
    drawn = [re.split(r"\s{2,}", line.strip())[0] for line in section.strip().splitlines()]
    assert drawn == enforced
