"""``_generated/render-defaults-schema.json``: the RenderDefaults schema, from its pydantic model.

Committed so that reading a defaults file (:mod:`kubectl_testbench.render.defaults_file`) needs no pydantic.
"""

from __future__ import annotations

import json
from typing import Any


def defaults_schema() -> dict[str, Any]:
    """The schema a ``testbench-defaults.yaml`` is checked against; ``metadata`` is free, as the CRD's is."""
    from kubectl_testbench.crd.openapi import model_schema
    from kubectl_testbench.model.defaults import RenderDefaults

    schema = model_schema(RenderDefaults)
    schema["properties"]["metadata"] = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    return schema


def defaults_schema_text() -> str:
    return json.dumps(defaults_schema(), indent=1, ensure_ascii=False) + "\n"
