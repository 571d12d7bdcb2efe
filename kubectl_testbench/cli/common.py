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
