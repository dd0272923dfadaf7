"""``cephbench completion SHELL``: the shell completion script, to source from a shell's
start-up file.

Click generates the script; it calls ``cephbench`` back with ``_CEPHBENCH_COMPLETE`` set on
every TAB, and click answers with commands, options and what the store holds (run ids,
labels, suites, targets: ``cephbench.cli.complete``).
"""

from __future__ import annotations

import click

from cephbench.cli.common import debug_option

SHELLS = ("bash", "zsh", "fish")
COMPLETE_VAR = "_CEPHBENCH_COMPLETE"
"""The variable click's generated script sets (``_<PROG>_COMPLETE``), as ``cli.main`` reads it."""


@click.command()
@click.argument("shell", type=click.Choice(SHELLS))
@debug_option
def completion(shell: str) -> None:
    """Print the shell completion script for bash, zsh or fish.

    Commands, options, run ids, labels and suite names complete on TAB.

    \b
    Install (once; new shells pick it up):
      bash:  cephbench completion bash > ~/.local/share/bash-completion/completions/cephbench
      zsh:   cephbench completion zsh > ~/.zfunc/_cephbench   (fpath+=(~/.zfunc) in ~/.zshrc)
      fish:  cephbench completion fish > ~/.config/fish/completions/cephbench.fish
    Or for this shell only:  eval "$(cephbench completion bash)"
    """
    from click.shell_completion import get_completion_class

    from cephbench.cli import cli

    cls = get_completion_class(shell)
    assert cls is not None, f"click supports {shell} completion"
    complete = cls(cli, {}, "cephbench", COMPLETE_VAR)
    # the template filled in, as click's source() does, without the check bash's source()
    # adds (it would start a bash to read its version; the script needs bash 4.4 or later)
    script = complete.source_template % complete.source_vars()
    click.echo(script.rstrip("\n"))
