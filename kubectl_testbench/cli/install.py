"""``kubectl testbench install``: the Testbench install manifest, generated from our models and templates."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from kubectl_testbench import layout
from kubectl_testbench.cli.common import EXIT_FINDINGS, EXIT_USAGE, fail
from kubectl_testbench.cli.output import emit, output_file_option

if TYPE_CHECKING:
    from kubectl_testbench.install.bundle import Options


@click.command()
@click.option("--mode", type=click.Choice(("operator", "gitops")), default="operator", show_default=True,
              help="operator: include the upstream controller (it renders Experiments in the cluster). "
                   "gitops: no controller or RBAC; `kubectl testbench render` does its job.")
@click.option("--image-tag", default=layout.DEFAULT_IMAGE_TAG, show_default=True, metavar="TAG",
              help="Release tag of the phase and operator images.")
@click.option("--testworkflow-image", default=None, metavar="IMAGE",
              help=f"Full phase image reference (default: {layout.TESTWORKFLOW_IMAGE}:TAG).")
@click.option("--operator-image", default=None, metavar="IMAGE",
              help=f"Full controller image reference (default: {layout.OPERATOR_IMAGE}:TAG).")
@click.option("--testkube-namespace", default=layout.TESTKUBE_NAMESPACE, show_default=True, metavar="NS",
              help="Namespace of Testkube, where the TestWorkflowTemplates go.")
@click.option("--dashboard-namespace", default="monitoring", show_default=True, metavar="NS",
              help="Namespace watched by the Grafana dashboard sidecar.")
@click.option("--operator-namespace", default="testbench-operator-system", show_default=True, metavar="NS",
              help="Namespace of the controller (--mode operator).")
@click.option("--create-namespaces", is_flag=True,
              help="Also create the Testkube and dashboard namespaces (annotated so GitOps tools never prune "
                   "them). Off by default: the manifest does not own them.")
@click.option("-o", "--output", "fmt", type=click.Choice(("yaml", "json")), default="yaml", show_default=True,
              help="yaml: a ---separated stream; json: a v1 List.")
@click.option("--output-dir", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Write one file per object plus kustomization.yaml into DIR (atomically).")
@output_file_option
def install(mode: str, image_tag: str, testworkflow_image: str | None, operator_image: str | None,
            testkube_namespace: str, dashboard_namespace: str, operator_namespace: str, create_namespaces: bool,
            fmt: str, output_dir: str | None, output_file: str | None) -> int:
    """Print the Testbench install manifest: the Experiment CRD, the phase TestWorkflowTemplates, the
    Grafana dashboard ConfigMap and, with --mode operator, the controller.

    Testkube (its TestWorkflowTemplate CRD) must be installed first. Apply with:

    \b
      kubectl testbench install | kubectl apply --server-side -f -
      kubectl testbench install --mode gitops --output-dir deploy/testbench
    """
    from kubectl_testbench.install.bundle import InstallError, Options

    if output_dir is not None and output_file is not None:
        fail("--output-dir and --output-file cannot be used together", EXIT_USAGE)
    options = Options(mode="gitops" if mode == "gitops" else "operator", image_tag=image_tag,
                      testworkflow_image=testworkflow_image, operator_image=operator_image,
                      testkube_namespace=testkube_namespace, dashboard_namespace=dashboard_namespace,
                      operator_namespace=operator_namespace, create_namespaces=create_namespaces)
    try:
        options.check()
    except InstallError as err:
        fail(str(err), EXIT_USAGE)
    if output_dir is not None:
        _write_dir(options, output_dir, "json" if fmt == "json" else "yaml")
        return 0
    from kubectl_testbench.install.bundle import json_text, yaml_text

    emit(json_text(options) if fmt == "json" else yaml_text(options), output_file)
    return 0


def _write_dir(options: Options, output_dir: str, fmt: str) -> None:
    """Atomically replace DIR; a directory we did not write is refused, never deleted."""
    from kubectl_testbench.emit.directory import OutputDirError, write
    from kubectl_testbench.install.bundle import HEADER_LINE, directory_files
    from kubectl_testbench.safe_text import escape_controls

    files = directory_files(options, "json" if fmt == "json" else "yaml")
    try:
        changes = write(Path(output_dir), files, HEADER_LINE)
    except OutputDirError as err:
        fail(f"cannot write {output_dir}: {err}", EXIT_FINDINGS)
    except OSError as err:
        fail(f"cannot write {output_dir}: {err.strerror or err}", EXIT_FINDINGS)
    for notice in changes.notices:
        click.echo(f"notice: {escape_controls(notice)}", err=True)
    click.echo(f"wrote {len(files)} files to {output_dir} ({len(changes.added)} added, {len(changes.changed)} "
               f"changed, {len(changes.removed)} removed)", err=True)
