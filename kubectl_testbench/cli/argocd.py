"""``kubectl testbench argocd generate|discover``: the commands of the Argo CD config-management plugin."""

from __future__ import annotations

import os
import signal
import sys
from types import FrameType

import click

from kubectl_testbench.cli.common import (
    EXIT_FINDINGS,
    EXIT_INTERNAL,
    EXIT_USAGE,
    fail,
    limits_from,
    limits_options,
    project_config,
)

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
@limits_options
def generate(max_file_mib: int, max_depth: int, max_nodes: int) -> None:
    """Print the Application's manifests, with its Experiments compiled, to stdout.

    Every manifest under the path is passed through unchanged; each Experiment is replaced by its
    ConfigMap/TestWorkflow/TestTrigger. A path holding a kustomization.yaml is built with kustomize
    first (kustomize build, or kubectl kustomize). Reads ARGOCD_APP_NAMESPACE (namespace of
    Experiments without one), ARGOCD_APP_PARAMETERS or PARAM_* (the plugin parameters), ARGOCD_ENV_*
    (plugin env; parameters win), ARGOCD_EXEC_TIMEOUT and KUBECTL_TESTBENCH_RPC_TIMEOUT.
    Exit codes: 0 rendered, 1 invalid Experiments or nothing to emit, 2 bad parameters, unreadable
    input (or input over a limit: raise it with the options in plugin.yaml's command), a Helm chart or a
    failed kustomize build, 3 internal error or out of time.
    """
    from kubectl_testbench.integrations.argocd import ParameterError, settings_from_env, time_limit
    from kubectl_testbench.integrations.argocd_app import AppError
    from kubectl_testbench.integrations.argocd_app import generate as generate_app
    from kubectl_testbench.integrations.documents import room_for
    from kubectl_testbench.safe_text import escape_controls
    from kubectl_testbench.validate.report import text_line

    try:
        settings = settings_from_env(os.environ, ".")
    except ParameterError as err:
        for problem in err.problems:
            click.echo(f"error: {escape_controls(problem)}", err=True)
        sys.exit(EXIT_USAGE)
    for warning in settings.warnings:
        click.echo(f"warning: {escape_controls(warning)}", err=True)
    config = project_config((".",))  # the Application's path: where .testbench.yaml claimed it
    limit = time_limit(os.environ)
    budget = max(1.0, limit - DEADLINE_MARGIN)
    limits = limits_from(max_file_mib, max_depth, max_nodes)
    _arm_deadline(budget)
    try:
        with room_for(limits):
            app = generate_app(settings.paths, settings.flags, settings.defaults_file, settings.strict or config.strict,
                               timeout=budget, limits=limits, rules=config.selection)
    except RecursionError:  # deeper than room_for's ceiling: only with --max-depth raised past ~2,400
        fail(f"an input is nested too deeply to be processed (--max-depth {max_depth} let it through): lower "
             "--max-depth to have it refused where it nests", EXIT_USAGE)
    except _DeadlineExceeded:
        fail(f"generating did not finish within {budget:g} s (Argo CD allows {limit:g} s: the smaller of "
             "ARGOCD_EXEC_TIMEOUT and the repo-server timeout): split the Application, or raise both "
             "controller.repo.server.timeout.seconds and ARGOCD_EXEC_TIMEOUT (and KUBECTL_TESTBENCH_RPC_TIMEOUT "
             "on the sidecar)", EXIT_INTERNAL)
    except AppError as err:
        fail(str(err), EXIT_USAGE)
    finally:
        _disarm_deadline()
    for d in app.warnings:
        click.echo(text_line(d), err=True, nl=False)
    counts = app.counts
    if not app.ok:
        for d in app.problems:
            click.echo(text_line(d), err=True, nl=False)
        fail(f"nothing generated: {counts.summary()}", EXIT_USAGE if counts.unreadable else EXIT_FINDINGS)
    where = ", ".join(settings.paths)
    if not app.documents and not settings.allow_empty:
        fail(f"no manifests and no Experiments found in {where}; refusing to emit nothing, which Argo CD would "
             "sync as 'delete everything' (set the parameter allow-empty=true if that is intended)", EXIT_FINDINGS)
    if counts.experiments == 0 and app.documents:
        click.echo(f"warning: no Experiments found in {escape_controls(where)}: passing the other manifests "
                   "through unchanged", err=True)
    click.echo(app.stream(), nl=False)
    origin = ", ".join(f"{k} from {v}" for k, v in settings.sources.items())
    built = f"; built with {', '.join(app.built)}" if app.built else ""
    namespaces = app.experiment_namespaces(settings.flags.namespace)
    placed = (f"Experiments in namespace{'s' if len(namespaces) > 1 else ''} {', '.join(namespaces)}" if namespaces
              else f"namespace {settings.flags.namespace}")
    click.echo(escape_controls(
        f"kubectl-testbench: {settings.app_name or 'application'}: {len(app.documents)} objects ({app.compiled} "
        f"compiled from {counts.experiments} Experiments, {app.passed_through} passed through) in {where} "
        f"({placed}{built}{'; ' + origin if origin else ''})"), err=True)


@argocd.command()
@click.argument("directory", default=".", type=click.Path(file_okay=False))
@limits_options
def discover(directory: str, max_file_mib: int, max_depth: int, max_nodes: int) -> None:
    """Print the directories under DIRECTORY that hold Experiments, one per line.

    A helper for setting the plugin up: plugin.yaml claims only Applications whose path has a
    .testbench.yaml file (Argo CD's discover.fileName), and this lists the candidates. Only files
    that mention testbench.agentic-layer.ai are read, so it stays fast on large repositories.
    Always exits 0; a file of ours that cannot be read gets a warning on stderr (its directory is
    listed when a line reads kind: Experiment, so that generate reports the problem).
    """
    from kubectl_testbench.integrations.discover import experiment_dirs
    from kubectl_testbench.integrations.documents import Problem
    from kubectl_testbench.validate.diagnostics import Diagnostic, Severity
    from kubectl_testbench.validate.report import text_line

    def unreadable(path: str, problem: Problem) -> None:
        line, col = problem.mark
        click.echo(text_line(Diagnostic(problem.rule, Severity.WARNING, problem.message, path, line, col)), err=True,
                   nl=False)

    for found in experiment_dirs(directory, limits_from(max_file_mib, max_depth, max_nodes), unreadable):
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
