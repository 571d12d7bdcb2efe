"""The dataset schema ``dataset validate`` uses is the phase package's own, and judges as the phase does.

``_generated/dataset-schema.json`` is derived from the installed agentic-layer-testbench 0.10.0 (its
``testbench/schema/experiment.schema.json`` joined with ``common.schema.json``): drift-tested here as the metric
table is in test_phases_e2e.py. Then, for documents valid and invalid in each way the schema can tell, our verdict
is compared with two judges that are not ours: the package's schema files as they are (``$ref`` and all) under
the ``jsonschema`` library, and the phase's own pydantic ``Experiment`` model, which the setup phase runs.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from kubectl_testbench.generate.dataset_schema import installed_schemas, joined, render
from kubectl_testbench.phases.env import Env
from kubectl_testbench.validate.dataset import GENERATED_SCHEMA, check_dataset
from kubectl_testbench.validate.diagnostics import Severity


def _step(**fields: Any) -> dict[str, Any]:
    return {"scenarios": [{"name": "s", "steps": [{"input": "hi", **fields}]}]}


DOCUMENTS: list[tuple[str, Any]] = [
    ("minimal", {"scenarios": []}),
    ("full", {"llm_as_a_judge_model": "m", "default_threshold": 0.5, **_step(
        reference={"response": "r", "tool_calls": [{"name": "t", "args": {"a": [1, {"b": None}]}}], "topics": ["x"]},
        custom_values={"k": {"deep": [1]}}, metrics=[{"metric_name": "m", "threshold": 1, "parameters": {"p": 1}}])}),
    ("no scenarios", {}),
    ("not an object", []),
    ("scenarios not a list", {"scenarios": {}}),
    ("scenario without name", {"scenarios": [{"steps": []}]}),
    ("scenario without steps", {"scenarios": [{"name": "s"}]}),
    ("input a number", {"scenarios": [{"name": "s", "steps": [{"input": 5}]}]}),
    ("step without input", {"scenarios": [{"name": "s", "steps": [{}]}]}),
    ("threshold above 1", {"default_threshold": 1.5, "scenarios": []}),
    ("threshold below 0", _step(metrics=[{"metric_name": "m", "threshold": -0.1}])),
    ("threshold a string", {"default_threshold": "0.9", "scenarios": []}),
    ("threshold a boolean", {"default_threshold": True, "scenarios": []}),
    ("metric without metric_name", _step(metrics=[{"metricName": "m"}])),
    ("custom_values a list", _step(custom_values=["a"])),
    ("tool call without args", _step(reference={"tool_calls": [{"name": "t"}]})),
    ("args a string", _step(reference={"tool_calls": [{"name": "t", "args": "x"}]})),
    ("parameters a number", _step(metrics=[{"metric_name": "m", "parameters": 3}])),
    ("topics of numbers", _step(reference={"topics": [1]})),
    ("judge model a number", {"llm_as_a_judge_model": 4, "scenarios": []}),
    ("camelCase fields only warn", {"defaultThreshold": 0.5, "scenarios": []}),
]


def _ours(document: Any) -> bool:
    """Valid for us: no error (warnings are fields the schema allows and the phase ignores)."""
    return not any(d.severity is Severity.ERROR for d in check_dataset(json.loads(json.dumps(document)), "f.json"))


def test_the_committed_schema_is_the_installed_packages(phase_env: Env) -> None:
    assert GENERATED_SCHEMA.read_text(encoding="utf-8") == render(joined(installed_schemas(phase_env))), (
        "kubectl_testbench/_generated/dataset-schema.json is out of date: "
        "run python -m kubectl_testbench.generate --write dataset-schema")


def test_our_verdicts_are_the_package_schemas_under_jsonschema(phase_env: Env) -> None:
    from jsonschema import Draft7Validator
    from referencing import Registry, Resource

    schemas = installed_schemas(phase_env)
    registry = Registry().with_resources((name, Resource.from_contents(s)) for name, s in schemas.items())
    validator = Draft7Validator(schemas["experiment.schema.json"], registry=registry)
    differ = [name for name, doc in DOCUMENTS if validator.is_valid(doc) != _ours(doc)]
    assert differ == []
    assert sum(_ours(doc) for _, doc in DOCUMENTS) == 3, "the valid ones: minimal, full, camelCase"


_PYDANTIC = """
import json, sys
from pydantic import ValidationError
from testbench.schema.models import Experiment
out = []
for doc in json.load(sys.stdin):
    try:
        Experiment.model_validate(doc)
        out.append(True)
    except ValidationError:
        out.append(False)
print(json.dumps(out))
"""

LAX = {"threshold a string", "threshold a boolean"}
"""Where pydantic's lax mode coerces what the schema refuses ("0.9" and true to numbers; a number for a string it
refuses): the schema is stricter there, and dataset validate follows the schema."""


def test_our_verdicts_are_the_phase_models_except_where_pydantic_coerces(phase_env: Env) -> None:
    done = subprocess.run([str(phase_env.python), "-I", "-c", _PYDANTIC], input=json.dumps([d for _, d in DOCUMENTS]),
                          capture_output=True, text=True, timeout=120, check=True)
    theirs = dict(zip([n for n, _ in DOCUMENTS], json.loads(done.stdout), strict=True))
    differ = {name for name, doc in DOCUMENTS if theirs[name] != _ours(doc)}
    assert differ == LAX


@pytest.mark.parametrize("field", ["llm_as_a_judge_model", "default_threshold"])
def test_null_for_an_optional_field_is_accepted_as_the_phase_accepts_it(phase_env: Env, field: str) -> None:
    """The schema says string/number, the phase's models take null as absent: the file works, so no error."""
    assert _ours({field: None, "scenarios": []})
