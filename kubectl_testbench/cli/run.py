"""``kubectl testbench run``: start an Experiment's TestWorkflow and optionally wait for its result."""

from __future__ import annotations

import json
import sys
import time
from typing import TYPE_CHECKING, Any

import click
from click.shell_completion import CompletionItem

from kubectl_testbench.cli.cluster_options import (
    EXIT_CODES_HELP,
    Duration,
    cluster_errors,
    cluster_options,
    connect,
    default_namespace,
    quiet_cluster,
)
from kubectl_testbench.cli.common import EXIT_FINDINGS, fail
from kubectl_testbench.cluster.config import ClusterOptions

if TYPE_CHECKING:
    from kubectl_testbench.cluster.client import Client
    from kubectl_testbench.cluster.run import Progress, Target


def complete_experiments(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """Experiment names in the namespace: Experiment resources and generated TestWorkflows' labels."""

    def names(client: Client) -> list[str]:
        from kubectl_testbench.cluster.resources import EXPERIMENT, TESTWORKFLOW
        from kubectl_testbench.layout import TESTKUBE_NAMESPACE
        from kubectl_testbench.render import naming

        namespace = ctx.params.get("namespace") or client.connection.namespace
        found: set[str] = set()
        if client.served(EXPERIMENT):
            found.update(str(e["metadata"]["name"]) for e in client.list(EXPERIMENT, namespace))
        if client.served(TESTWORKFLOW):
            testkube = ctx.params.get("testkube_namespace") or TESTKUBE_NAMESPACE
            for wf in client.list(TESTWORKFLOW, testkube, f"{naming.LABEL_NAMESPACE}={namespace}"):
                name = ((wf.get("metadata") or {}).get("labels") or {}).get(naming.LABEL_NAME)
                if name:
                    found.add(str(name))
        return sorted(found)

    return [CompletionItem(n) for n in quiet_cluster(ctx, names) if n.startswith(incomplete)]


def _tags(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> dict[str, str]:
    tags = {}
    for value in values:
        key, sep, val = value.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"{value!r}: use KEY=VALUE", ctx, param)
        tags[key] = val
    return tags


@click.command(epilog=EXIT_CODES_HELP + " With --wait, 1 also means the execution failed, was aborted or did "
               "not finish within --timeout.")
@click.argument("experiment", shell_complete=complete_experiments)
@click.option("--testkube-namespace", default=None, help="Namespace of Testkube and the workflow [testkube].")
@click.option("--wait", is_flag=True, help="Follow the execution until it ends; exit 1 unless it passed.")
@click.option("--timeout", type=Duration(), default="30m", show_default=True,
              help="With --wait: give up waiting after this long (the execution keeps running).")
@click.option("--poll-interval", type=Duration(), default="2s", show_default=True,
              help="With --wait: how often to read the execution's status.")
@click.option("--tag", "tags", multiple=True, metavar="KEY=VALUE", callback=_tags,
              help="Testkube execution tag (repeatable).")
@click.option("--dry-run", type=click.Choice(("none", "client", "server")), default="none", show_default=True,
              help="client: print the TestWorkflowExecution and send nothing; server: create it with dryRun=All.")
@click.option("-o", "--output", "fmt", type=click.Choice(("name", "yaml", "json")), default="name",
              show_default=True, help="What to print on stdout: the execution's name, or a record of it.")
@cluster_options
def run(experiment: str, testkube_namespace: str | None, wait: bool, timeout: float, poll_interval: float,
        tags: dict[str, str], dry_run: str, fmt: str, cluster: ClusterOptions) -> None:
    """Start an evaluation: create a TestWorkflowExecution for the Experiment's TestWorkflow.

    The workflow is the one the Experiment's status names (operator), else <name>-<namespace>-workflow
    in the Testkube namespace (what render and apply create). With --wait, progress is shown on stderr
    until the execution passes, fails or is aborted; then the places of the HTML report and the
    metrics are printed. Examples:

    \b
      kubectl testbench run weather-eval -n team-a --wait
      kubectl testbench run weather-eval -n team-a -o json | jq -r .name
    """
    from kubectl_testbench.cluster import run as runlib
    from kubectl_testbench.layout import TESTKUBE_NAMESPACE
    from kubectl_testbench.render import naming

    testkube = testkube_namespace or TESTKUBE_NAMESPACE
    if dry_run == "client":
        namespace = default_namespace(cluster)
        workflow = naming.resource_name(experiment, namespace, naming.SUFFIX_WORKFLOW)
        target = runlib.Target(experiment, namespace, workflow, testkube, "naming convention")
        _emit(runlib.execution_body(target, tags), "yaml" if fmt == "name" else fmt)
        click.echo(f"testworkflowexecution would be created for TestWorkflow {testkube}/{workflow} (dry run)",
                   err=True)
        return
    if wait and dry_run == "server":
        fail("--wait cannot follow a dry run")
    client = connect(cluster)
    with cluster_errors():
        target = runlib.resolve_workflow(client, experiment, client.connection.namespace, testkube)
        created = runlib.start(client, target, tags=tags, dry_run=dry_run == "server")
    name = str((created.get("metadata") or {}).get("name") or "")
    suffix = " (server dry run)" if dry_run == "server" else ""
    click.echo(f"testworkflowexecution.testworkflows.testkube.io/{name} created{suffix} for TestWorkflow "
               f"{target.testkube_namespace}/{target.workflow} (Experiment {target.namespace}/{target.experiment})",
               err=True)
    if not wait:
        if dry_run == "none":
            click.echo(f"follow it: kubectl testbench status {experiment} -n {target.namespace}, or run with --wait",
                       err=True)
        _emit(_record(target, name, None), fmt, name)
        return
    final = _wait(client, target, name, timeout, poll_interval)
    _emit(_record(target, name, final), fmt, name)
    if not final.succeeded:
        sys.exit(EXIT_FINDINGS)


def _wait(client: Client, target: Target, name: str, timeout: float, interval: float) -> Progress:
    from kubectl_testbench.cluster.run import WaitTimeout, follow

    live = _interactive()
    started = time.monotonic()
    shown = ""
    last: Progress | None = None
    with cluster_errors():
        try:
            for p in follow(client, target.testkube_namespace, name, timeout=timeout, interval=interval):
                last = p
                line = _line(p)
                if live:
                    elapsed = int(time.monotonic() - started)
                    click.echo(f"\r\033[K{line} [{elapsed // 60}:{elapsed % 60:02d}]", err=True, nl=False, color=True)
                elif line != shown:
                    click.echo(line, err=True)
                shown = line
        except WaitTimeout as err:
            if live:
                click.echo("", err=True)
            number = f"#{err.last.number} " if err.last.number is not None else ""
            click.echo(f"error: execution {number}({name}) still {err.last.status} after {timeout:g}s (--timeout); "
                       f"it keeps running: kubectl testbench status {target.experiment} -n {target.namespace}",
                       err=True)
            sys.exit(EXIT_FINDINGS)
    if live:
        click.echo("", err=True)
    assert last is not None  # follow yields at least once or raises
    _summary(target, last)
    return last


def _interactive() -> bool:
    """A terminal gets one self-updating progress line; pipes and CI logs get a line per change."""
    return sys.stderr.isatty()


def _line(p: Progress) -> str:
    number = f"#{p.number}" if p.number is not None else p.name
    step = f": step {min(p.done + 1, p.total)}/{p.total} {p.step}" if p.step and p.status == "running" else ""
    return f"execution {number} {p.status}{step}"


def _summary(target: Target, p: Progress) -> None:
    from kubectl_testbench.cluster.run import where

    number = f"#{p.number}" if p.number is not None else p.name
    took = f" in {p.duration}" if p.duration else ""
    if p.succeeded:
        click.echo(f"execution {number} passed{took} (id {p.id or '-'})", err=True)
    else:
        at = f' at step "{p.step}"' if p.step else ""
        why = f": {p.error}" if p.error else ""
        click.echo(f"error: execution {number} {p.status}{at}{took}{why}", err=True)
    w = where(target, p)
    click.echo(f"  HTML report: artifact {w.report_artifact}: {w.download}", err=True)
    click.echo(f"               or kubectl get --raw {w.api}", err=True)
    click.echo(f"  dashboard:   <Testkube dashboard URL>{w.dashboard_path}", err=True)
    click.echo(f"  metrics:     {w.metrics} (OTLP)", err=True)


def _record(target: Target, name: str, p: Progress | None) -> dict[str, Any]:
    from kubectl_testbench.cluster.run import where

    record: dict[str, Any] = {
        "name": name, "namespace": target.testkube_namespace, "workflow": target.workflow,
        "experiment": {"name": target.experiment, "namespace": target.namespace},
    }
    if p is not None:
        w = where(target, p)
        record.update({"id": p.id, "number": p.number, "status": p.status, "duration": p.duration,
                       "error": p.error, "report": {"artifact": w.report_artifact, "download": w.download,
                                                    "api": w.api, "dashboardPath": w.dashboard_path},
                       "metrics": w.metrics})
    return record


def _emit(data: dict[str, Any], fmt: str, name: str = "") -> None:
    from kubectl_testbench.emit.yamlout import dump

    if fmt == "name":
        click.echo(f"testworkflowexecution.testworkflows.testkube.io/{name}")
    elif fmt == "json":
        click.echo(json.dumps(data, indent=4, ensure_ascii=False))
    else:
        click.echo(dump(data), nl=False)
