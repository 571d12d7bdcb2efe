"""Shared CLI pieces: exit codes, error lines, common options."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import click

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    """One line on stderr, then exit: the only way commands report fatal problems.

    Messages quote paths and values from the input; control characters are escaped so the line stays
    one line (no forged CI log commands, no terminal escapes).
    """
    from kubectl_testbench.safe_text import escape_controls

    click.echo(f"error: {escape_controls(message)}", err=True)
    sys.exit(code)


F = TypeVar("F", bound=Callable[..., Any])


def jobs_option(fn: F) -> F:
    return click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
                        help="Worker processes for large inputs (default: CPU count).")(fn)


def limits_options(fn: F) -> F:
    fn = click.option("--max-file-size", "max_file_mib", type=click.IntRange(min=1), default=16, show_default=True,
                      metavar="MIB", help="Refuse input files larger than this many MiB.")(fn)
    fn = click.option("--max-depth", type=click.IntRange(min=8), default=256, show_default=True,
                      help="Refuse YAML nested deeper than this.")(fn)
    fn = click.option("--max-nodes", type=click.IntRange(min=1000), default=1_000_000, show_default=True,
                      help="Refuse documents with more YAML nodes than this.")(fn)
    return fn


def limits_from(max_file_mib: int, max_depth: int, max_nodes: int = 1_000_000) -> Any:
    from kubectl_testbench.load.limits import Limits, MiB

    return Limits(max_file_bytes=max_file_mib * MiB, max_depth=max_depth, max_nodes=max_nodes)


def rule_options(fn: F) -> F:
    """``--select``/``--ignore``/``--extend-select``: which rules are reported (ruff's options, one mechanism
    with ``fix --select/--ignore`` and the configuration file's settings)."""
    fn = click.option("--extend-select", multiple=True, metavar="RULE",
                      help="Report these rules in addition to those selected (by --select or the configuration "
                           "file).")(fn)
    fn = click.option("--ignore", multiple=True, metavar="RULE",
                      help="Do not report these rules (added to the configuration file's ignore).")(fn)
    fn = click.option("--select", multiple=True, metavar="RULE",
                      help="Report only these rules: rule ids or groups (semantic/, yaml), repeatable or "
                           "comma-separated; replaces the configuration file's select.")(fn)
    return fn


def project_config(paths: tuple[str, ...]) -> Any:
    """The configuration file that applies to the inputs (found from the first PATH, or the working directory
    for stdin; docs/config.md), or a one-line error when it cannot be used."""
    from kubectl_testbench.config import ConfigError, load_config

    try:
        return load_config(paths[0] if paths else "-")
    except ConfigError as err:
        fail(str(err))


def rule_selection(config: Any, select: tuple[str, ...] = (), ignore: tuple[str, ...] = (),
                   extend_select: tuple[str, ...] = ()) -> Any:
    """The command line's selection over the configuration file's (docs/config.md has the precedence)."""
    from kubectl_testbench.rules.selection import Selection, SelectorError

    try:
        return Selection.parse(select, ignore, extend_select).over(config.selection)
    except SelectorError as err:
        fail(str(err))
