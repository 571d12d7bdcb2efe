"""``kubectl testbench run --local FILE``: the CLI side of :mod:`kubectl_testbench.local` (flags in, lines out).

Imported only when ``run`` is given ``--local``. stdout carries the summary (``-o``, as ``results`` prints it);
progress, the phase environment's build and every problem go to stderr. Exit codes: 0 every evaluation passed,
1 one failed or errored, 2 usage (flags, the Experiment, no Python >= 3.12), 3 the agent or judge cannot be
reached (checked before anything runs), a step failed (its log is shown; nothing is written), or the phase
environment could not be built.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import click

from kubectl_testbench.cli.common import EXIT_FINDINGS, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, fail

DEFAULT_OUTPUT_DIR = "testbench-run"
RESULTS_FORMATS = ("table", "json", "csv", "markdown", "junit")
JUDGE_KEY_ENV = "OPENAI_API_KEY"


@dataclass(frozen=True)
class LocalArgs:
    """The ``run --local`` flags as given."""

    path: str
    agent_url: str | None
    judge_url: str | None
    otlp_endpoint: str | None
    output_dir: str
    phase_python: str | None
    runtime: str
    image: str | None
    env: Mapping[str, str]
    values_from: Sequence[str]
    namespace: str | None
    fmt: str
    timeout: float | None


def _say(line: str) -> None:
    click.echo(line, err=True)


def _load_values(paths: Sequence[str]) -> list[dict[str, Any]]:
    from kubectl_testbench.render.resolve.sources import TemplatesError, load_objects

    try:
        objects = load_objects(paths)
    except TemplatesError as err:
        fail(f"--values-from: {err}")
    kept = [o for o in objects if o.get("apiVersion") == "v1" and o.get("kind") in ("Secret", "ConfigMap")]
    if paths and not kept:
        fail(f"--values-from: no Secret or ConfigMap (v1) in {', '.join(paths)}")
    return kept


def _container_runtime() -> str:
    from kubectl_testbench.local.execute import RUNTIMES

    for name in RUNTIMES:
        found = shutil.which(name)
        if found:
            return found
    fail("--runtime container: neither docker nor podman is on PATH (use --runtime local, the default)")


def run_local(args: LocalArgs) -> NoReturn:
    """Prepare, check, run, summarise; always exits."""
    from kubectl_testbench.local import preflight, session
    from kubectl_testbench.local.plan import Endpoints

    endpoints = Endpoints(agent_url=args.agent_url, judge_url=args.judge_url,
                          judge_key=os.environ.get(JUDGE_KEY_ENV) or "testbench", otlp_endpoint=args.otlp_endpoint)
    output_dir = Path(args.output_dir)
    try:
        session.check_output_dir(output_dir)
        prepared = session.prepare(args.path, endpoints, namespace=args.namespace, given_env=args.env,
                                   values=_load_values(args.values_from))
    except session.PrepareError as err:
        for line in err.details:
            click.echo(line, err=True)
        fail(str(err))
    for warning in prepared.warnings:
        click.echo(warning, err=True)
    _say(f"Experiment {prepared.experiment}: {len(prepared.steps)} steps of TestWorkflow {prepared.workflow}, "
         f"agent {prepared.agent_url}, judge {prepared.judge_url or '-'}")
    unreachable = preflight.check(prepared.agent_url, prepared.judge_url)
    if unreachable:
        for problem in unreachable:
            click.echo(f"error: {problem}", err=True)
        click.echo("  is the port-forward running? (kubectl port-forward -n NAMESPACE svc/NAME LOCAL:PORT)", err=True)
        sys.exit(EXIT_INTERNAL)
    python, runtime = _executor(args)
    try:
        outcome = session.run(prepared, output_dir, python=python, runtime=runtime, image=args.image, say=_say,
                              timeout=args.timeout)
    except session.StepFailed as err:
        click.echo(f"error: {err}; nothing was written to {output_dir}. The end of its log:", err=True)
        for line in err.result.tail(30).splitlines():
            click.echo(f"  | {line}", err=True)
        sys.exit(EXIT_INTERNAL)
    except session.PrepareError as err:
        fail(str(err))
    _summary(outcome, args.fmt)


def _executor(args: LocalArgs) -> tuple[Path | None, str | None]:
    if args.runtime == "container":
        return None, _container_runtime()
    from kubectl_testbench.phases.env import PhaseEnvError, ensure_env, find_python, phase_spec

    try:
        python, version = find_python(args.phase_python)
    except PhaseEnvError as err:
        fail(str(err))
    try:
        env = ensure_env(phase_spec(), python, version, progress=lambda m: _say(f"phase environment: {m}"))
    except PhaseEnvError as err:
        fail(str(err), EXIT_INTERNAL)
    return env.python, None


def _summary(outcome: Any, fmt: str) -> NoReturn:
    from kubectl_testbench.results.formats import RESULTS_FORMATS as FORMATTERS
    from kubectl_testbench.results.gate import GatePolicy, results_gate
    from kubectl_testbench.results.model import ResultsError, parse_text
    from kubectl_testbench.results.summary import summarize

    try:
        run = parse_text(outcome.evaluated.read_text(encoding="utf-8"), str(outcome.evaluated))
    except (OSError, ResultsError) as err:
        fail(f"the run finished but its results cannot be read: {err}", EXIT_INTERNAL)
    summary = summarize(run)
    policy = GatePolicy()
    gate = results_gate([summary], policy)
    click.echo(FORMATTERS[fmt]([summary], gate, policy), nl=False)
    for warning in summary.warnings:
        click.echo(f"warning: {warning}", err=True)
    for reason in gate.reasons:
        click.echo(f"failed: {reason}", err=True)
    _say(f"HTML report: {outcome.report}")
    _say(f"results:     {outcome.evaluated}  (kubectl testbench results {outcome.output_dir})")
    sys.exit(EXIT_FINDINGS if gate.exit_failed else EXIT_OK)


__all__ = ["DEFAULT_OUTPUT_DIR", "EXIT_USAGE", "RESULTS_FORMATS", "LocalArgs", "run_local"]
