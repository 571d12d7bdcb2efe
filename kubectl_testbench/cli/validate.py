"""``kubectl testbench validate``."""

from __future__ import annotations

import sys

import click

from kubectl_testbench.cli.common import EXIT_FINDINGS, EXIT_USAGE, fail, jobs_option, limits_from, limits_options

FORMATS = ("text", "json", "github", "sarif", "junit")


@click.command()
@click.argument("paths", nargs=-1, metavar="PATH...")
@click.option("-o", "--output", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="Report format.")
@click.option("--strict", is_flag=True, help="Treat warnings as failures.")
@click.option("--list-rules", is_flag=True, help="Print every rule id with its severity and exit.")
@jobs_option
@limits_options
def validate(paths: tuple[str, ...], fmt: str, strict: bool, list_rules: bool, jobs: int | None,
             max_file_mib: int, max_depth: int, max_nodes: int) -> None:
    """Check Experiments the way the Kubernetes API server would, plus what it cannot check.

    PATH is a file, a directory (searched recursively for *.yaml, *.yml and *.json) or - for stdin.
    Documents of other kinds are skipped. Exit codes: 0 valid, 1 invalid, 2 unreadable input or usage.
    """
    if list_rules:
        from kubectl_testbench.validate.rules import RULES

        for rule in RULES.values():
            click.echo(f"{rule.id:40} {rule.severity.value:8} {rule.summary}")
        return
    if not paths:
        fail("no input: give files, directories or - for stdin (see kubectl testbench validate --help)")
    from kubectl_testbench.validate.diagnostics import Counts
    from kubectl_testbench.validate.engine import Options, validate_paths
    from kubectl_testbench.validate.report import Reporter

    options = Options(strict=strict, limits=limits_from(max_file_mib, max_depth, max_nodes))
    reporter = Reporter(fmt)
    counts = Counts()
    for result in validate_paths(paths, options, jobs):
        reporter.add(result.diagnostics, result.checked, result.path)
        counts.add(result.counts)
    reporter.close(counts)
    if counts.unreadable:
        sys.exit(EXIT_USAGE)
    if counts.invalid or counts.errors:
        sys.exit(EXIT_FINDINGS)
