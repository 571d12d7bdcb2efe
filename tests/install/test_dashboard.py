"""The Grafana dashboard: valid dashboard JSON, queries on the real gauge, filters wired to variables."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from kubectl_testbench.install import dashboard, dashboard_configmap

GAUGE_LABELS = {"name", "experiment_name", "execution_id", "execution_number", "experiment_id", "scenario_id",
                "scenario_name", "step_id", "step_index", "trace_id", "threshold", "result", "user_input_truncated"}
"""The attributes the publish image sets on testbench_evaluation_metric (publish.py@a7719f4:145-160)."""
PER_METRIC_LABELS = {"workflow_name", "scenario", "step", "metric", "__name__"}
GRAFANA_BUILTINS = {"__interval", "__range", "__all", "__rate_interval", "__data"}


def _panels(panels: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for panel in panels:
        yield panel
        yield from _panels(panel.get("panels", []))


def _model() -> dict[str, Any]:
    model: dict[str, Any] = json.loads(dashboard_configmap.configmap()["data"][dashboard.CONFIGMAP_KEY])
    return model


def _exprs() -> list[str]:
    return [t["expr"] for p in _panels(_model()["panels"]) for t in p.get("targets", [])]


def test_configmap_is_picked_up_by_the_grafana_sidecar() -> None:
    cm = dashboard_configmap.configmap()
    assert cm["metadata"]["name"] == "grafana-testkube-dashboard"
    assert cm["metadata"]["namespace"] == "monitoring"
    assert cm["metadata"]["labels"]["grafana_dashboard"] == "1"
    assert list(cm["data"]) == [dashboard.CONFIGMAP_KEY, "testbench-execution-details.json"]
    assert dashboard_configmap.configmap("observability")["metadata"]["namespace"] == "observability"


def test_json_is_canonical_sorted_and_stable() -> None:
    text = dashboard_configmap.configmap()["data"][dashboard.CONFIGMAP_KEY]
    assert text == json.dumps(json.loads(text), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    assert text == dashboard.dashboard_json()


def test_dashboard_model_has_what_grafana_requires() -> None:
    model = _model()
    assert isinstance(model["schemaVersion"], int) and model["schemaVersion"] >= 36
    assert model["uid"] == dashboard.UID and re.fullmatch(r"[A-Za-z0-9_-]{1,40}", model["uid"])
    assert model["title"] and model["time"] == {"from": "now-7d", "to": "now"}
    panels = list(_panels(model["panels"]))
    ids = [p["id"] for p in panels]
    assert len(ids) == len(set(ids)), "panel ids must be unique"
    for panel in panels:
        grid = panel["gridPos"]
        assert set(grid) == {"x", "y", "w", "h"}
        assert grid["x"] >= 0 and grid["x"] + grid["w"] <= 24 and grid["h"] > 0, panel["title"]
        if panel["type"] != "row":
            assert panel["targets"], panel["title"]
            assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}
            for target in panel["targets"]:
                assert target["datasource"]["uid"] == "${datasource}"
                assert target["refId"]


def test_top_level_panels_do_not_overlap() -> None:
    cells: set[tuple[int, int]] = set()
    for panel in _model()["panels"]:
        g = panel["gridPos"]
        area = {(x, y) for x in range(g["x"], g["x"] + g["w"]) for y in range(g["y"], g["y"] + g["h"])}
        assert not cells & area, panel["title"]
        cells |= area


def test_variables_filter_by_experiment_and_execution() -> None:
    variables = {v["name"]: v for v in _model()["templating"]["list"]}
    assert variables["datasource"]["type"] == "datasource" and variables["datasource"]["query"] == "prometheus"
    assert variables["experiment"]["query"]["query"] == "label_values(testbench_evaluation_metric, experiment_name)"
    assert "execution_id" in variables["execution"]["definition"]
    assert '$experiment' in variables["execution"]["definition"], "executions are narrowed by the experiment"
    for name in ("experiment", "execution", "scenario", "metric"):
        assert variables[name]["includeAll"] and variables[name]["allValue"] == ".*"


def test_queries_read_the_real_gauge_with_both_filters() -> None:
    exprs = _exprs()
    gauge_exprs = [e for e in exprs if dashboard.GAUGE in e]
    assert len(gauge_exprs) >= 6
    for expr in gauge_exprs:
        for selector in re.findall(r"testbench_evaluation_metric\{([^}]*)\}", expr):
            assert 'experiment_name=~"$experiment"' in selector, expr
            assert 'execution_id=~"$execution"' in selector, expr


def test_panels_cover_scores_over_time_and_pass_fail_per_scenario_and_step() -> None:
    panels = {p["title"]: p for p in _panels(_model()["panels"])}
    score = panels["Score per metric"]
    assert score["type"] == "timeseries" and "by (name)" in score["targets"][0]["expr"]
    steps = panels["Steps across executions"]
    assert steps["type"] == "status-history"
    assert "by (scenario_name, step_index)" in steps["targets"][0]["expr"]
    assert 'result="pass"' in steps["targets"][0]["expr"]
    table = panels["Results by scenario, step and metric"]
    names = table["transformations"][0]["options"]["include"]["names"]
    assert {"scenario_name", "step_index", "name", "result", "threshold", "Value"} <= set(names)


def _label_names(expr: str) -> set[str]:
    names: set[str] = set()
    for body in re.findall(r"\{([^{}]*)\}", expr):
        names |= set(re.findall(r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:=~|!~|!=|=)", body))
    for body in re.findall(r"\bby \(([^)]*)\)", expr):
        names |= {n.strip() for n in body.split(",")}
    return names


@pytest.mark.parametrize("expr", _exprs())
def test_every_query_is_balanced_and_uses_only_emitted_labels(expr: str) -> None:
    stripped = re.sub(r'"[^"]*"', '""', expr)
    for opening, closing in ("()", "{}", "[]"):
        depth = 0
        for ch in stripped:
            depth += (ch == opening) - (ch == closing)
            assert depth >= 0, expr
        assert depth == 0, expr
    assert expr.count('"') % 2 == 0
    assert _label_names(expr) <= GAUGE_LABELS | PER_METRIC_LABELS, expr


def test_every_variable_reference_is_defined() -> None:
    model = _model()
    defined = {v["name"] for v in model["templating"]["list"]} | GRAFANA_BUILTINS
    text = json.dumps(model)
    used = set(re.findall(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)", text))
    assert used <= defined, used - defined


def test_per_metric_gauge_variant_is_covered_in_a_collapsed_row() -> None:
    rows = [p for p in _model()["panels"] if p["type"] == "row" and p["collapsed"]]
    assert len(rows) == 1
    exprs = [t["expr"] for p in rows[0]["panels"] for t in p["targets"]]
    assert all('__name__=~"' in e and 'workflow_name=~"$workflow"' in e for e in exprs)
    assert "AgentGoalAccuracyWithoutReference" in dashboard.PER_METRIC_NAMES
    assert re.fullmatch(dashboard.PER_METRIC_NAMES, "ToolCallAccuracy_ratio")
    assert not re.fullmatch(dashboard.PER_METRIC_NAMES, dashboard.GAUGE)


def test_flux_substitution_is_disabled_for_the_dollar_braces() -> None:
    cm = dashboard_configmap.configmap()
    assert "${datasource}" in cm["data"][dashboard.CONFIGMAP_KEY]
    assert cm["metadata"]["annotations"]["kustomize.toolkit.fluxcd.io/substitute"] == "disabled"
