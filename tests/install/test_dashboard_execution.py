"""The execution-details dashboard: one execution's scores, failures, and a trace link into Tempo."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import unquote

import pytest

from kubectl_testbench.install import dashboard, dashboard_configmap, dashboard_execution
from tests.install.test_dashboard import GAUGE_LABELS, GRAFANA_BUILTINS, _label_names


def _model() -> dict[str, Any]:
    model: dict[str, Any] = json.loads(dashboard_configmap.configmap()["data"][dashboard_execution.CONFIGMAP_KEY])
    return model


def _exprs() -> list[str]:
    return [t["expr"] for p in _model()["panels"] for t in p.get("targets", [])]


def test_the_configmap_carries_it_next_to_the_trends_dashboard_with_distinct_uids() -> None:
    data = dashboard_configmap.configmap()["data"]
    trends, details = json.loads(data[dashboard.CONFIGMAP_KEY]), json.loads(data[dashboard_execution.CONFIGMAP_KEY])
    assert trends["uid"] != details["uid"] == "testbench-execution"
    assert data[dashboard_execution.CONFIGMAP_KEY] == dashboard_execution.dashboard_json()
    assert [link["url"] for link in trends["links"]] == ["/d/testbench-execution"]
    assert [link["url"] for link in details["links"]] == [f"/d/{dashboard.UID}"]


def test_panels_are_unique_inside_the_grid_and_do_not_overlap() -> None:
    panels = _model()["panels"]
    assert len({p["id"] for p in panels}) == len(panels)
    cells: set[tuple[int, int]] = set()
    for panel in panels:
        g = panel["gridPos"]
        assert g["x"] + g["w"] <= 24
        area = {(x, y) for x in range(g["x"], g["x"] + g["w"]) for y in range(g["y"], g["y"] + g["h"])}
        assert not cells & area, panel["title"]
        cells |= area


@pytest.mark.parametrize("expr", _exprs())
def test_every_query_reads_one_execution_of_the_real_gauge(expr: str) -> None:
    selectors = re.findall(r"testbench_evaluation_metric\{([^}]*)\}", expr)
    assert selectors, expr
    for selector in selectors:
        assert 'experiment_name=~"$experiment"' in selector and 'execution_id=~"$execution"' in selector
    assert _label_names(expr) <= GAUGE_LABELS, expr


def test_experiment_and_execution_are_single_choices_narrowed_in_order() -> None:
    variables = {v["name"]: v for v in _model()["templating"]["list"]}
    assert variables["tempo"]["type"] == "datasource" and variables["tempo"]["query"] == "tempo"
    assert not variables["experiment"]["multi"] and not variables["execution"]["multi"]
    assert "$experiment" in variables["execution"]["definition"]
    assert "$execution" in variables["scenario"]["definition"]
    text = json.dumps(_model())
    used = set(re.findall(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)", unquote(text)))
    assert used <= set(variables) | GRAFANA_BUILTINS, used


def test_every_evaluation_links_its_trace_id_to_tempo_explore() -> None:
    tables = [p for p in _model()["panels"] if p["type"] == "table"]
    assert [t["title"] for t in tables] == ["Failed evaluations", "All evaluations"]
    assert 'result="fail"' in tables[0]["targets"][0]["expr"]
    for table in tables:
        names = table["transformations"][0]["options"]["include"]["names"]
        assert "trace_id" in names
        [trace] = [o for o in table["fieldConfig"]["overrides"] if o["matcher"]["options"] == "Trace"]
        [link] = trace["properties"][0]["value"]
        assert link["url"].startswith("/explore?left=")
        left = json.loads(unquote(link["url"].removeprefix("/explore?left=")))
        assert left == {"datasource": "${tempo}", "queries": [
            {"refId": "A", "queryType": "traceql", "query": "${__data.fields.trace_id}"}]}
