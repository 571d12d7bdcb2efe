"""``kubectl testbench explain``."""

from __future__ import annotations

import click

from kubectl_testbench.cli.common import fail


@click.command()
@click.argument("field", default="experiment")
@click.option("--recursive", is_flag=True, help="Print the names of all nested fields.")
def explain(field: str, recursive: bool) -> None:
    """Describe FIELD of the Experiment (e.g. experiment.spec.dataset.inline), like kubectl explain.

    "kubectl testbench explain metrics" lists the RAGAS metric names and the reference data each needs.
    """
    from kubectl_testbench.crd.explain import ExplainError, metrics_table
    from kubectl_testbench.crd.explain import explain as render_explain
    from kubectl_testbench.validate.crdschema import open_api_schema

    if field.lower() in ("metrics", "metric"):
        click.echo(metrics_table(), nl=False)
        return
    try:
        click.echo(render_explain(open_api_schema(), field, recursive), nl=False)
    except ExplainError as err:
        fail(str(err))
