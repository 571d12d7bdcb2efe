"""``kubectl testbench render``."""

from __future__ import annotations

import json
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
@click.option("--resolve", is_flag=True, help="Print each TestWorkflow's steps as Testkube will run them: every use "
              "expanded with the TestWorkflowTemplates, expressions evaluated (execution values are stated "
              "placeholders), env merged, mounted files with their content. Also takes rendered manifests.")
@click.option("--templates", "templates_path", type=click.Path(exists=True), default=None, metavar="PATH",
              help="With --resolve: resolve against the TestWorkflowTemplates in PATH (a cluster's own, e.g. kubectl "
              "get testworkflowtemplates -n testkube -o yaml) instead of the ones install ships.")
@render_options
def render(paths: tuple[str, ...], fmt: str, output_dir: str | None, check: bool, namespace: str, resolve: bool,
           templates_path: str | None, render: RenderArgs) -> None:
    """Compile Experiments into Testkube TestWorkflows, dataset ConfigMaps and TestTriggers.

    Everything is validated first (as kubectl testbench validate does); any error means exit 1 and
    nothing written. Output is deterministic: the same input gives the same bytes. Examples:

    \b
      kubectl testbench render experiments/ | kubectl apply --server-side -f -
      kubectl testbench render experiments/ --output-dir rendered/
      kubectl testbench render experiments/ --output-dir rendered/ --check   # CI drift check
      kubectl testbench render experiments/ --resolve                        # what each step runs
    """
    if not paths:
        fail("no input: give files, directories or - for stdin (see kubectl testbench render --help)")
    if check and output_dir is None:
        fail("--check compares against a directory: give --output-dir")
    if templates_path is not None and not resolve:
        fail("--templates is used by --resolve: give --resolve")
    if resolve:
        if output_dir is not None:
            fail("--resolve prints to stdout: drop --output-dir")
        _resolve(paths, namespace, render, fmt, templates_path)
        return
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


def _resolve(paths: tuple[str, ...], namespace: str, args: RenderArgs, fmt: str, templates_path: str | None) -> None:
    """Render (validating first), then resolve every TestWorkflow; any workflow that does not resolve is reported
    on one line and nothing is printed."""
    from kubectl_testbench.cli.render_options import render_or_exit
    from kubectl_testbench.emit.yamlout import dump
    from kubectl_testbench.render.resolve import ExecutionContext, document, resolve_objects
    from kubectl_testbench.render.resolve.sources import TemplatesError, load_objects, templates_in

    templates = None
    if templates_path is not None:
        try:
            templates = templates_in(load_objects([templates_path]))
        except TemplatesError as problem:
            fail(f"--templates: {problem}")
        if not templates:
            fail(f"--templates: no TestWorkflowTemplate (testworkflows.testkube.io/v1) in {templates_path}")
    rendered = render_or_exit(paths, namespace, args, "json", refused="nothing resolved")
    objects = [r.data for r in rendered if r.data is not None]
    origins = {id(r.data): r.origin for r in rendered}
    execution = ExecutionContext()
    result = resolve_objects(objects, templates, execution)
    for workflow, err in result.failures:
        meta = workflow.get("metadata") or {}
        click.echo(f"{origins.get(id(workflow), '-')}: error[render/resolve] TestWorkflow "
                   f"{meta.get('namespace')}/{meta.get('name')}: {err}", err=True)
    if result.failures:
        click.echo(f"error: nothing resolved: {len(result.failures)} of "
                   f"{len(result.failures) + len(result.workflows)} TestWorkflows do not resolve", err=True)
        sys.exit(EXIT_FINDINGS)
    doc = document(result.workflows, execution)
    click.echo(json.dumps(doc, indent=4, ensure_ascii=False) + "\n" if fmt == "json" else dump(doc), nl=False)


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
