"""``kubectl testbench render``."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from kubectl_testbench.cli.common import EXIT_FINDINGS, fail
from kubectl_testbench.cli.render_options import RenderArgs, render_options, render_or_exit
from kubectl_testbench.render.pipeline import Rendered


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
    from kubectl_testbench.render.pipeline import stream

    objects = render_or_exit(paths, namespace, render, fmt)
    if output_dir is None:
        click.echo(stream(objects, fmt), nl=False)
        return
    _to_directory(Path(output_dir), objects, fmt, check)


def _to_directory(target: Path, rendered: list[Rendered], fmt: str, check: bool) -> None:
    from kubectl_testbench.emit import directory

    files = {o.filename: directory.with_header(o.text) for o in rendered}
    files[directory.KUSTOMIZATION] = directory.kustomization([o.filename for o in rendered])
    if check:
        diff = directory.unified_diff(target, files)
        if diff:
            click.echo(diff, nl=False)
            click.echo(f"error: {target} is not up to date with its sources; run kubectl testbench render "
                       f"--output-dir {target} and commit the result", err=True)
            sys.exit(EXIT_FINDINGS)
        click.echo(f"{target} is up to date ({len(rendered)} objects)", err=True)
        return
    try:
        changes = directory.write(target, files)
    except directory.OutputDirError as err:
        fail(str(err), EXIT_FINDINGS)
    click.echo(f"{target}: {len(rendered)} objects; {len(changes.added)} added, {len(changes.changed)} changed, "
               f"{len(changes.removed)} removed", err=True)
