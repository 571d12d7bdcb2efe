"""``kubectl testbench validate``."""

from __future__ import annotations

import os
import sys
from contextlib import ExitStack

import click

from kubectl_testbench.cli.common import (
    EXIT_FINDINGS,
    EXIT_USAGE,
    fail,
    jobs_option,
    limits_from,
    limits_options,
    project_config,
    rule_options,
    rule_selection,
)
from kubectl_testbench.safe_text import display_path, escape_controls

FORMATS = ("text", "json", "github", "sarif", "junit")


@click.command()
@click.argument("paths", nargs=-1, metavar="PATH...")
@click.option("-o", "--output", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="Report format.")
@click.option("--strict", is_flag=True, help="Treat warnings as failures.")
@rule_options
@click.option("--list-rules", is_flag=True,
              help="Print every rule id with its severity (and [fixable] when kubectl testbench fix repairs it), "
                   "and exit.")
@click.option("--explain", "explain_rule", metavar="RULE",
              help="Print what RULE checks and why, what to do about it and whether it has a safe fix, and exit.")
@click.option("--only-testbench-files", is_flag=True,
              help="Skip files that do not mention testbench.agentic-layer.ai without reading them as YAML, and "
                   "Go/Helm templates of Experiments with a notice (for hooks that pass every YAML file).")
@click.option("--fail-if-empty", is_flag=True,
              help="Exit 1 when a PATH holds no Experiment (a mistyped directory must not look like success).")
@click.option("-q", "--quiet", is_flag=True, help="Print the findings only: no summary line, no notes.")
@jobs_option
@limits_options
def validate(paths: tuple[str, ...], fmt: str, strict: bool, select: tuple[str, ...], ignore: tuple[str, ...],
             extend_select: tuple[str, ...], list_rules: bool, explain_rule: str | None, only_testbench_files: bool,
             fail_if_empty: bool, quiet: bool, jobs: int | None, max_file_mib: int, max_depth: int,
             max_nodes: int) -> None:
    """Check Experiments the way the Kubernetes API server would, plus what it cannot check.

    PATH is a file, a directory (searched recursively for *.yaml, *.yml and *.json) or - for stdin.
    A dataset file (experiment.json: an object with scenarios, no kind) is checked against the phase
    package's schema, as by `kubectl testbench dataset validate`. Documents of other kinds are skipped.
    Exit codes: 0 valid, 1 invalid (a file that is not valid YAML too), 2 a path that cannot be opened, or a
    usage error.

    In GitHub Actions, -o github annotates files relative to $GITHUB_WORKSPACE and writes every
    finding to $GITHUB_STEP_SUMMARY; sarif and junit paths are relative to $GITHUB_WORKSPACE too.

    Settings are read from the nearest .testbench.yaml or pyproject.toml [tool.kubectl-testbench] above the
    first PATH; options given here win over them. A finding is suppressed in the file by
    # testbench: ignore[RULE] on its line or # testbench: ignore-document[RULE] atop its document
    (docs/config.md). Text output is coloured on a terminal; NO_COLOR=1 turns colour off, FORCE_COLOR=1 on.
    """
    if list_rules:
        from kubectl_testbench.rules import RULES

        for rule in RULES.values():
            click.echo(f"{rule.id:40} {rule.severity.value:8} {rule.summary}" + (" [fixable]" if rule.fix else ""))
        return
    if explain_rule is not None:
        _explain(explain_rule)
        return
    if not paths:
        fail("no input: give files, directories or - for stdin (see kubectl testbench validate --help)")
    from kubectl_testbench.pipeline.inputs import Inputs, validate_paths
    from kubectl_testbench.pipeline.policy import Tally
    from kubectl_testbench.validate.engine import Options
    from kubectl_testbench.validate.report import Reporter

    config = project_config(paths)
    strict = strict or config.strict
    options = Options(strict=strict, limits=limits_from(max_file_mib, max_depth, max_nodes),
                      rules=rule_selection(config, select, ignore, extend_select))
    root = os.environ.get("GITHUB_WORKSPACE") or None
    with ExitStack() as stack:
        summary = None
        summary_path = os.environ.get("GITHUB_STEP_SUMMARY")
        if fmt == "github" and summary_path:
            try:
                summary = stack.enter_context(open(summary_path, "a", encoding="utf-8"))
            except OSError as err:
                click.echo(f"warning: cannot write the step summary {escape_controls(summary_path)}: "
                           f"{err.strerror or err}", err=True)
        reporter = Reporter(fmt, root=root, summary=summary, strict=strict, quiet=quiet)
        tally = Tally(strict)
        counts = tally.counts
        found = dict.fromkeys(paths, 0)
        for result in validate_paths(paths, options, Inputs(only_testbench_files=only_testbench_files), jobs):
            reporter.add(result.diagnostics, result.checked, result.path)
            tally.add(result)
            for path in _arguments_of(result.path, paths):
                found[path] += (result.counts.experiments + result.counts.unreadable + result.counts.malformed
                                + result.counts.invalid + result.counts.datasets)
        reporter.add(tally.clashes().diagnostics)
        if only_testbench_files and not counts.files:  # a hook's batch of other tools' files: nothing to sum up,
            reporter.quiet = True                     # and pre-commit prints each batch's output one after another
        reporter.close(counts)
    empty = [p for p, n in found.items() if n == 0 and not (only_testbench_files and not os.path.isdir(p))]
    for path in empty if fail_if_empty or not quiet else ():
        click.echo(f"{'error' if fail_if_empty else 'warning'}: {display_path(path)}: no Experiment found "
                   "(nothing was validated there; check the path)", err=True)
    if counts.unreadable:
        sys.exit(EXIT_USAGE)
    if counts.invalid or counts.errors or (strict and counts.warnings) or (fail_if_empty and empty):
        sys.exit(EXIT_FINDINGS)


def _explain(rule_id: str) -> None:
    """``--explain RULE``: the rule's entry of docs/rules.md; an unknown id is a usage error with a suggestion."""
    from kubectl_testbench.rules import RULES, did_you_mean
    from kubectl_testbench.rules.docs import explain

    rule = RULES.get(rule_id)
    if rule is None:
        fail(f'"{rule_id}" is not a rule id{did_you_mean(rule_id)}: kubectl testbench validate --list-rules lists them')
    click.echo(explain(rule))


def _arguments_of(file: str, paths: tuple[str, ...]) -> list[str]:
    """The command-line PATHs a reported file came from (itself, or a directory it was found in)."""
    return [p for p in paths if file == p or (p != "-" and file.startswith(p.rstrip(os.sep) + os.sep))]
