"""``kubectl testbench status``: Experiments, their workflows and last executions, as a table or data."""

from __future__ import annotations

import json
import sys

import click

from kubectl_testbench.cli.cluster_options import EXIT_CODES_HELP, cluster_errors, cluster_options, connect
from kubectl_testbench.cli.common import EXIT_USAGE
from kubectl_testbench.cli.run import complete_experiments
from kubectl_testbench.cluster.config import ClusterOptions


@click.command(epilog=EXIT_CODES_HELP)
@click.argument("experiment", required=False, shell_complete=complete_experiments)
@click.option("-A", "--all-namespaces", is_flag=True, help="Experiments of every namespace.")
@click.option("--testkube-namespace", default=None, help="Namespace of Testkube and the workflows [testkube].")
@click.option("-o", "--output", "fmt", type=click.Choice(("table", "yaml", "json")), default="table",
              show_default=True, help="Output format.")
@cluster_options
def status(experiment: str | None, all_namespaces: bool, testkube_namespace: str | None, fmt: str,
           cluster: ClusterOptions) -> None:
    """Show Experiments with agent, dataset mode, schedule, trigger, workflow and last execution.

    Rows come from Experiment resources when the Experiment CRD is installed, and from the TestWorkflows
    generated for Experiments (GitOps mode: the Experiment lives only in git); the SOURCE column says
    which. The last execution is Testkube's record on the TestWorkflow, else the newest
    TestWorkflowExecution, else the Experiment's status.lastExecution.
    """
    from kubectl_testbench.cluster.status import collect, table
    from kubectl_testbench.layout import TESTKUBE_NAMESPACE
    from kubectl_testbench.safe_text import safe_log_line

    client = connect(cluster)
    namespace = None if all_namespaces else client.connection.namespace
    with cluster_errors():
        report = collect(client, namespace, testkube_namespace or TESTKUBE_NAMESPACE, experiment)
    for note in report.notes:
        click.echo(safe_log_line(f"note: {note}"), err=True)
    if experiment is not None and not report.rows:
        where = "any namespace" if all_namespaces else f'namespace "{namespace}"'
        click.echo(safe_log_line(f'error: Experiment "{experiment}" not found in {where}: neither an Experiment '
                                 "resource nor a TestWorkflow generated for it"), err=True)
        sys.exit(EXIT_USAGE)
    if fmt == "table":
        if not report.rows:
            where = "any namespace" if all_namespaces else f"namespace {namespace}"
            click.echo(safe_log_line(f"No Experiments found in {where}."), err=True)
            return
        click.echo(table(report, all_namespaces), nl=False)
        return
    data = {"sources": {"experimentCRD": report.experiment_crd, "testkube": report.testkube},
            "items": [row.as_dict() for row in report.rows]}
    if fmt == "json":
        click.echo(json.dumps(data, indent=4, ensure_ascii=False))
    else:
        from kubectl_testbench.emit.yamlout import dump

        click.echo(dump(data), nl=False)
