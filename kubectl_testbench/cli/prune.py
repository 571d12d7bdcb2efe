"""``kubectl testbench prune``: delete what kubectl-testbench applied earlier and the input no longer has."""

from __future__ import annotations

from typing import Any

import click

from kubectl_testbench.cli.cluster_options import (
    EXIT_CODES_HELP,
    cluster_errors,
    cluster_options,
    connect,
    namespace_and_source,
)
from kubectl_testbench.cli.common import EXIT_USAGE, fail
from kubectl_testbench.cli.render_options import RenderArgs, render_options, render_or_exit
from kubectl_testbench.cluster.config import ClusterOptions


@click.command(epilog=EXIT_CODES_HELP)
@click.argument("paths", nargs=-1, metavar="PATH...")
@click.option("--dry-run", type=click.Choice(("none", "client", "server")), default="none", show_default=True,
              help="client: only list what would be deleted; server: delete with dryRun=All.")
@click.option("--prune-experiment-namespace", metavar="NAMESPACE", default=None,
              help="Only consider objects of Experiments in this namespace.")
@click.option("--allow-empty", is_flag=True,
              help="Accept an input without Experiments (or no PATH at all): everything in scope is deleted.")
@cluster_options
@render_options
def prune(paths: tuple[str, ...], dry_run: str, prune_experiment_namespace: str | None, allow_empty: bool,
          cluster: ClusterOptions, render: RenderArgs) -> None:
    """Delete objects kubectl-testbench created for Experiments that are no longer in PATH.

    Looks only at ConfigMaps, TestWorkflows and TestTriggers labelled
    app.kubernetes.io/managed-by=kubectl-testbench in the Testkube namespace (the one the input renders
    to, and --testkube-namespace); objects without that label are never touched, Experiments never.
    The input is rendered with the same flags as apply, so an Experiment that no longer generates an
    object (a disabled trigger) loses it too. Same as kubectl testbench apply --prune without the apply.
    """
    if not paths and not allow_empty:
        fail("no input: give the files or directories that hold all your Experiments, or --allow-empty "
             "to delete everything kubectl-testbench created in scope")
    namespace, source = namespace_and_source(cluster)
    rendered = render_or_exit(paths, namespace, render, "json", refused="nothing pruned",
                              namespace_source=source) if paths else []
    objects = [o.data for o in rendered if o.data is not None]
    if not objects and not allow_empty:
        fail("the input holds no Experiments or rendered manifests: pruning would delete everything "
             "kubectl-testbench created in scope; pass --allow-empty if that is what you want", EXIT_USAGE)
    prune_stale(cluster, objects, render, prune_experiment_namespace, dry_run, None)


def prune_stale(cluster: ClusterOptions, objects: list[dict[str, Any]], render: RenderArgs,
                experiment_namespace: str | None, dry_run: str, client: Any) -> None:
    """List stale objects and delete them (or say what would be deleted); ``<ref> pruned`` lines on stderr."""
    from kubectl_testbench.cluster.prune import delete_stale, find_stale, prune_namespaces
    from kubectl_testbench.layout import TESTKUBE_NAMESPACE
    from kubectl_testbench.safe_text import safe_log_line

    if client is None:
        client = connect(cluster)
    namespaces = prune_namespaces(objects, render.testkube_namespace or TESTKUBE_NAMESPACE)
    suffix = {"client": " (dry run)", "server": " (server dry run)"}.get(dry_run, "")
    with cluster_errors():
        stale = find_stale(client, objects, namespaces, experiment_namespace=experiment_namespace, warn=warn)
        for item in stale:
            if dry_run != "client" and not delete_stale(client, item, dry_run=dry_run == "server"):
                continue  # gone meanwhile
            exp_ns, exp_name = item.experiment
            click.echo(safe_log_line(f"{item.ref} pruned{suffix} ({item.reason}: {exp_ns}/{exp_name})"), err=True)
    if not stale:
        click.echo(safe_log_line(f"nothing to prune in namespace {', '.join(namespaces)}"), err=True)


def warn(message: str) -> None:
    """A listed object prune skipped because the server should not have listed it (cluster text: escaped)."""
    from kubectl_testbench.safe_text import safe_log_line

    click.echo(safe_log_line(f"warning: {message}"), err=True)
