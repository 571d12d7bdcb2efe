"""Every committed file this package generates, by target, with the text it must have.

A target is what one change to the code makes stale: ``crd`` (the models → ``schemas/``, the packaged CRD
and what CEL needs on a cold start), ``defaults`` (the RenderDefaults model), ``rules`` (the rule table →
``docs/rules.md``), ``kustomize`` (the install bundle → ``kustomize/base``), ``metrics`` (the phase
package's metric classes; only on request, see :mod:`kubectl_testbench.generate.metrics`), ``dataset-schema`` (the
phase package's schema of a dataset file; only on request, see :mod:`kubectl_testbench.generate.dataset_schema`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from kubectl_testbench.generate import REPO


def crd_files() -> dict[Path, str]:
    from kubectl_testbench.crd.document import crd_yaml
    from kubectl_testbench.crd.jsonschema import json_schema_text
    from kubectl_testbench.generate.cel_parser import tables_text
    from kubectl_testbench.generate.crd import CRD_FILE, JSON_SCHEMA_FILE, packaged_cel_rules_text, packaged_crd_text
    from kubectl_testbench.validate import crdschema
    from kubectl_testbench.validate.cel import parser_tables, shipped

    return {
        REPO / "schemas" / CRD_FILE: crd_yaml(),
        REPO / "schemas" / JSON_SCHEMA_FILE: json_schema_text(),
        crdschema.GENERATED: packaged_crd_text(),
        parser_tables.GENERATED: tables_text(),
        shipped.GENERATED: packaged_cel_rules_text(),
    }


def defaults_files() -> dict[Path, str]:
    from kubectl_testbench.generate.defaults_schema import defaults_schema_text
    from kubectl_testbench.validate.defaults_document import GENERATED_SCHEMA

    return {GENERATED_SCHEMA: defaults_schema_text()}


def rules_files() -> dict[Path, str]:
    from kubectl_testbench.rules.docs import markdown

    return {REPO / "docs" / "rules.md": markdown()}


def kustomize_files() -> dict[Path, str]:
    from kubectl_testbench.generate import kustomize

    return {kustomize.BASE / "install.yaml": kustomize.install_yaml(),
            kustomize.BASE / "kustomization.yaml": kustomize.base_kustomization()}


def metrics_files() -> dict[Path, str]:
    from kubectl_testbench.generate.metrics import metrics_text
    from kubectl_testbench.validate.metrics import GENERATED

    return {GENERATED: metrics_text()}


def dataset_schema_files() -> dict[Path, str]:
    from kubectl_testbench.generate.dataset_schema import dataset_schema_text
    from kubectl_testbench.validate.dataset import GENERATED_SCHEMA

    return {GENERATED_SCHEMA: dataset_schema_text()}


TARGETS: dict[str, Callable[[], dict[Path, str]]] = {
    "crd": crd_files, "defaults": defaults_files, "rules": rules_files, "kustomize": kustomize_files,
    "metrics": metrics_files, "dataset-schema": dataset_schema_files,
}
DEFAULT_TARGETS = ("crd", "defaults", "rules", "kustomize")
"""What ``--write``/``--check`` cover unless targets are named: everything computed from this package alone (not
``metrics`` and ``dataset-schema``, read from the phase package)."""


def expected_files(targets: tuple[str, ...] = DEFAULT_TARGETS) -> dict[Path, str]:
    """Every file of ``targets`` and the content it must have."""
    files: dict[Path, str] = {}
    for target in targets:
        files.update(TARGETS[target]())
    return files


def stale_files(expected: dict[Path, str]) -> list[Path]:
    """The files that are missing or differ from what they must be."""
    return [p for p, text in expected.items() if not p.exists() or p.read_text(encoding="utf-8") != text]
