"""``kubectl testbench argocd generate|discover``: the commands of the Argo CD config-management plugin."""

from __future__ import annotations

import os
import signal
import sys
from types import FrameType

import click

from kubectl_testbench.cli.common import EXIT_FINDINGS, EXIT_INTERNAL, EXIT_USAGE, fail

DEADLINE_MARGIN = 5.0
"""Seconds we keep in hand before Argo CD's own timeout, to fail with a message instead of being killed."""


@click.group()
def argocd() -> None:
    """Argo CD config-management plugin commands (see integrations/argocd/plugin.yaml).

    Both run in the Application's source directory inside the repo-server sidecar. generate prints
    manifests only on stdout and everything else on stderr; any problem means a non-zero exit, so
    Argo CD never syncs (or prunes against) a partial render.
    """


@argocd.command()
def generate() -> None:
    """Render the Experiments of the Application's directory to stdout.

    Reads ARGOCD_APP_NAMESPACE (namespace of Experiments without one), ARGOCD_APP_PARAMETERS or
    PARAM_* (the plugin parameters), ARGOCD_ENV_* (plugin env; parameters win) and ARGOCD_EXEC_TIMEOUT.
    Exit codes: 0 rendered, 1 invalid Experiments or none found, 2 bad parameters or unreadable
    input, 3 internal error or out of time.
    """
    from kubectl_testbench.integrations.argocd import ParameterError, exec_timeout, settings_from_env
    from kubectl_testbench.render.pipeline import Request, render_all, stream
    from kubectl_testbench.validate.report import text_line

    try:
        settings = settings_from_env(os.environ, ".")
    except ParameterError as err:
        for problem in err.problems:
            click.echo(f"error: {problem}", err=True)
        sys.exit(EXIT_USAGE)
    timeout = exec_timeout(os.environ)
    _arm_deadline(max(1.0, timeout - DEADLINE_MARGIN))
    request = Request(flags=settings.flags, defaults_file=settings.defaults_file, fmt="yaml",
                      strict=settings.strict)
    try:
        outcome = render_all(settings.paths, request)
    except _DeadlineExceeded:
        fail(f"rendering did not finish within {timeout - DEADLINE_MARGIN:g} s (ARGOCD_EXEC_TIMEOUT is "
             f"{timeout:g} s): render fewer paths per Application or raise ARGOCD_EXEC_TIMEOUT on the sidecar",
             EXIT_INTERNAL)
    finally:
        _disarm_deadline()
    for d in outcome.warnings:
        click.echo(text_line(d), err=True, nl=False)
    counts = outcome.counts
    if not outcome.ok:
        for d in outcome.problems:
            click.echo(text_line(d), err=True, nl=False)
        fail(f"nothing rendered: {counts.summary()}", EXIT_USAGE if counts.unreadable else EXIT_FINDINGS)
    if counts.experiments == 0 and not settings.allow_empty:
        fail(f"no Experiments found in {', '.join(settings.paths)}; refusing to render nothing, which Argo CD "
             "would sync as 'delete everything' (set the parameter allow-empty=true if that is intended)",
             EXIT_FINDINGS)
    click.echo(stream(outcome.objects, "yaml"), nl=False)
    origin = ", ".join(f"{k} from {v}" for k, v in settings.sources.items())
    click.echo(f"kubectl-testbench: {settings.app_name or 'application'}: {len(outcome.objects)} objects from "
               f"{counts.experiments} Experiments in {', '.join(settings.paths)} (namespace "
               f"{settings.flags.namespace}{'; ' + origin if origin else ''})", err=True)


@argocd.command()
@click.argument("directory", default=".", type=click.Path(file_okay=False))
def discover(directory: str) -> None:
    """Print the directories under DIRECTORY that hold Experiments, one per line.

    Argo CD's discover.find.command: non-empty output claims the Application for this plugin. Only
    files that mention testbench.agentic-layer.ai are parsed, so it stays fast on large repositories.
    Always exits 0; unreadable files are skipped.
    """
    from kubectl_testbench.integrations.discover import experiment_dirs

    for found in experiment_dirs(directory):
        click.echo(found)


class _DeadlineExceeded(Exception):
    """Raised by the SIGALRM handler when the render runs out of time."""


def _expired(signum: int, frame: FrameType | None) -> None:
    raise _DeadlineExceeded()


def _arm_deadline(seconds: float) -> None:
    if hasattr(signal, "setitimer"):
        signal.signal(signal.SIGALRM, _expired)
        signal.setitimer(signal.ITIMER_REAL, seconds)


def _disarm_deadline() -> None:
    if hasattr(signal, "setitimer"):
        signal.setitimer(signal.ITIMER_REAL, 0)
