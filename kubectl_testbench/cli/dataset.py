"""``kubectl testbench dataset export|validate|push``: the dataset file (``experiment.json``) an S3 or URL
Experiment points at — exported from an inline Experiment, checked against the phase package's schema, uploaded
where the setup phase reads it."""

from __future__ import annotations

import os
import sys

import click

from kubectl_testbench.cli.common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, fail, limits_from, limits_options
from kubectl_testbench.safe_text import display_path

FORMATS = ("text", "json", "github", "sarif", "junit")


@click.group()
def dataset() -> None:
    """The dataset file of an S3 or URL Experiment: export, validate, push.

    A dataset file is the experiment.json the setup phase downloads (spec.dataset.s3 or
    spec.dataset.url): the snake_case form of an inline dataset. See docs/dataset.md.
    """


@dataset.command()
@click.argument("paths", nargs=-1, required=True, metavar="FILE|DIR...")
@click.option("--experiment", "wanted", metavar="[NAMESPACE/]NAME", default=None,
              help="The Experiment whose inline dataset to export (needed when the inputs hold several).")
@click.option("-o", "--output-file", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Write experiment.json to FILE (atomically; an existing FILE that changes meanwhile is left "
                   "as it is) instead of stdout.")
@limits_options
def export(paths: tuple[str, ...], wanted: str | None, output_file: str | None, max_file_mib: int, max_depth: int,
           max_nodes: int) -> None:
    """Write the experiment.json of an Experiment's inline dataset.

    The bytes are those render puts into the dataset ConfigMap. The Experiment is validated first (with
    the testbench-defaults.yaml next to it, as render does); only a valid one is exported. Upload the
    file with kubectl testbench dataset push, then replace spec.dataset.inline by spec.dataset.s3.

    Exit codes: 0 written, 1 the Experiment is invalid, 2 none or several found, unreadable input or a
    usage error.
    """
    from kubectl_testbench.dataset.export import ExportError, choose, dataset_bytes, find
    from kubectl_testbench.validate.report import text_line

    if output_file is not None and any(_same_file(output_file, p) for p in paths):
        fail(f"-o {display_path(output_file)} is one of the inputs: it would be overwritten")
    before = _digest(output_file) if output_file is not None else None
    found = find(paths, limits_from(max_file_mib, max_depth, max_nodes))
    for d in found.errors:
        click.echo(text_line(d).rstrip("\n"), err=True)
    if found.unreadable:
        fail("an input cannot be read (see above): nothing was written", EXIT_USAGE)
    try:
        chosen = choose(found, wanted)
        data = dataset_bytes(chosen)
    except ExportError as err:
        fail(err.message, err.code)
    from kubectl_testbench.dataset.export import identity

    if output_file is None:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    _write(output_file, data, before)
    click.echo(f"wrote {display_path(output_file)} ({len(data)} bytes) from Experiment {identity(chosen)}", err=True)


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _digest(path: str) -> str | None:
    """The SHA-256 of the file as it is before the run (None: absent), to notice a change made meanwhile."""
    from kubectl_testbench.emit.files import sha256_of

    try:
        with open(path, "rb") as handle:
            return sha256_of(handle.read())
    except FileNotFoundError:
        return None
    except OSError as err:
        fail(f"cannot read {display_path(path)}: {err.strerror or err}", EXIT_USAGE)


def _write(path: str, data: bytes, before: str | None) -> None:
    from kubectl_testbench.emit.files import ChangedMeanwhile, write_atomic_bytes, write_new_atomic

    try:
        if before is None:
            write_new_atomic(path, data.decode("utf-8"))
        else:
            write_atomic_bytes(path, data, keep_mode=True, expect_sha256=before)
    except (ChangedMeanwhile, FileExistsError):
        fail(f"{display_path(path)} changed while the dataset was exported: it was left as it is; run again",
             EXIT_FINDINGS)
    except OSError as err:
        fail(f"cannot write {display_path(path)}: {err.strerror or err}", EXIT_FINDINGS)


@dataset.command("validate")
@click.argument("paths", nargs=-1, required=True, metavar="FILE...")
@click.option("-o", "--output", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="Report format.")
@click.option("--strict", is_flag=True, help="Treat warnings as failures.")
@limits_options
def validate_cmd(paths: tuple[str, ...], fmt: str, strict: bool, max_file_mib: int, max_depth: int,
                 max_nodes: int) -> None:
    """Check dataset files (experiment.json) against the phase package's own schema.

    The schema is testbench/schema/experiment.schema.json of agentic-layer-testbench 0.10.0, the
    package of the phase images. Files are read as the setup phase reads them: one JSON object in
    UTF-8. Findings are located at file:line:col. A directory is searched for *.json files; - reads
    stdin.

    Exit codes: 0 valid, 1 invalid (or warnings with --strict), 2 unreadable input or a usage error.
    """
    from kubectl_testbench.load.sources import Source, SourceError, expand, read_bytes
    from kubectl_testbench.validate.dataset import check_dataset_bytes
    from kubectl_testbench.validate.diagnostics import Counts, Diagnostic, Severity
    from kubectl_testbench.validate.report import Reporter
    from kubectl_testbench.words import plural

    limits = limits_from(max_file_mib, max_depth, max_nodes)
    reporter = Reporter(fmt, root=os.environ.get("GITHUB_WORKSPACE") or None, strict=strict)
    counts = Counts()
    for item in expand(paths):
        if isinstance(item, Source) and item.scanned and not item.path.endswith(".json"):
            continue
        counts.files += 1
        try:
            if isinstance(item, SourceError):
                raise item
            found = check_dataset_bytes(read_bytes(item, limits), item.path, limits)
        except SourceError as err:  # not found, not a regular file, unreadable, over --max-file-size
            found = [Diagnostic(err.rule, Severity.ERROR, err.message, err.path)]
            counts.unreadable += 1
        counts.datasets += 1
        errors = sum(d.severity is Severity.ERROR for d in found)
        warnings = sum(d.severity is Severity.WARNING for d in found)
        counts.errors += errors
        counts.warnings += warnings
        if errors or (strict and warnings):
            counts.invalid += 1
        else:
            counts.valid += 1
        reporter.add(found, (), found[0].file if found else "")
    if fmt == "text":
        click.echo(f"{plural(counts.files, 'dataset file')}: {counts.valid} valid, {counts.invalid} invalid, "
                   f"{plural(counts.warnings, 'warning')}" + (f" ({counts.unreadable} unreadable)"
                                                               if counts.unreadable else ""))
    else:
        reporter.close(counts)
    if counts.unreadable:
        sys.exit(EXIT_USAGE)
    sys.exit(EXIT_FINDINGS if counts.invalid else EXIT_OK)


@dataset.command("push")
@click.argument("file", metavar="FILE")
@click.argument("destination", metavar="s3://BUCKET/KEY")
@click.option("--overwrite", is_flag=True, help="Replace an object that already exists there with other content.")
@limits_options
def push_cmd(file: str, destination: str, overwrite: bool, max_file_mib: int, max_depth: int,
             max_nodes: int) -> None:
    """Upload a dataset file to S3/MinIO, where an Experiment's spec.dataset.s3 points.

    Connects as the setup phase does: MINIO_ENDPOINT, MINIO_ROOT_USER and MINIO_ROOT_PASSWORD, with
    the same defaults (http://testkube-minio-service-testkube.testkube:9000, minio/minio123: the MinIO
    inside the cluster; reach it with kubectl port-forward). The file is validated first and not
    uploaded with errors; an existing object with other content is kept unless --overwrite.

    Exit codes: 0 uploaded (or already there), 1 the file is invalid or the upload failed, 2
    unreadable input or a usage error.
    """
    from kubectl_testbench.dataset.s3 import S3Error, S3Settings, parse_s3_url, push
    from kubectl_testbench.load.sources import Source, SourceError, read_bytes
    from kubectl_testbench.validate.dataset import check_dataset_bytes
    from kubectl_testbench.validate.diagnostics import Severity
    from kubectl_testbench.validate.report import text_line

    try:
        bucket, key = parse_s3_url(destination)
    except ValueError as err:
        fail(str(err))
    if not key.lower().endswith(".json"):
        fail(f"the key {key!r} does not end in .json: the setup phase refuses any other file")
    limits = limits_from(max_file_mib, max_depth, max_nodes)
    try:
        data = read_bytes(Source(file), limits)
    except SourceError as err:
        fail(f"{display_path(err.path)}: {err.message}")
    found = check_dataset_bytes(data, file, limits)
    for d in found:
        click.echo(text_line(d).rstrip("\n"), err=True)
    if any(d.severity is Severity.ERROR for d in found):
        fail(f"{display_path(file)} is not a valid dataset file: nothing was uploaded", EXIT_FINDINGS)
    settings = S3Settings.from_env()
    try:
        pushed = push(data, bucket, key, settings, overwrite)
    except S3Error as err:
        fail(str(err) + _reach_hint(settings.endpoint), EXIT_FINDINGS)
    verb = "already up to date" if pushed.unchanged else f"uploaded {len(data)} bytes"
    click.echo(f"{pushed.url}: {verb} at {settings.endpoint}"
               + (" (MINIO_* not set: the setup phase's defaults)" if settings.defaulted else ""), err=True)


def _reach_hint(endpoint: str) -> str:
    """How to reach the in-cluster default endpoint from here, when that is the one that failed."""
    from kubectl_testbench.layout import MINIO_DEFAULT

    if endpoint == MINIO_DEFAULT:
        from kubectl_testbench.local.plan import port_forward_hint

        hint = port_forward_hint(MINIO_DEFAULT, "MINIO_ENDPOINT=")
        return f" (the setup phase's default, inside the cluster: {hint})"
    return ""
