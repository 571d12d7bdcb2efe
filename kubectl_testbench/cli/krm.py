"""``kubectl testbench krm``: the KRM function (and kustomize exec plugin) entry point."""

from __future__ import annotations

import sys

import click

from kubectl_testbench.cli.common import EXIT_FINDINGS, EXIT_USAGE, fail


@click.command()
@click.argument("config", required=False, type=click.Path(dir_okay=False))
def krm(config: str | None) -> None:
    """Render (or only validate) the Experiments in a ResourceList read from stdin.

    \b
    KRM function: stdin is a ResourceList (config.kubernetes.io/v1); stdout the same list with every
    valid Experiment replaced by its ConfigMap/TestWorkflow/TestTrigger, other items untouched, and
    problems as results (severity, resourceRef, field.path, file.path). Configure it through the
    functionConfig's data: mode (render|validate), namespace, testkube-namespace, agent-url,
    agent-port, ai-gateway-url, ai-gateway-port, include-experiment, argocd-sync-waves, strict.
      kustomize build --enable-alpha-plugins --enable-exec DIR   (transformers: with an exec function)
      kpt fn eval DIR --exec "kubectl-testbench krm" --fn-config render.yaml

    \b
    kustomize exec plugin: when stdin is a plain stream of resources, CONFIG is the plugin's config
    file and stdout the transformed stream. This is what kubectl kustomize --enable-alpha-plugins
    runs, since kubectl has no --enable-exec.

    Exit codes: 0 no error results, 1 error results (the output is still written), 2 unreadable input.
    """
    from kubectl_testbench.emit.yamlout import dump, dump_all
    from kubectl_testbench.integrations.krm import (
        RESOURCE_LIST,
        InputError,
        has_errors,
        load_documents,
        process,
        rejected_input,
        transform,
        write_resource_list,
    )

    try:
        source = sys.stdin.buffer.read().decode("utf-8-sig")
        docs = load_documents(source)
    except (InputError, UnicodeDecodeError) as err:
        fail(str(err))
    try:
        if config is None and len(docs) == 1 and isinstance(docs[0], dict) and docs[0].get("kind") == RESOURCE_LIST:
            out, results = process(docs[0])
            text = write_resource_list(out, docs[0], source)
        elif config is None:
            out, results = rejected_input(docs)
            text = dump(out)
        else:
            function_config = _read_config(config) if config else None
            items, results = transform(docs, function_config)
            text = dump_all(items) if items else ""
    except InputError as err:
        fail(str(err))
    for result in results:
        if result.severity != "info":
            click.echo(result.text(), err=True)
    click.echo(text, nl=False)
    if has_errors(results):
        sys.exit(EXIT_FINDINGS)


def _read_config(path: str) -> object:
    from kubectl_testbench.integrations.krm import InputError, load_documents

    try:
        with open(path, encoding="utf-8-sig") as handle:
            docs = load_documents(handle.read())
    except OSError as err:
        fail(f"cannot read {path}: {err.strerror or err}", EXIT_USAGE)
    except InputError as err:
        fail(f"{path}: {err}", EXIT_USAGE)
    return docs[0] if docs else None
