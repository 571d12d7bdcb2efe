"""Markers that carry Kubernetes OpenAPI extensions from the models into the generated CRD.

Pydantic knows JSON Schema, not the Kubernetes dialect (preserve-unknown-fields, int-or-string,
map types, CEL rules), so the models annotate fields with :class:`K8s` and the CRD generator reads them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class K8s:
    """Extra OpenAPI keywords for one field's schema node, merged over what the type implies."""

    extra: dict[str, Any] = field(default_factory=dict)

    def __init__(self, **extra: Any) -> None:
        object.__setattr__(self, "extra", extra)

    def __hash__(self) -> int:
        return hash(tuple(sorted(self.extra)))


PRESERVE_UNKNOWN = K8s(**{"x-kubernetes-preserve-unknown-fields": True})
INT_OR_STRING = K8s(**{"x-kubernetes-int-or-string": True})


@dataclass(frozen=True)
class CelRule:
    """A CEL validation rule owned by a model, with the stable rule id our diagnostics use for it.

    The rule text and message go into the CRD's ``x-kubernetes-validations``; the validator reads them
    back from the generated CRD and looks the id up here by rule text.
    """

    id: str
    rule: str
    message: str
    json_schema: dict[str, Any] = field(default_factory=dict)
    """An equivalent JSON Schema fragment for editors, which cannot run CEL."""
