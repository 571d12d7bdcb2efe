"""Validating a RenderDefaults document (``testbench-defaults.yaml``) against its schema and the URL and
namespace rules, with located findings.

Here, below render, because ``validate`` reports a RenderDefaults document it meets among the inputs with the
same findings that render's reading of the file (render/defaults_file) stops on.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from kubectl_testbench.load.positions import field_path, locate
from kubectl_testbench.model.constants import DEFAULTS_KIND
from kubectl_testbench.package_data import GENERATED_DIR
from kubectl_testbench.rules.semantic import SEMANTIC_DNS_LABEL, SEMANTIC_URL_PLACEHOLDER
from kubectl_testbench.validate.diagnostics import Diagnostic, Severity

GENERATED_SCHEMA = GENERATED_DIR / "render-defaults-schema.json"
"""The RenderDefaults schema, generated from its pydantic model (:mod:`kubectl_testbench.generate.defaults_schema`)
so that reading a defaults file needs no pydantic."""


@cache
def _validator() -> Any:
    from kubectl_testbench.validate.schema import SchemaValidator

    with GENERATED_SCHEMA.open(encoding="utf-8") as handle:
        return SchemaValidator(json.load(handle))


def check_defaults_document(doc: dict[str, Any], file: str) -> list[Diagnostic]:
    """Schema findings for one RenderDefaults document, located in its file."""
    # only a defaults file that exists needs it
    from kubectl_testbench.k8snames import dns1123_label_error
    from kubectl_testbench.model.url_templates import PLACEHOLDER_HINT, template_problem
    from kubectl_testbench.validate.schema import show

    errors, _ = _validator().validate(doc)
    out = []
    for err in errors:
        line, col = locate(doc, err.path, key=err.key) or (0, 0)
        out.append(Diagnostic(err.rule, Severity.ERROR, err.message, file, line, col, field_path(err.path), err.hint,
                              DEFAULTS_KIND))
    spec: dict[str, Any] = doc["spec"] if isinstance(doc.get("spec"), dict) else {}
    gateway: dict[str, Any] = spec["aiGateway"] if isinstance(spec.get("aiGateway"), dict) else {}
    templates = ((("spec", "agentUrl"), spec.get("agentUrl")), (("spec", "aiGateway", "url"), gateway.get("url")))
    namespace = spec.get("testkubeNamespace")
    problem = dns1123_label_error(namespace) if isinstance(namespace, str) else None
    if problem is not None:  # the schema takes any string here: a string is checked only by this
        line, col = locate(doc, ("spec", "testkubeNamespace")) or (0, 0)
        out.append(Diagnostic(SEMANTIC_DNS_LABEL.id, Severity.ERROR, f"Invalid value: {show(namespace)}: {problem}",
                              file, line, col, "spec.testkubeNamespace", "a namespace is a DNS-1123 label",
                              DEFAULTS_KIND))
    for at, template in templates:
        problem = template_problem(template) if isinstance(template, str) else None
        if problem is not None and not any(err.path == at for err in errors):
            line, col = locate(doc, at) or (0, 0)
            out.append(Diagnostic(SEMANTIC_URL_PLACEHOLDER.id, Severity.ERROR,
                                  f'Invalid value: "{template}": {problem}', file, line, col, field_path(at),
                                  PLACEHOLDER_HINT, DEFAULTS_KIND))
    return out
