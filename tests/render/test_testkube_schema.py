"""Every rendered manifest validates against the real Testkube 2.12.2 CRD schemas (two engines)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings

from kubectl_testbench.render.compile import render_experiment
from kubectl_testbench.render.settings import Flags
from kubectl_testbench.validate.engine import Options, validate_text
from tests.conftest import EXAMPLES, TESTKUBE_CRDS, require_reference
from tests.strategies import experiments
from tests.testkube_schema import CRD_FILES, problems
from tests.validate.helpers import keep


def _examples() -> list[dict[str, Any]]:
    out = []
    for path in sorted(EXAMPLES.rglob("*.yaml")):
        result = validate_text(path.read_text(), str(path), Options(), keep=keep(experiments=True))
        out += [e.data for e in result.experiments]
    return out


def test_examples_render_to_schema_valid_manifests() -> None:
    require_reference(TESTKUBE_CRDS)
    rendered = [o for exp in _examples() for o in render_experiment(exp, Flags(argocd_sync_waves=True))]
    assert {o["kind"] for o in rendered} >= {"ConfigMap", "TestWorkflow", "TestTrigger"}
    for obj in rendered:
        assert problems(obj) == [], obj["metadata"]["name"]


def test_the_schema_check_catches_a_wrong_manifest() -> None:
    require_reference(TESTKUBE_CRDS)
    bad = {"apiVersion": "tests.testkube.io/v1", "kind": "TestTrigger", "metadata": {"name": "x"},
           "spec": {"action": "run", "event": "modified", "execution": "testworkflow",
                    "testSelector": {"name": "w"}, "concurrencyPolicy": "Allow"}}
    found = problems(bad)
    assert any("ours: schema/enum" in p for p in found) and any(p.startswith("jsonschema") for p in found)


@settings(max_examples=60, deadline=None)
@given(exp=experiments())
def test_generated_experiments_render_to_schema_valid_manifests(exp: dict[str, Any]) -> None:
    require_reference(TESTKUBE_CRDS)
    from kubectl_testbench.emit.yamlout import dump

    # our writer, not yaml.safe_dump: PyYAML writes the string "n" unquoted, which Kubernetes reads as false
    result = validate_text(dump(exp), "gen.yaml", Options(), keep=keep(experiments=True))
    assert [d.message for d in result.diagnostics if d.severity.value == "error"] == []
    for obj in render_experiment(result.experiments[0].data, Flags()):
        assert problems(obj) == []


def test_each_reference_file_is_the_crd_of_the_kind_it_checks() -> None:
    require_reference(TESTKUBE_CRDS)
    import yaml

    for kind, name in CRD_FILES.items():
        crd = yaml.safe_load((TESTKUBE_CRDS / name).read_text())
        assert (crd["kind"], crd["spec"]["names"]["kind"]) == ("CustomResourceDefinition", kind)
        assert [v["name"] for v in crd["spec"]["versions"] if v.get("storage")] == ["v1"]
