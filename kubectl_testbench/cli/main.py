"""Entry point of ``kubectl testbench``: a click group whose subcommands are imported on first use.

Start-up matters (pre-commit runs this on every commit), so the group knows its commands by name and
imports a command's module only when it is invoked or its help is shown.
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from click.shell_completion import CompletionItem

from kubectl_testbench import __version__

PROG = "kubectl testbench"
COMPLETE_VAR = "_KUBECTL_TESTBENCH_COMPLETE"
"""click's own completion: ``eval "$(_KUBECTL_TESTBENCH_COMPLETE=bash_source kubectl-testbench)"``."""

# name -> (module, attribute, one-line help). Keep sorted by name.
COMMANDS: dict[str, tuple[str, str, str]] = {
    "apply": ("kubectl_testbench.cli.apply", "apply", "Server-side apply Experiments as Testkube objects."),
    "argocd": ("kubectl_testbench.cli.argocd", "argocd", "Argo CD config-management plugin: generate, discover."),
    "compare": ("kubectl_testbench.cli.results", "compare", "Compare two evaluation runs of the same dataset."),
    "completion": ("kubectl_testbench.cli.completion", "completion", "Print the shell completion script: bash, "
                   "zsh or fish."),
    "crd": ("kubectl_testbench.cli.crd", "crd", "Print the Experiment CRD generated from the models."),
    "dataset": ("kubectl_testbench.cli.dataset", "dataset", "Dataset files for S3: export, validate, push."),
    "diff": ("kubectl_testbench.cli.diff", "diff", "Show what apply would change in the cluster."),
    "explain": ("kubectl_testbench.cli.explain", "explain", "Describe an Experiment field, like kubectl explain."),
    "fix": ("kubectl_testbench.cli.fix", "fix", "Apply the safe fixes validate finds; --migrate upgrades old shapes."),
    "import": ("kubectl_testbench.cli.import_", "import_cmd", "Convert other agent-eval datasets into an Experiment."),
    "init": ("kubectl_testbench.cli.init", "init", "Write a valid starter Experiment."),
    "install": ("kubectl_testbench.cli.install", "install", "Print the install manifest: CRD, templates, dashboard."),
    "krm": ("kubectl_testbench.cli.krm", "krm", "KRM function for kustomize and kpt: render a ResourceList."),
    "lsp": ("kubectl_testbench.cli.lsp", "lsp", "Language server: validate, explain and fix as you type."),
    "prune": ("kubectl_testbench.cli.prune", "prune", "Delete objects we created for Experiments that are gone."),
    "render": ("kubectl_testbench.cli.render", "render", "Compile Experiments into Testkube manifests."),
    "results": ("kubectl_testbench.cli.results", "results", "Summarise, gate and export evaluation results."),
    "run": ("kubectl_testbench.cli.run", "run", "Start an Experiment's evaluation; --wait follows it."),
    "schema": ("kubectl_testbench.cli.crd", "schema", "Print the Experiment JSON Schema for editors."),
    "status": ("kubectl_testbench.cli.status", "status", "Experiments in the cluster with their last execution."),
    "validate": ("kubectl_testbench.cli.validate", "validate", "Check Experiments as the API server would, and more."),
    "version": ("kubectl_testbench.cli.main", "version", "Print the version."),
}


class LazyGroup(click.Group):
    """A group that imports each subcommand's module only when needed."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        module = importlib.import_module(entry[0])
        command: click.Command = getattr(module, entry[1])
        return command

    def resolve_command(self, ctx: click.Context, args: list[str]) -> tuple[str | None, click.Command | None,
                                                                              list[str]]:
        """As click's, but an unknown name gets the closest known one suggested (``valdate`` → ``validate``)."""
        name = args[0] if args else ""
        if name and not name.startswith("-") and name not in COMMANDS:
            import difflib

            from kubectl_testbench.safe_text import escape_controls

            close = difflib.get_close_matches(name, list(COMMANDS), n=1, cutoff=0.6)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            ctx.fail(f"No such command {escape_controls(name)!r}.{hint}")
        return super().resolve_command(ctx, args)

    def shell_complete(self, ctx: click.Context, incomplete: str) -> list[CompletionItem]:
        """Subcommand names with their table help, without importing every command module."""
        from click.shell_completion import CompletionItem

        items = [CompletionItem(name, help=COMMANDS[name][2]) for name in self.list_commands(ctx)
                 if name.startswith(incomplete)]
        return items + click.Command.shell_complete(self, ctx, incomplete)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][2]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 110})
@click.version_option(__version__, "--version", prog_name="kubectl-testbench", message="%(prog)s %(version)s")
def cli() -> None:
    """Validate, render and apply Testbench Experiments (testbench.agentic-layer.ai/v1alpha1).

    Experiments are compiled into Testkube TestWorkflows, dataset ConfigMaps and TestTriggers outside
    the cluster, for GitOps repositories, CI and pre-commit hooks.
    """


@click.command()
def version() -> None:
    """Print the version."""
    click.echo(f"kubectl-testbench {__version__}")


def main(argv: list[str] | None = None) -> None:
    """Run the CLI; turn every unexpected failure into a one-line message and exit code 3."""
    try:
        _main(argv)
    finally:
        # Exit fast: the interpreter's last garbage collections walk every object we imported or built,
        # a tenth of a one-file validation (benchmarks/results.md). Frozen objects are skipped by them and
        # still freed by reference counting; atexit handlers still run.
        gc.freeze()


def _main(argv: list[str] | None) -> None:
    if os.environ.get(COMPLETE_VAR):
        # the completion script registers the executable's own name, not the two-word kubectl form
        cli.main(args=argv, prog_name="kubectl-testbench", complete_var=COMPLETE_VAR)
    try:
        rv = cli.main(args=argv, prog_name=PROG, standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(130)
    except click.ClickException as err:
        _show(err)
        sys.exit(err.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("Interrupted.", err=True)
        sys.exit(130)
    except BrokenPipeError:
        _quiet_broken_pipe()
        sys.exit(0)
    except Exception as err:  # the last line of defence against tracebacks
        if os.environ.get("KUBECTL_TESTBENCH_DEBUG"):
            raise
        from kubectl_testbench.safe_text import escape_controls

        click.echo(f"error: internal error: {type(err).__name__}: {escape_controls(str(err))} "
                   "(set KUBECTL_TESTBENCH_DEBUG=1 for a traceback)", err=True)
        sys.exit(3)
    # without standalone mode, click returns the code of ctx.exit(code) instead of exiting
    sys.exit(rv if isinstance(rv, int) else 0)


def _show(err: click.ClickException) -> None:
    """click's usage error, each line made safe for a CI log: its messages quote arguments (``Path '…' does not
    exist``), which come from a pull request when CI passes changed files."""
    import io

    from kubectl_testbench.safe_text import safe_log_line

    text = io.StringIO()
    err.show(text)
    click.echo("".join(safe_log_line(line) + "\n" for line in text.getvalue().splitlines()), err=True, nl=False)


def _quiet_broken_pipe() -> None:
    """After a closed pipe (``| head``), stop Python from complaining while flushing stdout at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass


