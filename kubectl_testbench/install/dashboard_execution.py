"""The second dashboard upstream ships: one execution in detail, with a link from each evaluation to its trace
in Tempo.

The publish phase sets ``trace_id`` on every point of ``testbench_evaluation_metric`` (the scenario span the run
phase opened around its A2A calls; ``missing-trace-id`` when there was none), so a failing score leads straight
to the agent's spans. Panels and variables are built with :mod:`grafana`; the ConfigMap (:mod:`dashboard_configmap`)
holds both dashboards under separate keys, as upstream's configMapGenerator does.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from kubectl_testbench.install.dashboard import FAILED, GAUGE, PASSED
from kubectl_testbench.install.dashboard import UID as TRENDS_UID
from kubectl_testbench.install.grafana import (
    COUNT,
    FAILURES,
    PASS_FAIL_MAPPINGS,
    PERCENT,
    SCORE,
    THRESHOLDS_PERCENT,
    THRESHOLDS_SCORE,
    canonical_json,
    link,
    model,
    panel,
    query_variable,
    stat,
    target,
)

UID = "testbench-execution"
TITLE = "Testbench execution details"
CONFIGMAP_KEY = "testbench-execution-details.json"
SELECTOR = 'experiment_name=~"$experiment", execution_id=~"$execution", scenario_name=~"$scenario"'
TEMPO_EXPLORE = "/explore?left=" + quote(json.dumps(
    {"datasource": "${tempo}", "queries": [{"refId": "A", "queryType": "traceql",
                                             "query": "${__data.fields.trace_id}"}]},
    separators=(",", ":")), safe="${}_.")
"""Grafana Explore on the ``tempo`` data source variable, querying the row's trace id."""
TABLE_FIELDS = ["scenario_name", "step_index", "name", "Value", "threshold", "result", "trace_id"]
RENAMES = {"scenario_name": "Scenario", "step_index": "Step", "name": "Metric", "Value": "Score",
           "threshold": "Threshold", "result": "Result", "trace_id": "Trace"}


def _gauge(extra: str = "") -> str:
    """The execution's points: each execution publishes once, so the range's last value is the score."""
    return f"last_over_time({GAUGE}{{{SELECTOR}{', ' + extra if extra else ''}}}[$__range])"


def _stats() -> list[dict[str, Any]]:
    def top(pid: int, title: str, description: str, expr: str, defaults: dict[str, Any]) -> dict[str, Any]:
        return stat(pid, title, description, (pid - 1) * 4, expr, defaults, y=0, width=4)

    return [
        top(1, "Scenarios", "Scenarios with published scores in this execution.",
            f"count(count by (scenario_name) ({_gauge()}))", COUNT),
        top(2, "Pass rate", "Share of evaluations whose score reached their threshold.",
            f"100 * (count({_gauge(PASSED)}) or vector(0)) / count({_gauge()})", PERCENT),
        top(3, "Mean score", "Mean of all scores of this execution (0 to 1).", f"avg({_gauge()})", SCORE),
        top(4, "Failed evaluations", "Evaluations below their threshold.", f"count({_gauge(FAILED)}) or vector(0)",
            FAILURES),
        top(5, "Evaluations", "Scores published by this execution.", f"count({_gauge()})", COUNT),
        top(6, "Metrics", "Distinct metrics evaluated.", f"count(count by (name) ({_gauge()}))", COUNT),
    ]


def _scenario_pass_rate() -> dict[str, Any]:
    total = f"count by (scenario_name) ({_gauge()})"
    passed = f"count by (scenario_name) ({_gauge(PASSED)})"
    return panel(7, "bargauge", "Pass rate by scenario", "Share of passing evaluations in each scenario.",
                 (0, 4, 24, 8), [target(f"100 * ({passed} or 0 * {total}) / {total}", "{{scenario_name}}",
                                        instant=True)],
                 {"unit": "percent", "min": 0, "max": 100, "decimals": 0, "thresholds": THRESHOLDS_PERCENT,
                  "color": {"mode": "thresholds"}},
                 {"displayMode": "gradient", "orientation": "horizontal", "showUnfilled": True, "valueMode": "text",
                  "reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False}})


def _table(pid: int, title: str, description: str, y: int, expr: str) -> dict[str, Any]:
    trace_link = {"title": "View the trace in Tempo", "targetBlank": True, "url": TEMPO_EXPLORE}
    return panel(
        pid, "table", title, description, (0, y, 24, 10), [target(expr, instant=True, table=True)],
        {"custom": {"align": "auto", "cellOptions": {"type": "auto"}}},
        {"showHeader": True, "cellHeight": "sm", "sortBy": [{"displayName": "Scenario", "desc": False}]},
        overrides=[
            {"matcher": {"id": "byName", "options": "Trace"}, "properties": [{"id": "links", "value": [trace_link]}]},
            {"matcher": {"id": "byName", "options": "Result"},
             "properties": [{"id": "mappings", "value": PASS_FAIL_MAPPINGS},
                            {"id": "custom.cellOptions", "value": {"type": "color-background"}}]},
            {"matcher": {"id": "byName", "options": "Score"},
             "properties": [{"id": "decimals", "value": 3}, {"id": "thresholds", "value": THRESHOLDS_SCORE},
                            {"id": "custom.cellOptions", "value": {"type": "color-text"}}]},
        ],
        transformations=[
            {"id": "filterFieldsByName", "options": {"include": {"names": TABLE_FIELDS}}},
            {"id": "organize", "options": {"indexByName": {name: i for i, name in enumerate(TABLE_FIELDS)},
                                           "renameByName": RENAMES}},
        ])


def _variables() -> list[dict[str, Any]]:
    single = {"multi": False, "includeAll": False, "current": {}}
    return [
        {"name": "datasource", "label": "Data source", "type": "datasource", "query": "prometheus",
         "description": "Prometheus-compatible data source that receives the OTLP metrics", "refresh": 1,
         "regex": "", "hide": 0, "includeAll": False, "multi": False, "options": [], "current": {}},
        {"name": "tempo", "label": "Traces", "type": "datasource", "query": "tempo",
         "description": "Tempo data source holding the run phase's traces", "refresh": 1, "regex": "", "hide": 0,
         "includeAll": False, "multi": False, "options": [], "current": {}},
        {**query_variable("experiment", "Experiment", f"label_values({GAUGE}, experiment_name)",
                          "Experiment (metadata.name of the Experiment)"), **single},
        {**query_variable("execution", "Execution",
                          f'label_values({GAUGE}{{experiment_name=~"$experiment"}}, execution_id)',
                          "Testkube execution id"), **single},
        query_variable("scenario", "Scenario",
                       f'label_values({GAUGE}{{experiment_name=~"$experiment", execution_id=~"$execution"}}, '
                       "scenario_name)", "Scenario of the dataset"),
    ]


def dashboard() -> dict[str, Any]:
    """The dashboard model (Grafana JSON)."""
    panels = [
        *_stats(),
        _scenario_pass_rate(),
        _table(8, "Failed evaluations", "Evaluations below their threshold; the trace link opens the scenario's "
               "spans in Tempo.", 12, _gauge(FAILED)),
        _table(9, "All evaluations", "Every score of the execution, with its threshold, result and trace.", 22,
               _gauge()),
    ]
    return model(TITLE, UID, f"One Testbench execution: its scores, failures and the traces behind them (gauge "
                 f"{GAUGE}).", panels, _variables(),
                 [link("Evaluation trends", f"/d/{TRENDS_UID}", "All executions over time", icon="arrow-left")],
                 "now-30d")


def dashboard_json() -> str:
    return canonical_json(dashboard())
