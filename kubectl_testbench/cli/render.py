"""``kubectl testbench render``."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from kubectl_testbench.cli.common import EXIT_FINDINGS, EXIT_USAGE, fail, jobs_option, limits_from, limits_options
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
@click.option("--testkube-namespace", default=None, help="Namespace of Testkube and its templates [testkube].")
@click.option("--agent-url", default=None, metavar="TEMPLATE",
              help="Agent URL; {name}, {namespace}, {port} are filled in [http://{name}.{namespace}:{port}].")
@click.option("--agent-port", type=click.IntRange(1, 65535), default=None, help="Agent service port [8000].")
@click.option("--ai-gateway-url", "gateway_url", default=None, metavar="TEMPLATE",
              help="AI gateway URL; {name}, {namespace}, {port} are filled in.")
@click.option("--ai-gateway-port", "gateway_port", type=click.IntRange(1, 65535), default=None,
              help="AI gateway service port (the AiGateway's spec.port) [80].")
@click.option("--include-experiment", is_flag=True, help="Also emit the Experiments themselves.")
@click.option("--argocd-sync-waves/--no-argocd-sync-waves", default=None,
              help="Annotate objects with Argo CD sync waves: ConfigMap, then TestWorkflow, then TestTrigger.")
@click.option("--defaults", "defaults_file", type=click.Path(dir_okay=False), default=None,
              help="A RenderDefaults file (default: the nearest testbench-defaults.yaml next to each Experiment).")
@click.option("--no-defaults", is_flag=True, help="Do not look for testbench-defaults.yaml files.")
@click.option("--strict", is_flag=True, help="Refuse to render when there are warnings.")
@jobs_option
@limits_options
def render(paths: tuple[str, ...], fmt: str, output_dir: str | None, check: bool, namespace: str,
           testkube_namespace: str | None, agent_url: str | None, agent_port: int | None, gateway_url: str | None,
           gateway_port: int | None, include_experiment: bool, argocd_sync_waves: bool | None,
           defaults_file: str | None, no_defaults: bool, strict: bool, jobs: int | None, max_file_mib: int,
           max_depth: int, max_nodes: int) -> None:
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
    from kubectl_testbench.render.pipeline import Request, collision, render_paths
    from kubectl_testbench.render.settings import Flags
    from kubectl_testbench.validate.diagnostics import Counts, Diagnostic, Severity
    from kubectl_testbench.validate.report import text_line

    flags = Flags(namespace=namespace, testkube_namespace=testkube_namespace, agent_url=agent_url,
                  agent_port=agent_port, gateway_url=gateway_url, gateway_port=gateway_port,
                  include_experiment=include_experiment, argocd_sync_waves=argocd_sync_waves)
    request = Request(flags=flags, defaults_file=defaults_file, discover_defaults=not no_defaults, fmt=fmt,
                      strict=strict, limits=limits_from(max_file_mib, max_depth, max_nodes))
    counts = Counts()
    problems: list[Diagnostic] = []
    try:
        sink = _sink(fmt, output_dir, check)
    except OutputDirError as err:
        fail(str(err), EXIT_FINDINGS)
    try:
        for file_render in render_paths(paths, request, jobs):
            counts.add(file_render.result.counts)
            for d in file_render.result.diagnostics:
                if d.severity is Severity.ERROR or (strict and d.severity is Severity.WARNING):
                    problems.append(d)
                elif d.severity is Severity.WARNING:
                    click.echo(text_line(d), err=True, nl=False)
            for obj in file_render.objects:
                first = sink.add(obj)
                if first is not None:
                    problems.append(collision(obj, first))
        if problems or counts.unreadable:
            sink.abort()
            for d in problems:
                click.echo(text_line(d), err=True, nl=False)
            click.echo(f"error: nothing rendered: {counts.summary()}", err=True)
            sys.exit(EXIT_USAGE if counts.unreadable else EXIT_FINDINGS)
        _finish(sink, output_dir)
    except OutputDirError as err:
        sink.abort()
        fail(str(err), EXIT_FINDINGS)
    except BaseException:
        sink.abort()
        raise


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
        click.echo(f"{output_dir}: {count} objects; {len(changes.added)} added, {len(changes.changed)} changed, "
                   f"{len(changes.removed)} removed", err=True)
