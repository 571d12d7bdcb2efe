"""``kubectl testbench completion bash|zsh|fish``: print the shell completion script (kubectl's and helm's habit).

The script is click's own for the ``kubectl-testbench`` executable (the same one the documented
``_KUBECTL_TESTBENCH_COMPLETE=<shell>_source`` variable prints). ``kubectl testbench <TAB>`` itself is completed
by kubectl (>= 1.26) through ``kubectl_complete-testbench``, which the package installs.
"""

from __future__ import annotations

import click

SHELLS = ("bash", "zsh", "fish")


@click.command()
@click.argument("shell", type=click.Choice(SHELLS))
def completion(shell: str) -> None:
    """Print the completion script for SHELL (bash, zsh or fish) to stdout.

    \b
      source <(kubectl testbench completion bash)                      # bash, e.g. in ~/.bashrc
      source <(kubectl testbench completion zsh)                       # zsh, after compinit
      kubectl testbench completion fish > ~/.config/fish/completions/kubectl-testbench.fish

    The script completes the kubectl-testbench executable. kubectl >= 1.26 completes
    "kubectl testbench ..." by itself, through kubectl_complete-testbench (installed with the package).
    """
    from click.shell_completion import get_completion_class

    from kubectl_testbench.cli.main import COMPLETE_VAR, cli

    complete = get_completion_class(shell)
    assert complete is not None  # every name in SHELLS is one of click's
    click.echo(complete(cli, {}, "kubectl-testbench", COMPLETE_VAR).source())
