"""``kubectl testbench apply``: validate, render, server-side apply in dependency order, optionally prune."""

from __future__ import annotations

import json
import sys
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

OUTPUTS = ("yaml", "json", "name")


@click.command(epilog=EXIT_CODES_HELP)
@click.argument("paths", nargs=-1, metavar="PATH...")
@click.option("--dry-run", type=click.Choice(("none", "client", "server")), default="none", show_default=True,
              help="client: print what would be sent and send nothing; server: send with dryRun=All, so the "
              "API server validates and merges but stores nothing.")
@click.option("--force-conflicts", is_flag=True,
              help="Take over fields that another field manager owns (server-side apply with force=true).")
@click.option("--prune", is_flag=True,
              help="Afterwards delete objects labelled app.kubernetes.io/managed-by=kubectl-testbench whose "
              "Experiment is no longer in the input (or that it no longer generates), in the Testkube namespace.")
@click.option("--prune-experiment-namespace", metavar="NAMESPACE", default=None,
              help="With --prune: only consider objects of Experiments in this namespace.")
@click.option("--allow-empty", is_flag=True,
              help="Accept an input without Experiments (with --prune: prune everything in scope).")
@click.option("-o", "--output", "fmt", type=click.Choice(OUTPUTS), default=None,
              help="Print the applied objects as the API server returned them (name: kind/name lines). "
              "Default: nothing, or yaml with --dry-run=client.")
@cluster_options
@render_options
def apply(paths: tuple[str, ...], dry_run: str, force_conflicts: bool, prune: bool,
          prune_experiment_namespace: str | None, allow_empty: bool, fmt: str | None, cluster: ClusterOptions,
          render: RenderArgs) -> None:
    """Apply Experiments to the cluster as their Testkube objects, like kubectl apply --server-side.

    PATH is a file, a directory or - for stdin; a directory that render wrote works too (its objects
    are sent as they are). Everything is validated and rendered first exactly as
    kubectl testbench render does (same flags); any error means nothing is sent. Objects are applied in
    dependency order (ConfigMap, TestWorkflow, TestTrigger, then the Experiment with --include-experiment)
    with field manager kubectl-testbench. -n sets the namespace of Experiments without one (default:
    the context's namespace).

    A failure part-way reports what was applied and what was not; server-side apply is idempotent, so
    running the same command again is safe. Progress goes to stderr. Examples:

    \b
      kubectl testbench apply experiments/
      kubectl testbench apply experiments/ --dry-run=server
      kubectl testbench apply experiments/ --prune --prune-experiment-namespace team-a
    """
    if not paths and not allow_empty:
        fail("no input: give files, directories or - for stdin (see kubectl testbench apply --help)")
    if prune_experiment_namespace and not prune:
        fail("--prune-experiment-namespace needs --prune")
    namespace, source = namespace_and_source(cluster)
    rendered = render_or_exit(paths, namespace, render, "json", refused="nothing applied",
                              namespace_source=source) if paths else []
    from kubectl_testbench.cluster.apply import apply_order

    objects = apply_order(o.data for o in rendered if o.data is not None)
    if not objects and not allow_empty:
        fail("the input holds no Experiments or rendered manifests: nothing to apply (pass --allow-empty to "
             "accept that; with --prune it deletes everything kubectl-testbench created in scope)", EXIT_USAGE)
    if dry_run == "client":
        _client_dry_run(objects, fmt or "yaml")
        if prune:
            _prune(cluster, objects, render, prune_experiment_namespace, dry_run, None)
        return
    client = connect(cluster)
    results = _apply(client, objects, force_conflicts, dry_run == "server")
    if prune:
        _prune(cluster, objects, render, prune_experiment_namespace, dry_run, client)
    if fmt:
        _print(results, fmt, objects)


def _suffix(dry_run: str) -> str:
    return {"client": " (dry run)", "server": " (server dry run)"}.get(dry_run, "")


def _client_dry_run(objects: list[dict[str, Any]], fmt: str) -> None:
    """Print what would be sent (body and request line), send nothing."""
    from kubectl_testbench.cluster.apply import FIELD_MANAGER
    from kubectl_testbench.cluster.client import apply_query
    from kubectl_testbench.cluster.resources import Ref

    for obj in objects:
        ref = Ref.of(obj)
        query = "&".join(f"{k}={v}" for k, v in apply_query(FIELD_MANAGER, False, False))
        click.echo(f"{ref} serverside-applied (dry run): PATCH {ref.path}?{query}", err=True)
    _print(objects, fmt)


def _apply(client: Any, objects: list[dict[str, Any]], force: bool, server_dry_run: bool) -> list[dict[str, Any]]:
    from kubectl_testbench.cluster.apply import ApplyError, apply_objects, kinds_of, preflight

    results: list[dict[str, Any]] = []
    with cluster_errors():
        preflight(client, kinds_of(objects))
    try:
        for applied in apply_objects(client, objects, force=force, dry_run=server_dry_run):
            click.echo(f"{applied.ref} serverside-applied{_suffix('server' if server_dry_run else 'none')}",
                       err=True)
            results.append(applied.result)
    except ApplyError as err:
        click.echo(f"error: {err.message}", err=True)
        done = ", ".join(str(r) for r in err.applied) or "nothing"
        rest = ", ".join([f"{err.failed} (failed)"] + [str(r) for r in err.pending])
        click.echo(f"error: applied {len(err.applied)} of {len(objects)} objects ({done}); not applied: {rest}. "
                   "Server-side apply is idempotent: fix the cause and run the same command again.", err=True)
        from kubectl_testbench.cli.cluster_options import exit_code

        sys.exit(exit_code(err.cause))
    return results


def _prune(cluster: ClusterOptions, objects: list[dict[str, Any]], render: RenderArgs,
           experiment_namespace: str | None, dry_run: str, client: Any) -> None:
    from kubectl_testbench.cli.prune import prune_stale

    prune_stale(cluster, objects, render, experiment_namespace, dry_run, client)


def _print(objects: list[dict[str, Any]], fmt: str, sent: list[dict[str, Any]] | None = None) -> None:
    """``objects`` as data (yaml, json), or the names of what we ``sent`` (the server's answer may name anything)."""
    from kubectl_testbench.cluster.resources import Ref
    from kubectl_testbench.emit.yamlout import dump

    shown = [_without_managed_fields(o) for o in objects]
    if fmt == "name":
        for obj in sent if sent is not None else objects:
            click.echo(str(Ref.of(obj)))
    elif fmt == "json":
        body = shown[0] if len(shown) == 1 else {"apiVersion": "v1", "kind": "List", "items": shown}
        click.echo(json.dumps(body, indent=4, ensure_ascii=False))
    else:
        click.echo("---\n".join(dump(o) for o in shown), nl=False)


def _without_managed_fields(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata")
    if isinstance(meta, dict) and "managedFields" in meta:
        obj = {**obj, "metadata": {k: v for k, v in meta.items() if k != "managedFields"}}
    return obj

