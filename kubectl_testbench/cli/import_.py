"""``kubectl testbench import``: other agent-evaluation datasets → one Experiment."""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from kubectl_testbench.cli.common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, fail, limits_from, limits_options
from kubectl_testbench.model.constants import DEFAULT_JUDGE_MODEL
from kubectl_testbench.rules.semantic import SEMANTIC_INLINE_SIZE, SEMANTIC_INLINE_SIZE_NEAR, SEMANTIC_METRIC_REFERENCE
from kubectl_testbench.words import plural

FORMAT_NAMES = ("adk", "agentv", "csv", "json", "orloj", "parquet")
"""The keys of ``integrations.importers.FORMATS`` (kept here so that --help imports nothing heavy)."""
AUTO = "auto"

_COVERED_BY_IMPORTER = frozenset({SEMANTIC_METRIC_REFERENCE.id})
"""Validator findings the importer already reports at their source position."""
_INLINE_ONLY = frozenset({SEMANTIC_INLINE_SIZE.id, SEMANTIC_INLINE_SIZE_NEAR.id})
"""Findings about the ConfigMap that an S3/URL dataset never becomes."""


@click.command("import")
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option("--from", "source_format", required=True, type=click.Choice((AUTO, *FORMAT_NAMES)),
              help="Format of the input: adk (EvalSet, *.test.json), agentv (suite.yaml, *.eval.yaml), orloj "
                   "(EvalDataset), csv, json or parquet (tables of RAGAS rows), or auto: each file's format is "
                   "detected and said on stderr (a directory may mix formats).")
@click.option("--config", "config_file", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="ADK: the eval config (criteria, rubrics) as given to adk eval --config_file_path, instead of "
                   "the test_config.json beside each file.")
@click.option("--name", required=True, help="Name of the Experiment (metadata.name).")
@click.option("--agent", required=True, help="Name of the Agent to evaluate (spec.agentRef.name).")
@click.option("--agent-namespace", default=None, help="Namespace of the Agent (default: the Experiment's).")
@click.option("-n", "--namespace", default=None, help="Namespace of the Experiment.")
@click.option("--gateway", default=None, help="AiGateway for the LLM judge (spec.aiGatewayRef.name).")
@click.option("--gateway-namespace", default=None, help="Namespace of the AiGateway.")
@click.option("--judge-model", default=None,
              help=f"LLM judge model (llmAsAJudgeModel). Default: the source's judge model, else "
                   f"{DEFAULT_JUDGE_MODEL}.")
@click.option("--default-threshold", type=click.FloatRange(0, 1), default=None,
              help="defaultThreshold of the dataset (overrides the source's).")
@click.option("--metric", "metrics", multiple=True, metavar="NAME[=THRESHOLD]",
              help="Score every step with these RAGAS metrics instead of the ones derived from the source "
                   "(repeatable).")
@click.option("-o", "--output", "output_format", type=click.Choice(("yaml", "json")), default="yaml",
              show_default=True, help="Format of the Experiment.")
@click.option("--output-file", type=click.Path(dir_okay=False), default=None,
              help="Write the Experiment to this file (atomically) instead of stdout.")
@click.option("--dataset-out", type=click.Path(dir_okay=False), default=None, metavar="FILE.json",
              help="Write the dataset as the experiment.json the run phase reads (to upload to S3 or a web "
                   "server); the Experiment then references it (needs --s3-bucket or --dataset-url).")
@click.option("--s3-bucket", default=None, help="With --dataset-out: the bucket it will be uploaded to "
                                                "(spec.dataset.s3.bucket).")
@click.option("--s3-key", default=None, help="With --s3-bucket: the object key (default: the file name of "
                                             "--dataset-out).")
@click.option("--dataset-url", default=None, help="With --dataset-out: the http(s) URL it will be served from "
                                                  "(spec.dataset.url).")
@click.option("--strict", is_flag=True, help="Exit 1 and write nothing when any case was changed or dropped (any "
                                             "warning).")
@click.option("--report", "report_format", type=click.Choice(("text", "json")), default="text", show_default=True,
              help="The fidelity report on stderr (one entry per source case: carried, carried with changes, "
                   "dropped): lines after the warnings, or one JSON document with everything instead.")
@limits_options
def import_cmd(paths: tuple[str, ...], source_format: str, name: str, agent: str, agent_namespace: str | None,
               namespace: str | None, gateway: str | None, gateway_namespace: str | None, judge_model: str | None,
               default_threshold: float | None, metrics: tuple[str, ...], output_format: str,
               output_file: str | None, dataset_out: str | None, s3_bucket: str | None, s3_key: str | None,
               dataset_url: str | None, strict: bool, report_format: str, config_file: str | None,
               max_file_mib: int, max_depth: int,
               max_nodes: int) -> int:
    """Convert other agent-evaluation datasets into one Experiment with an inline dataset.

    PATH is a file, a directory (searched recursively for the format's files) or - for stdin. Every field
    that cannot be carried over is reported on stderr with its file:line:col; the Experiment is validated
    before anything is written. See docs/import.md for the mapping of each format.

    Exit codes: 0 written, 1 the result is invalid (or has warnings with --strict), 2 unreadable or
    unsupported input, or a usage error.
    """
    from kubectl_testbench.integrations.importers import ImportInputError, ImportOptions, import_dataset
    from kubectl_testbench.integrations.importers.common import MetricSpec, external_experiment, parse_metric_option

    key = _check_destination(dataset_out, s3_bucket, s3_key, dataset_url, output_file)
    if config_file is not None and source_format not in ("adk", AUTO):
        fail("--config names an ADK eval config: use it with --from adk (or auto)")
    chosen: list[MetricSpec] = []
    for text in metrics:
        try:
            chosen.append(parse_metric_option(text))
        except ValueError as err:
            fail(f"--metric {err}")
    options = ImportOptions(name=name, agent=agent, agent_namespace=agent_namespace, namespace=namespace,
                            gateway=gateway, gateway_namespace=gateway_namespace, judge_model=judge_model,
                            default_threshold=default_threshold, metrics=tuple(chosen), config=config_file,
                            limits=limits_from(max_file_mib, max_depth, max_nodes))
    try:
        result = import_dataset(source_format, paths, options)
    except ImportInputError as err:
        fail(str(err), EXIT_USAGE)
    as_json = report_format == "json"
    if not as_json:
        from kubectl_testbench.safe_text import display_path

        for path, fmt, why in result.detected:
            click.echo(f"{display_path(path)}: detected {fmt} ({why})", err=True)
        for warning in result.warnings:
            click.echo(_warning_line(warning), err=True)

    experiment = result.experiment
    if dataset_out is not None:
        experiment = (external_experiment(experiment, url=dataset_url) if dataset_url is not None
                      else external_experiment(experiment, bucket=s3_bucket, key=key))
    text = _render(experiment, output_format)
    findings = _validate(result.experiment, experiment, text, output_format, output_file, dataset_out is not None)
    errors = [d for d in findings if d.severity.value == "error"]
    warnings = [d for d in findings if d.severity.value != "error"]
    from kubectl_testbench.integrations.importers.report import json_document, summary, text_lines
    from kubectl_testbench.validate.report import text_line

    finding_lines = [text_line(d).rstrip("\n") for d in [*errors, *warnings]]
    if not as_json:
        for line in [*finding_lines, *text_lines(result)]:
            click.echo(line, err=True)
    counted = _summary(result.scenario_count, result.step_count, len(result.sources),
                       len(result.warnings) + len(warnings))
    counted = f"{counted}; {summary(result)}"

    def stop(outcome: str, message: str) -> None:
        if as_json:
            click.echo(json_document(result, outcome=outcome, findings=finding_lines), err=True, nl=False)
            sys.exit(EXIT_FINDINGS)
        fail(message, EXIT_FINDINGS)

    if errors:
        stop("invalid", f"the imported Experiment is invalid; nothing was written ({counted})")
    if strict and (result.warnings or warnings):
        stop("strict", f"--strict: a case was changed or dropped (see the warnings); nothing was written ({counted})")

    from kubectl_testbench.cli.output import emit
    from kubectl_testbench.emit.files import write_atomic

    if dataset_out is not None:
        from kubectl_testbench.model.experiment_json import experiment_json

        try:
            write_atomic(dataset_out, experiment_json(result.inline) + "\n")
        except OSError as err:
            fail(f"cannot write {dataset_out}: {err.strerror or err}", EXIT_USAGE)
    emit(text, output_file)
    if as_json:
        click.echo(json_document(result, outcome="written", findings=finding_lines), err=True, nl=False)
    else:
        click.echo(f"imported {counted}", err=True)
        if gateway is None and output_file is None:  # with a file, the semantic/no-gateway finding said it
            from kubectl_testbench.cli.gateway_notice import no_gateway_notice

            click.echo(no_gateway_notice(), err=True)
    return EXIT_OK


def _warning_line(warning: Any) -> str:
    """An import warning as one safe log line (file names and messages quote the input)."""
    from kubectl_testbench.safe_text import display_path, escape_controls

    where = display_path(warning.location)
    field = f" ({escape_controls(warning.field)})" if warning.field else ""
    return f"{where}: warning: {escape_controls(warning.message)}{field}"


def _check_destination(dataset_out: str | None, bucket: str | None, key: str | None, url: str | None,
                       output_file: str | None) -> str | None:
    """Usage errors in the destination options (a file in a directory that does not exist included: exit 2, as
    a usage error, never 1, which means the imported Experiment is invalid); the S3 key to use."""
    for flag, path in (("--output-file", output_file), ("--dataset-out", dataset_out)):
        parent = os.path.dirname(path) if path is not None else ""
        if parent and not os.path.isdir(parent):
            fail(f"{flag} {path}: the directory {parent} does not exist (create it first)")
    if dataset_out is None:
        given = [flag for flag, value in (("--s3-bucket", bucket), ("--s3-key", key), ("--dataset-url", url))
                 if value is not None]
        if given:
            fail(f"{', '.join(given)} describe where --dataset-out is uploaded: add --dataset-out FILE.json")
        return None
    if url is not None and (bucket is not None or key is not None):
        fail("--dataset-url and --s3-bucket/--s3-key are alternatives: give one of them")
    if url is None and bucket is None:
        fail("--dataset-out needs --s3-bucket BUCKET [--s3-key KEY] or --dataset-url URL: the Experiment must say "
             "where the file will be uploaded")
    if output_file is not None and os.path.abspath(output_file) == os.path.abspath(dataset_out):
        fail("--dataset-out and --output-file name the same file")
    return key if key is not None else os.path.basename(dataset_out)


def _render(experiment: dict[str, Any], output_format: str) -> str:
    if output_format == "json":
        import json

        return json.dumps(experiment, indent=2, ensure_ascii=False) + "\n"
    from kubectl_testbench.emit.yamlout import dump
    from kubectl_testbench.starter import SCHEMA_COMMENT

    return SCHEMA_COMMENT + dump(experiment)


def _validate(inline: dict[str, Any], written: dict[str, Any], text: str, output_format: str,
              output_file: str | None, external: bool) -> list[Any]:
    """Findings on the Experiment as written; with an external dataset, also on its content (as if inline)."""
    from dataclasses import replace

    from kubectl_testbench.validate.engine import validate_text

    label = output_file or "<import>"
    found = [d for d in validate_text(text, label, gateway_default=lambda: _gateway_known(output_file),
                                      minio_default=lambda: _minio_known(output_file)).diagnostics
             if d.rule not in _COVERED_BY_IMPORTER]
    if external:
        dataset = validate_text(_render(inline, output_format), f"{label} (dataset)").diagnostics
        found.extend(d for d in dataset if d.rule not in _COVERED_BY_IMPORTER | _INLINE_ONLY
                     and d.path.startswith("spec.dataset"))
    return [replace(d, hint="write the dataset to a file for S3 instead: --dataset-out FILE.json --s3-bucket BUCKET")
            if d.rule == SEMANTIC_INLINE_SIZE.id else d for d in found]


def _gateway_known(output_file: str | None) -> bool:
    """Whether the Experiment will have an AI gateway where it lands: a testbench-defaults.yaml naming one next to
    ``--output-file``. On stdout the destination is unknown: the finding is left out and a notice said instead."""
    from kubectl_testbench.cli.gateway_notice import gateway_known

    return output_file is None or gateway_known(output_file)


def _minio_known(output_file: str | None) -> bool:
    """Whether a testbench-defaults.yaml next to ``--output-file`` sets the setup phase's MinIO settings; on stdout
    the destination is unknown, so the check is left to validate/render."""
    if output_file is None:
        return True
    import os

    from kubectl_testbench.load.sources import Source
    from kubectl_testbench.pipeline.defaults import sets_minio

    return sets_minio(Source(output_file, root=os.path.dirname(os.path.abspath(output_file))))


def _summary(scenarios: int, steps: int, files: int, warnings: int) -> str:
    return (f"{plural(scenarios, 'scenario')} ({plural(steps, 'step')}) from {plural(files, 'file')}, "
            f"{plural(warnings, 'warning')}")
