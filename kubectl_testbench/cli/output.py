"""Writing a command's requested output: stdout by default, ``--output-file`` atomically."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from kubectl_testbench.cli.common import fail

F = TypeVar("F", bound=Callable[..., Any])


def output_file_option(fn: F) -> F:
    return click.option("--output-file", type=click.Path(dir_okay=False, writable=False), default=None,
                        help="Write to this file (atomically) instead of stdout.")(fn)


def emit(text: str, output_file: str | None) -> None:
    if output_file is None:
        click.echo(text, nl=False)
        return
    from kubectl_testbench.emit.files import write_atomic

    try:
        write_atomic(output_file, text)
    except OSError as err:
        fail(f"cannot write {output_file}: {err.strerror or err}", 1)
