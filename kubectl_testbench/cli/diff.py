"""``kubectl testbench diff``: what ``apply`` would change, as unified diffs, exit 1 when anything would."""

from __future__ import annotations

import sys

import click

from kubectl_testbench.cli.cluster_options import cluster_errors, cluster_options, connect, namespace_and_source
from kubectl_testbench.cli.common import EXIT_FINDINGS, fail
from kubectl_testbench.cli.render_options import RenderArgs, render_options, render_or_exit
from kubectl_testbench.cluster.config import ClusterOptions


@click.command(epilog="Exit codes: 0 no differences, 1 differences, 2 usage or unreadable input, 3 cluster error "
               "(unreachable, timeout, RBAC, missing CRD, field conflict), as kubectl diff (which uses >1 for all "
               "errors).")
@click.argument("paths", nargs=-1, metavar="PATH...")
@click.option("--force-conflicts", is_flag=True,
              help="Diff as if applying with --force-conflicts (otherwise a field conflict is an error).")
@click.option("--local", is_flag=True,
              help="Compare only the fields we set against the live object, with GETs only (no server-side "
              "dry run, so no patch permission needed; server defaults and webhooks are not seen).")
@click.option("--prune", is_flag=True, help="Also show the objects apply --prune would delete.")
@click.option("--prune-experiment-namespace", metavar="NAMESPACE", default=None,
              help="With --prune: only consider objects of Experiments in this namespace.")
@cluster_options
@render_options
def diff(paths: tuple[str, ...], force_conflicts: bool, local: bool, prune: bool,
         prune_experiment_namespace: str | None, cluster: ClusterOptions, render: RenderArgs) -> None:
    """Show what kubectl testbench apply would change in the cluster, like kubectl diff --server-side.

    Each object the input renders to is sent as a server-side apply with dryRun=All; the API server's
    answer is compared with the live object, leaving out what the server maintains itself
    (managedFields, resourceVersion, uid, creationTimestamp, generation, status). The diff goes to
    stdout with kubectl diff's headers (diff -u -N LIVE/<group.version.Kind.namespace.name> MERGED/…).
    """
    if not paths:
        fail("no input: give files, directories or - for stdin (see kubectl testbench diff --help)")
    if prune_experiment_namespace and not prune:
        fail("--prune-experiment-namespace needs --prune")
    from kubectl_testbench.cluster.apply import apply_order, kinds_of, preflight
    from kubectl_testbench.cluster.diff import diff_deletion, diff_object, kubectl_order

    namespace, source = namespace_and_source(cluster)
    rendered = render_or_exit(paths, namespace, render, "json", refused="nothing compared", namespace_source=source)
    objects = apply_order(o.data for o in rendered if o.data is not None)
    client = connect(cluster)
    with cluster_errors():
        preflight(client, kinds_of(objects))
        found = [diff_object(client, obj, force=force_conflicts, local=local) for obj in objects]
        if prune:
            from kubectl_testbench.cli.prune import warn
            from kubectl_testbench.cluster.prune import find_stale, prune_namespaces
            from kubectl_testbench.layout import TESTKUBE_NAMESPACE

            namespaces = prune_namespaces(objects, render.testkube_namespace or TESTKUBE_NAMESPACE)
            found += [diff_deletion(item.ref, item.live) for item in
                      find_stale(client, objects, namespaces, experiment_namespace=prune_experiment_namespace,
                                 warn=warn)]
    changed = [d for d in kubectl_order(found) if d.text]  # printed only once all are known, as kubectl does
    for d in changed:
        click.echo(_escaped(d.text), nl=False)
    total = len(objects)
    if changed:
        click.echo(f"{len(changed)} of {total} objects would change" if not prune
                   else f"{len(changed)} objects would change", err=True)
        sys.exit(EXIT_FINDINGS)
    click.echo(f"no differences ({total} objects)", err=True)


def _escaped(text: str) -> str:
    """A diff of live objects, each line safe for a terminal and a CI log (the live side is cluster text)."""
    from kubectl_testbench.safe_text import safe_log_line

    return "\n".join(safe_log_line(line) for line in text.split("\n"))
