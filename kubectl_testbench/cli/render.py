"""``kubectl testbench render``."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from kubectl_testbench.cli.common import EXIT_FINDINGS, fail
from kubectl_testbench.cli.render_options import RenderArgs, render_into, render_options
from kubectl_testbench.emit.directory import OutputDirError
from kubectl_testbench.render.sinks import CheckSink, DirectorySink, Sink, StdoutSink


@click.command()
@click.argument("paths", nargs=-1, metavar="PATH...")
@click.option("-o", "--output", "fmt", type=click.Choice(("yaml", "json")), default="yaml", show_default=True,
              help="Manifest format.")
@click.option("--output-dir", type=click.Path(file_okay=False), default=None,
              help="Write one file per object plus kustomization.yaml to this directory (atomically).")
@click.option("--check", is_flag=True, help="With --output-dir: write nothing, print a diff and exit 1 if the "
              "directory is not up to date.")
@click.option("-n", "--namespace", default="default", show_default=True,
              help="Namespace of Experiments that do not set metadata.namespace.")
@render_options
def render(paths: tuple[str, ...], fmt: str, output_dir: str | None, check: bool, namespace: str,
           render: RenderArgs) -> None:
    """Compile Experiments into Testkube TestWorkflows, dataset ConfigMaps and TestTriggers.

    Everything is validated first (as kubectl testbench validate does); any error means exit 1 and
    nothing written. Output is byte-for-byte deterministic. Examples:

    \b
      kubectl testbench render experiments/ | kubectl apply --server-side -f -
      kubectl testbench render experiments/ --output-dir rendered/
      kubectl testbench render experiments/ --output-dir rendered/ --check   # CI drift check
    """
    if not paths:
        fail("no input: give files, directories or - for stdin (see kubectl testbench render --help)")
    if check and output_dir is None:
        fail("--check compares against a directory: give --output-dir")
    try:
        sink = _sink(fmt, output_dir, check)
    except OutputDirError as err:
        fail(str(err), EXIT_FINDINGS)
    try:
        render_into(paths, namespace, render, fmt, sink)
        _finish(sink, output_dir)
    except OutputDirError as err:
        sink.abort()
        fail(str(err), EXIT_FINDINGS)


def _sink(fmt: str, output_dir: str | None, check: bool) -> Sink:
    if output_dir is None:
        return StdoutSink(fmt)
    if check:
        return CheckSink(Path(output_dir))
    return DirectorySink(Path(output_dir))


def _finish(sink: Sink, output_dir: str | None) -> None:
    count = len(sink.names)
    if isinstance(sink, StdoutSink):
        click.echo(sink.finish(), nl=False)
    elif isinstance(sink, CheckSink):
        diff = sink.finish()
        if diff:
            click.echo(diff, nl=False)
            click.echo(f"error: {output_dir} is not up to date with its sources; run kubectl testbench render "
                       f"--output-dir {output_dir} and commit the result", err=True)
            sys.exit(EXIT_FINDINGS)
        click.echo(f"{output_dir} is up to date ({count} objects)", err=True)
    elif isinstance(sink, DirectorySink):
        changes = sink.finish()
        click.echo(f"{output_dir}: {count} objects; files (with kustomization.yaml): {len(changes.added)} added, "
                   f"{len(changes.changed)} changed, {len(changes.removed)} removed", err=True)
