"""The contract between render and install, checked on what render really emits: every ``use[]`` entry names
a shipped template with exactly the config it declares, in the namespace the templates are installed to, and
the inline dataset is mounted where the templates' working directory makes the run phase read it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kubectl_testbench import layout
from kubectl_testbench.install import bundle
from kubectl_testbench.install.templates import declared_parameters
from tests.conftest import EXAMPLES, ROOT
from tests.install.test_templates import use_errors
from tests.validate.helpers import keep

render_compile = pytest.importorskip("kubectl_testbench.render.compile")
render_settings = pytest.importorskip("kubectl_testbench.render.settings")

SOURCES = [p for p in sorted(EXAMPLES.rglob("*.yaml")) + sorted((ROOT / "tests" / "render" / "fixtures").glob("*.yaml"))
           if "kind: Experiment" in p.read_text()]


def _experiments(path: Path) -> list[dict[str, Any]]:
    from kubectl_testbench.validate.engine import Options, validate_text

    result = validate_text(path.read_text(), str(path), Options(), keep=keep(experiments=True))
    assert result.counts.invalid == 0, [d.message for d in result.diagnostics]
    return [e.data for e in result.experiments]


def _workflows(path: Path, **flags: Any) -> list[dict[str, Any]]:
    out = []
    for exp in _experiments(path):
        objs = render_compile.render_experiment(exp, render_settings.Flags(**flags))
        out += [o for o in objs if o["kind"] == "TestWorkflow"]
    return out


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_rendered_use_matches_the_installed_templates(path: Path) -> None:
    workflows = _workflows(path)
    assert workflows
    installed = {(o["metadata"]["namespace"], o["metadata"]["name"])
                 for o in bundle.objects(bundle.Options()) if o["kind"] == "TestWorkflowTemplate"}
    for wf in workflows:
        uses = wf["spec"]["use"]
        assert use_errors(uses) == []
        for use in uses:
            assert (wf["metadata"]["namespace"], use["name"]) in installed


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_rendered_workflow_runs_the_whole_pipeline_once(path: Path) -> None:
    for wf in _workflows(path):
        names = [u["name"] for u in wf["spec"]["use"]]
        assert names[-4:] == [layout.RUN_TEMPLATE, layout.EVALUATE_TEMPLATE, layout.PUBLISH_TEMPLATE,
                              layout.VISUALIZE_TEMPLATE]
        assert names[:-4] in ([], [layout.SETUP_TEMPLATE])
        files = wf["spec"].get("content", {}).get("files", [])
        if not names[:-4]:
            assert [f["path"] for f in files] == [layout.DATASET_PATH], "inline datasets are mounted"
        else:
            assert not files, "downloaded datasets must not be shadowed by a mount"


def test_render_into_another_testkube_namespace_pairs_with_install_there() -> None:
    path = EXAMPLES / "experiments" / "weather-inline.yaml"
    wfs = _workflows(path, testkube_namespace="qa-testkube")
    installed = {o["metadata"]["namespace"] for o in bundle.objects(bundle.Options(testkube_namespace="qa-testkube"))
                 if o["kind"] == "TestWorkflowTemplate"}
    assert {wf["metadata"]["namespace"] for wf in wfs} == installed == {"qa-testkube"}


def test_every_parameter_without_a_default_is_one_render_can_fill() -> None:
    required = {name: [p for p, has_default in declared_parameters(name).items() if not has_default]
                for name in layout.PHASE_TEMPLATES}
    assert required == {
        layout.SETUP_TEMPLATE: [],
        layout.RUN_TEMPLATE: ["agentUrl", "experimentName"], layout.EVALUATE_TEMPLATE: [],
        layout.PUBLISH_TEMPLATE: ["experimentName"], layout.VISUALIZE_TEMPLATE: ["experimentName"],
    }
