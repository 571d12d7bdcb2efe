"""``kubectl testbench crd`` and ``kubectl testbench schema``: the generated artefacts."""

from __future__ import annotations

import json

import click

from kubectl_testbench.cli.output import emit, output_file_option


@click.command()
@click.option("-o", "--output", "fmt", type=click.Choice(("yaml", "json")), default="yaml", show_default=True)
@output_file_option
def crd(fmt: str, output_file: str | None) -> None:
    """Print the Experiment CustomResourceDefinition generated from the models.

    The same bytes are committed as schemas/testbench.agentic-layer.ai_experiments.yaml and shipped in
    install.yaml. Apply it with: kubectl testbench crd | kubectl apply --server-side -f -
    """
    from kubectl_testbench.crd.document import crd_document, crd_yaml

    text = crd_yaml() if fmt == "yaml" else json.dumps(crd_document(), indent=2) + "\n"
    emit(text, output_file)


@click.command()
@output_file_option
def schema(output_file: str | None) -> None:
    """Print a JSON Schema (draft-07) of the Experiment for editors and schema checkers.

    For yaml-language-server put this line at the top of an Experiment file:

    \b
      # yaml-language-server: $schema=<path or URL of schemas/experiment.schema.json>
    """
    from kubectl_testbench.crd.jsonschema import json_schema_text

    emit(json_schema_text(), output_file)
