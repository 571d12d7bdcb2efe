"""``kubectl testbench fix``."""

from __future__ import annotations

import sys

import click

from kubectl_testbench.cli.common import (
    EXIT_FINDINGS,
    EXIT_USAGE,
    fail,
    jobs_option,
    limits_from,
    limits_options,
    project_config,
)


@click.command()
@click.argument("paths", nargs=-1, metavar="PATH...")
@click.option("--diff", "show_diff", is_flag=True, help="Print the fixes as a unified diff; write nothing.")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 when a fix is available (for CI).")
@click.option("--select", multiple=True, metavar="RULE",
              help="Apply only these rules' fixes: rule ids or groups (yaml, schema/enum); repeatable or "
                   "comma-separated.")
@click.option("--ignore", multiple=True, metavar="RULE", help="Do not apply these rules' fixes (as --select).")
@click.option("--migrate", is_flag=True,
              help="Also upgrade Experiments written for the earlier upstream schemas (spec.scenarios, "
                   "spec.llmAsAJudgeModel, spec.otlpEndpoint...) to v1alpha1.")
@click.option("--strict", is_flag=True, help="Warnings left after fixing fail, as with validate --strict.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings are left (unreadable input still exits 2).")
@click.option("--exit-non-zero-on-fix", is_flag=True,
              help="Exit 1 when a file was changed (pre-commit hooks fail on a fix, as formatters do).")
@click.option("--only-testbench-files", is_flag=True,
              help="Skip files that do not mention testbench.agentic-layer.ai without reading them as YAML, and "
                   "Go/Helm templates of Experiments with a notice (for hooks that pass every YAML file).")
@click.option("-q", "--quiet", is_flag=True, help="Report only what changed and what blocked a fix.")
@jobs_option
@limits_options
def fix(paths: tuple[str, ...], show_diff: bool, check: bool, select: tuple[str, ...], ignore: tuple[str, ...],
        migrate: bool, strict: bool, exit_zero: bool, exit_non_zero_on_fix: bool, only_testbench_files: bool,
        quiet: bool, jobs: int | None, max_file_mib: int, max_depth: int, max_nodes: int) -> None:
    """Apply the safe fixes validate finds, rewriting files in place (comments and layout kept).

    PATH is a file, a directory (searched recursively for *.yaml, *.yml and *.json) or - to read stdin and
    write the fixed document to stdout. Only fixes that cannot change what you meant are applied (see
    "fixable" in docs/rules.md); each edit stays inside the node it fixes and every changed file is read
    back and compared before it is written, atomically. A summary goes to stderr: files changed, fixes per
    rule, and the findings left with why they have no safe fix.

    Exit codes as validate: 0 nothing left to fix and valid, 1 findings left (or, with --check/--diff, a fix
    available), 2 unreadable input or usage.
    """
    if not paths:
        fail("no input: give files, directories or - for stdin (see kubectl testbench fix --help)")
    from kubectl_testbench.fix.apply import FixOptions, fix_paths
    from kubectl_testbench.fix.summary import changed_line, remaining, totals, unified_diff
    from kubectl_testbench.pipeline.inputs import Inputs
    from kubectl_testbench.rules.selection import Selection, SelectorError
    from kubectl_testbench.safe_text import escape_controls
    from kubectl_testbench.validate.diagnostics import Counts
    from kubectl_testbench.validate.engine import Options

    try:
        selection = Selection.parse(select, ignore)
    except SelectorError as err:
        fail(str(err))
    config = project_config(paths)  # its selection decides what is reported, and so what can be fixed
    strict = strict or config.strict
    write = not (check or show_diff)
    options = FixOptions(Options(strict, limits_from(max_file_mib, max_depth, max_nodes), config.selection), selection,
                         migrate, Inputs(only_testbench_files=only_testbench_files))
    counts = Counts()
    outcomes = []
    failed_write = False
    for outcome in fix_paths(paths, options, jobs):
        outcomes.append(outcome)
        counts.add(outcome.result.counts)
        for note in outcome.notes:
            click.echo(escape_controls(str(note)), err=True)
        if outcome.path == "-" and write:
            sys.stdout.buffer.write(outcome.data if outcome.data is not None else (outcome.original or b""))
            sys.stdout.buffer.flush()
        if outcome.changed:
            if show_diff:
                click.echo(unified_diff(outcome), nl=False)
            written = write
            if write and outcome.path != "-":
                written = _write(outcome.path, outcome.data or b"", outcome.read_sha256)
                failed_write |= not written
            click.echo(changed_line(outcome, applied=written), err=True)
        if not quiet:
            click.echo(remaining(outcome, selection), err=True, nl=False)
    click.echo(totals(outcomes, applied=write), err=True)
    if not quiet:
        click.echo(counts.summary(), err=True)
    if counts.unreadable or failed_write:
        sys.exit(EXIT_USAGE)
    pending = any(o.changed for o in outcomes)
    left = counts.errors or (strict and counts.warnings) or counts.invalid
    if (pending and not write) or (pending and exit_non_zero_on_fix) or (left and not exit_zero):
        sys.exit(EXIT_FINDINGS)


def _write(path: str, data: bytes, read_sha256: str | None) -> bool:
    """Replace the file atomically, unless it is no longer the bytes that were fixed (edited while fix ran)."""
    from kubectl_testbench.emit.files import ChangedMeanwhile, write_atomic_bytes
    from kubectl_testbench.safe_text import escape_controls

    try:
        write_atomic_bytes(path, data, keep_mode=True, expect_sha256=read_sha256)
    except ChangedMeanwhile:
        click.echo(f"error: {escape_controls(path)} changed while fix ran; not written, the changed file is kept "
                   "(run kubectl testbench fix again)", err=True)
        return False
    except OSError as err:
        click.echo(f"error: cannot write {escape_controls(path)}: {escape_controls(str(err.strerror or err))}",
                   err=True)
        return False
    return True
