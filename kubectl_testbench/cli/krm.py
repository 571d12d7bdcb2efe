"""``kubectl testbench krm``: the KRM function (and kustomize exec plugin) entry point."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from kubectl_testbench.cli.common import (
    EXIT_FINDINGS,
    EXIT_USAGE,
    fail,
    limits_from,
    limits_options,
    project_config,
)
from kubectl_testbench.rules.yaml import YAML_TOO_DEEP

if TYPE_CHECKING:
    from kubectl_testbench.load.limits import Limits


@click.command()
@click.argument("config", required=False, type=click.Path(dir_okay=False))
@limits_options
def krm(config: str | None, max_file_mib: int, max_depth: int, max_nodes: int) -> None:
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

    Exit codes: 0 no error results, 1 error results (the output is still written; stdin over a reading
    limit is one, with no items), 2 unreadable input.
    """
    from kubectl_testbench.emit.yamlout import dump, dump_all
    from kubectl_testbench.integrations.documents import room_for
    from kubectl_testbench.integrations.krm import (
        RESOURCE_LIST,
        InputError,
        has_errors,
        load_documents,
        process,
        rejected_input,
        transform,
        unreadable_input,
        write_resource_list,
    )
    from kubectl_testbench.load.decode import DecodeError, decode
    from kubectl_testbench.load.sources import STDIN, Source, SourceError, read_bytes
    from kubectl_testbench.rules import LIMIT_RULES

    limits = limits_from(max_file_mib, max_depth, max_nodes)
    rules = project_config(("-",)).selection  # the working directory's configuration (the package's root)
    with room_for(limits):
        try:
            source = decode(read_bytes(Source(STDIN), limits))
            docs = load_documents(source, limits)
            if config is None and len(docs) == 1 and isinstance(docs[0], dict) \
                    and docs[0].get("kind") == RESOURCE_LIST:
                out, results = process(docs[0], limits, rules)
                text = write_resource_list(out, docs[0], source)
            elif config is None:
                out, results = rejected_input(docs)
                text = dump(out)
            else:
                function_config = _read_config(config, limits) if config else None
                items, results = transform(docs, function_config, limits, rules)
                text = dump_all(items) if items else ""
        except SourceError as err:
            if err.rule not in LIMIT_RULES:
                fail(f"stdin: {err.message}")
            out, results = unreadable_input(f"stdin: {err.message}", err.rule)
            text = "" if config else dump(out)
        except DecodeError as err:
            fail(f"stdin:{err.mark[0]}:{err.mark[1]}: {err.message}")
        except InputError as err:
            if err.problem is None or not err.problem.over_limit:
                fail(str(err))
            out, results = unreadable_input(str(err), err.problem.rule)
            text = "" if config else dump(out)
        except RecursionError:  # deeper than room_for's ceiling: only with --max-depth raised past ~2,400
            message = (f"stdin is nested too deeply to be processed (--max-depth {max_depth} let it through): "
                       "lower --max-depth to have it refused where it nests")
            out, results = unreadable_input(message, YAML_TOO_DEEP.id)
            text = "" if config else dump(out)
    for result in results:
        if result.severity != "info":
            click.echo(result.text(), err=True)
    click.echo(text, nl=False)
    if has_errors(results):
        sys.exit(EXIT_FINDINGS)


def _read_config(path: str, limits: Limits) -> object:
    """The exec plugin's config file, read like stdin (within the limits); any problem is a usage error."""
    from kubectl_testbench.integrations.krm import InputError, load_documents
    from kubectl_testbench.load.decode import DecodeError, decode
    from kubectl_testbench.load.sources import Source, SourceError, read_bytes

    try:
        docs = load_documents(decode(read_bytes(Source(path), limits)), limits, label=path)
    except SourceError as err:
        fail(f"cannot read {path}: {err.message}", EXIT_USAGE)
    except DecodeError as err:
        fail(f"{path}:{err.mark[0]}:{err.mark[1]}: {err.message}", EXIT_USAGE)
    except InputError as err:
        fail(str(err), EXIT_USAGE)
    return docs[0] if docs else None
