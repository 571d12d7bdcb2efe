"""``schemas/`` (the CRD as controller-gen writes it, a JSON Schema for editors) and the validator's packaged
copy of the CRD (``_generated/experiment-crd.json``), all from the models."""

from __future__ import annotations

import json

from kubectl_testbench.crd.document import crd_document

CRD_FILE = "testbench.agentic-layer.ai_experiments.yaml"
JSON_SCHEMA_FILE = "experiment.schema.json"


def packaged_crd_text() -> str:
    """What :mod:`kubectl_testbench.validate.crdschema` reads: JSON, so a run needs no YAML parser for it."""
    return json.dumps(crd_document(), indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def packaged_cel_rules_text() -> str:
    """``cel-rules.json`` for the packaged CRD's one version."""
    from kubectl_testbench.generate.cel_rules import table_text

    versions = crd_document()["spec"]["versions"]
    if len(versions) != 1:
        raise NotImplementedError("cel-rules.json describes one CRD version")
    return table_text(versions[0]["schema"]["openAPIV3Schema"])
