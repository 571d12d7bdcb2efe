"""``kubectl testbench render``."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import click

from kubectl_testbench.cli.common import EXIT_FINDINGS, fail
from kubectl_testbench.cli.render_options import RENDER_NAMESPACE_SOURCE, RenderArgs, render_into, render_options
from kubectl_testbench.emit.directory import OutputDirError
from kubectl_testbench.model.constants import DEFAULT_NAMESPACE
from kubectl_testbench.model.render_settings import CLI_SETTINGS
from kubectl_testbench.render.sinks import CheckSink, DirectorySink, Sink, StdoutSink
from kubectl_testbench.safe_text import display_path, escape_controls, json_log_safe, safe_log_line
from kubectl_testbench.words import plural


@click.command()
@click.argument("paths", nargs=-1, metavar="PATH...")
@click.option("-o", "--output", "fmt", type=click.Choice(("yaml", "json")), default="yaml", show_default=True,
              help="Manifest format.")
@click.option("--output-dir", type=click.Path(file_okay=False), default=None,
              help="Write one file per object plus kustomization.yaml to this directory (atomically).")
@click.option("--check", is_flag=True, help="With --output-dir: write nothing, print a diff and exit 1 if the "
              "directory is not up to date.")
@click.option("--allow-empty", is_flag=True, help="With --output-dir: accept an input without Experiments even "
              "when the directory holds files an earlier render wrote (they are removed). Without it, that is an "
              "error: a mistyped path or apiVersion must not empty a directory a GitOps tool syncs.")
@click.option("-n", "--namespace", default=None,
              help="Namespace of Experiments that do not set metadata.namespace [default; a notice names the "
                   "Experiments it applies to]. apply, diff and prune fall back to the kubeconfig context's instead.")
@click.option("--only-testbench-files", is_flag=True,
              help="Skip files that do not mention testbench.agentic-layer.ai without reading them as YAML, and "
                   "Go/Helm templates of Experiments with a notice (for hooks over a whole repository).")
@click.option("--resolve", is_flag=True, help="Print each TestWorkflow's steps as Testkube will run them: every use "
              "expanded with the TestWorkflowTemplates, expressions evaluated (execution values are stated "
              "placeholders), env merged, mounted files with their content. Also takes rendered manifests.")
@click.option("--templates", "templates_path", type=click.Path(exists=True), default=None, metavar="PATH",
              help="With --resolve: resolve against the TestWorkflowTemplates in PATH (a cluster's own, e.g. kubectl "
              "get testworkflowtemplates -n testkube -o yaml) instead of the ones install ships.")
@render_options
def render(paths: tuple[str, ...], fmt: str, output_dir: str | None, check: bool, allow_empty: bool,
           namespace: str | None,
           only_testbench_files: bool, resolve: bool, templates_path: str | None, render: RenderArgs) -> None:
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
    source = "from -n" if namespace else RENDER_NAMESPACE_SOURCE
    if resolve:
        if output_dir is not None:
            fail("--resolve prints to stdout: drop --output-dir")
        _resolve(paths, namespace or DEFAULT_NAMESPACE, render, fmt, templates_path, source)
        return
    try:
        sink = _sink(fmt, output_dir, check)
    except OutputDirError as err:
        fail(str(err), EXIT_FINDINGS)
    for notice in sink.notices:
        click.echo(f"notice: {escape_controls(notice)}", err=True)
    try:
        counts = render_into(paths, namespace or DEFAULT_NAMESPACE, render, fmt, sink,
                             only_testbench_files=only_testbench_files, namespace_source=source)
        if not allow_empty:
            _refuse_to_empty(sink, output_dir)
        _finish(sink, output_dir, regenerate_command(paths, output_dir, fmt, namespace, render, only_testbench_files,
                                                     allow_empty), counts.experiments)
    except OutputDirError as err:
        sink.abort()
        fail(str(err), EXIT_FINDINGS)


def _resolve(paths: tuple[str, ...], namespace: str, args: RenderArgs, fmt: str, templates_path: str | None,
             namespace_source: str) -> None:
    """Render (validating first), then resolve every TestWorkflow; any workflow that does not resolve is reported
    on one line and nothing is printed."""
    from kubectl_testbench.cli.render_options import render_or_exit
    from kubectl_testbench.emit.yamlout import dump
    from kubectl_testbench.render.resolve import ExecutionContext, document, resolve_objects
    from kubectl_testbench.render.resolve.sources import TemplatesError, load_objects, templates_in
    from kubectl_testbench.rules.render import RENDER_RESOLVE

    templates = None
    if templates_path is not None:
        try:
            templates = templates_in(load_objects([templates_path]))
        except TemplatesError as problem:
            fail(f"--templates: {problem}")
        if not templates:
            fail(f"--templates: no TestWorkflowTemplate (testworkflows.testkube.io/v1) in {templates_path}")
    rendered = render_or_exit(paths, namespace, args, "json", refused="nothing resolved",
                              namespace_source=namespace_source)
    objects = [r.data for r in rendered if r.data is not None]
    origins = {id(r.data): r.origin for r in rendered}
    execution = ExecutionContext()
    result = resolve_objects(objects, templates, execution)
    for workflow, err in result.failures:
        meta = workflow.get("metadata") or {}
        what = f"{meta.get('namespace')}/{meta.get('name')}: {err}"  # names and messages quote the input
        click.echo(f"{display_path(origins.get(id(workflow), '-'))}: error[{RENDER_RESOLVE.id}] TestWorkflow "
                   f"{escape_controls(what)}", err=True)
    if result.failures:
        click.echo(f"error: nothing resolved: {len(result.failures)} of "
                   f"{len(result.failures) + len(result.workflows)} TestWorkflows do not resolve", err=True)
        sys.exit(EXIT_FINDINGS)
    doc = document(result.workflows, execution)
    click.echo(json_log_safe(json.dumps(doc, indent=4, ensure_ascii=False)) + "\n" if fmt == "json" else dump(doc),
               nl=False)


def _sink(fmt: str, output_dir: str | None, check: bool) -> Sink:
    if output_dir is None:
        return StdoutSink(fmt)
    if check:
        return CheckSink(Path(output_dir))
    return DirectorySink(Path(output_dir))


def _refuse_to_empty(sink: Sink, output_dir: str | None) -> None:
    """No Experiment in the input, and the directory holds what an earlier render wrote: a mistyped path or
    apiVersion, not a wish to delete every workflow (a GitOps tool syncing the directory would prune them)."""
    earlier = sink.earlier_files()
    if sink.names or not earlier:
        return
    sink.abort()
    shown = ", ".join(earlier[:3]) + (f" and {len(earlier) - 3} more" if len(earlier) > 3 else "")
    fail(f"the input holds no Experiment, but {output_dir} holds {len(earlier)} files an earlier render wrote "
         f"({shown}): rendering nothing would remove them. Check the paths and the apiVersion "
         "(testbench.agentic-layer.ai/v1alpha1); pass --allow-empty if removing them is intended", EXIT_FINDINGS)


def _finish(sink: Sink, output_dir: str | None, regenerate: str, experiments: int) -> None:
    count = len(sink.names)
    what = plural(experiments, "Experiment")
    if isinstance(sink, StdoutSink):
        click.echo(json_log_safe(sink.finish()) if sink.fmt == "json" else sink.finish(), nl=False)
    elif isinstance(sink, CheckSink):
        diff = sink.finish()
        if diff:
            # one diff line per output line: file content is user text (no forged CI commands, no escapes)
            click.echo("".join(safe_log_line(line) + "\n" for line in diff.split("\n")[:-1]), nl=False)
            click.echo(f"error: {escape_controls(sink.shown)} is not up to date with its sources; regenerate it "
                       f"with: {escape_controls(regenerate)}", err=True)
            sys.exit(EXIT_FINDINGS)
        click.echo(f"{escape_controls(str(output_dir))} is up to date ({what}, {count} objects)", err=True)
    elif isinstance(sink, DirectorySink):
        changes = sink.finish()
        shown = escape_controls(str(output_dir))
        nxt = (f". Next: kubectl apply --server-side -k {shlex.quote(shown)} (Testkube and kubectl testbench install "
               "first), or commit it for Argo CD or Flux") if count else ""
        click.echo(f"{shown}: rendered {what} into {count} objects; files (with kustomization.yaml): "
                   f"{len(changes.added)} added, {len(changes.changed)} changed, {len(changes.removed)} removed{nxt}",
                   err=True)


_VALUES = {**{s.name: s.flag for s in CLI_SETTINGS if s.flag and s.kind not in ("switch", "tristate")},
           "max_file_mib": "--max-file-size", "max_depth": "--max-depth", "max_nodes": "--max-nodes"}
"""The options that take a value, by RenderArgs field (the render settings, then the reading limits)."""
_SWITCHES = {s.name: s.flag for s in CLI_SETTINGS if s.flag and s.kind == "switch"}
_TRISTATES = {s.name: s.flag for s in CLI_SETTINGS if s.flag and s.kind == "tristate"}


def regenerate_command(paths: tuple[str, ...], output_dir: str | None, fmt: str, namespace: str | None,
                       render: RenderArgs, only_testbench_files: bool = False, allow_empty: bool = False) -> str:
    """The command that writes the directory ``--check`` compared against: same sources, same settings."""
    import dataclasses
    import shlex

    words = ["kubectl", "testbench", "render", *paths, "--output-dir", str(output_dir)]
    if fmt != "yaml":
        words += ["-o", fmt]
    if namespace:
        words += ["-n", namespace]
    defaults = RenderArgs()
    for name, flag in _VALUES.items():
        value = getattr(render, name)
        if value != getattr(defaults, name):
            words += [flag, str(value)]
    words += [flag for name, flag in _SWITCHES.items() if getattr(render, name)]
    for name, flag in _TRISTATES.items():
        value = getattr(render, name)
        if value is not None:
            words.append(flag if value else f"--no-{flag[2:]}")
    if only_testbench_files:
        words.append("--only-testbench-files")
    if allow_empty:
        words.append("--allow-empty")
    assert {f.name for f in dataclasses.fields(RenderArgs)} <= {*_VALUES, *_SWITCHES, *_TRISTATES, "jobs"}
    return shlex.join(words)
