"""Common base for the models: camelCase aliases, strict extra-field handling, field docs from docstrings."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from kubectl_testbench.model.schema_meta import CelRule


class KubeModel(BaseModel):
    """A Kubernetes API object part: camelCase on the wire, snake_case in Python, unknown fields rejected."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        use_attribute_docstrings=True,
        frozen=True,
    )

    k8s_schema: ClassVar[dict[str, Any]] = {}
    """Extra OpenAPI keywords for this object's schema node (e.g. ``x-kubernetes-map-type``)."""

    cel_rules: ClassVar[tuple[CelRule, ...]] = ()
    """CEL rules attached to this object's schema node."""

    def wire(self) -> dict[str, Any]:
        """The object as the API server stores it: camelCase keys, unset fields omitted."""
        return self.model_dump(by_alias=True, exclude_none=True, mode="json")
