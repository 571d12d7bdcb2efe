"""CEL rules the models attach to the CRD, kept free of pydantic so the validator can import them cheaply."""

from __future__ import annotations

from kubectl_testbench.model.schema_meta import CelRule
from kubectl_testbench.rules.cel import CEL_DATASET_EXACTLY_ONE

DATASET_EXACTLY_ONE = CelRule(
    id=CEL_DATASET_EXACTLY_ONE.id,
    rule="(has(self.s3) ? 1 : 0) + (has(self.url) ? 1 : 0) + (has(self.inline) ? 1 : 0) == 1",
    message="exactly one of s3, url, or inline must be set",
    json_schema={"oneOf": [{"required": ["s3"]}, {"required": ["url"]}, {"required": ["inline"]}]},
)

ALL: tuple[CelRule, ...] = (DATASET_EXACTLY_ONE,)
BY_RULE_TEXT: dict[str, CelRule] = {r.rule: r for r in ALL}
