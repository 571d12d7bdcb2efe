"""``kubectl testbench results`` and ``kubectl testbench compare``: read, gate, export and compare runs.

Thin on purpose: parse flags, load runs through :mod:`kubectl_testbench.results`, print. The report goes to
stdout (or ``--output-file``); warnings and the gate verdict go to stderr. Exit codes: 0 ok, 1 gate failed,
2 unreadable or malformed input (or usage), 3 the Testkube API could not be reached.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from kubectl_testbench.cli.common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, fail
from kubectl_testbench.cli.output import emit, output_file_option
from kubectl_testbench.words import plural

if TYPE_CHECKING:
    from kubectl_testbench.results.gate import GateResult
    from kubectl_testbench.results.model import Run

FORMATS = ("table", "json", "csv", "markdown", "junit")
API_URL_ENV = "TESTKUBE_API_URL"
API_TOKEN_ENV = "TESTKUBE_API_TOKEN"
F = TypeVar("F", bound=Callable[..., Any])


def _format_option(fn: F) -> F:
    return click.option("-o", "--output", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
                        help="Report format (markdown suits a pull-request comment, junit a CI test report).")(fn)


def _gate_options(fn: F) -> F:
    fn = click.option("--ignore-errored", is_flag=True,
                      help="Do not let errored metrics (no evaluation, no score or NaN) fail the gate.")(fn)
    return click.option("--no-gate", is_flag=True, help="Only report: exit 0 even when the gate fails.")(fn)


def _api_option(fn: F) -> F:
    return click.option("--api-url", envvar=API_URL_ENV, default=None, metavar="URL", show_envvar=True,
                        help="Testkube API for --execution, e.g. http://localhost:8088 "
                             "(bearer token from $TESTKUBE_API_TOKEN).")(fn)


def _load_error(err: Exception) -> NoReturn:
    from kubectl_testbench.results.compare import CompareError
    from kubectl_testbench.results.model import ResultsError

    if isinstance(err, (ResultsError, CompareError)):
        fail(str(err), EXIT_USAGE)
    code = getattr(err, "exit_code", EXIT_USAGE)
    fail(str(err), code if isinstance(code, int) else EXIT_USAGE)


def _load(paths: Sequence[str], executions: Sequence[str], api_url: str | None) -> list[Run]:
    """Runs from paths, then from executions (the Testkube client is imported only when needed)."""
    from kubectl_testbench.results.fetch import load_runs, parse_document_bytes
    from kubectl_testbench.results.model import ResultsError

    try:
        runs = load_runs(paths, sys.stdin.buffer if "-" in paths else None)
        if executions:
            from kubectl_testbench.results.testkube import ApiError, fetch_execution

            token = os.environ.get(API_TOKEN_ENV) or None
            for execution in executions:
                try:
                    runs.append(parse_document_bytes(fetch_execution(execution, api_url, token)))
                except ApiError as err:
                    _load_error(err)
    except ResultsError as err:
        _load_error(err)
    return runs


def _report_gate(gate: GateResult, warnings: Sequence[str]) -> None:
    for w in warnings:
        click.echo(f"warning: {w}", err=True)
    if gate.passed:
        return
    prefix = "gate failed" if gate.enforced else "gate not enforced (--no-gate), would fail"
    for reason in gate.reasons:
        click.echo(f"{prefix}: {reason}", err=True)


def _finish(gate: GateResult) -> None:
    code = EXIT_FINDINGS if gate.exit_failed else EXIT_OK
    click.get_current_context().exit(code)


@click.command()
@click.argument("sources", nargs=-1, metavar="[SOURCE]...")
@click.option("--execution", "executions", multiple=True, metavar="ID",
              help="Fetch this Testkube execution's results through the API (repeatable).")
@_format_option
@output_file_option
@_gate_options
@click.option("--min-pass-rate", type=click.FloatRange(0, 1), default=None, metavar="RATE",
              help="Gate on the pass rate (0..1) instead of requiring every check to pass.")
@_api_option
def results(sources: tuple[str, ...], executions: tuple[str, ...], fmt: str, output_file: str | None,
            no_gate: bool, ignore_errored: bool, min_pass_rate: float | None, api_url: str | None) -> None:
    """Summarise evaluation results and gate on them.

    SOURCE is an evaluated_experiment.json, a directory of downloaded executions (searched for that file,
    one run per execution), a .tar/.tar.gz artifact archive, or - for stdin. Shows the pass rate, the mean
    score per metric and per scenario, and every failing or errored step with its input, score, threshold
    and the judge's details.

    A step passes a metric when score >= (metric threshold, else default_threshold, else 0.9). A metric
    without an evaluation, a score or with a NaN score is errored. Exit codes: 0 every check passed,
    1 a check failed or errored (or the pass rate is below --min-pass-rate, or nothing was evaluated),
    2 unreadable or malformed input, 3 Testkube API unreachable.
    """
    if not sources and not executions:
        fail("no input: give result files or directories, - for stdin, or --execution ID "
             "(see kubectl testbench results --help)")
    from kubectl_testbench.results.formats import RESULTS_FORMATS
    from kubectl_testbench.results.gate import GatePolicy, results_gate
    from kubectl_testbench.results.summary import summarize

    runs = _load(sources, executions, api_url)
    summaries = [summarize(run) for run in runs]
    policy = GatePolicy(enforce=not no_gate, min_pass_rate=min_pass_rate, ignore_errored=ignore_errored)
    gate = results_gate(summaries, policy)
    emit(RESULTS_FORMATS[fmt](summaries, gate, policy), output_file)
    _report_gate(gate, [w for s in summaries for w in s.warnings])
    _finish(gate)


@click.command()
@click.argument("paths", nargs=-1, metavar="BASE CANDIDATE")
@click.option("--base-execution", default=None, metavar="ID", help="Fetch the base run from the Testkube API.")
@click.option("--candidate-execution", default=None, metavar="ID",
              help="Fetch the candidate run from the Testkube API.")
@_format_option
@output_file_option
@_gate_options
@click.option("--max-regression", type=click.FloatRange(min=0), default=None, metavar="X",
              help="Gate on metric means instead of on every newly failing check: fail when a mean drops by "
                   "more than X (e.g. 0.05) or a check scored in BASE is errored in CANDIDATE.")
@_api_option
def compare(paths: tuple[str, ...], base_execution: str | None, candidate_execution: str | None, fmt: str,
            output_file: str | None, no_gate: bool, ignore_errored: bool, max_regression: float | None,
            api_url: str | None) -> None:
    """Compare two runs of the same dataset: BASE (e.g. main) against CANDIDATE (a new prompt or model).

    Each side is a file, a directory holding exactly one result, - for stdin, or --base-execution /
    --candidate-execution. Steps are matched by scenario name and step index, falling back to the input
    text; unmatched steps are listed as only in one run. Shows per-metric mean deltas (over checks scored
    in both runs), per-step score changes, newly failing and newly passing checks.

    Gate: exit 1 when a check that passed in BASE does not pass in CANDIDATE; with --max-regression X,
    when a metric's mean drops by more than X or a scored check became errored. 2 unreadable input or
    runs with no step in common, 3 Testkube API unreachable.
    """
    wanted = 2 - (base_execution is not None) - (candidate_execution is not None)
    if len(paths) != wanted:
        fail(f"compare needs {plural(wanted, 'path')} besides the --*-execution options, "
             f"got {len(paths)} (usage: kubectl testbench compare BASE CANDIDATE)")
    if paths.count("-") > 1:
        fail("only one side can be read from stdin (-)")
    from kubectl_testbench.results.compare import CompareError
    from kubectl_testbench.results.compare import compare as compare_runs
    from kubectl_testbench.results.compare_formats import COMPARE_FORMATS
    from kubectl_testbench.results.gate import GatePolicy, compare_gate
    from kubectl_testbench.results.summary import summarize

    queue = list(paths)
    sides: list[Run] = []
    for execution in (base_execution, candidate_execution):
        if execution is not None:
            loaded = _load((), (execution,), api_url)
        else:
            path = queue.pop(0)
            loaded = _load((path,), (), api_url)
            if len(loaded) != 1:
                names = ", ".join(r.source for r in loaded)
                fail(f"{path}: holds {len(loaded)} results ({names}); compare needs exactly one per side: "
                     "pass the file you mean")
        sides.extend(loaded)
    base, candidate = summarize(sides[0]), summarize(sides[1])
    try:
        comparison = compare_runs(base, candidate)
    except CompareError as err:
        _load_error(err)
    policy = GatePolicy(enforce=not no_gate, max_regression=max_regression, ignore_errored=ignore_errored)
    gate = compare_gate(comparison, policy)
    emit(COMPARE_FORMATS[fmt](comparison, gate, policy), output_file)
    _report_gate(gate, [*base.warnings, *candidate.warnings, *comparison.warnings])
    _finish(gate)
