"""The Grafana dashboard for published evaluation scores, shipped as a sidecar-discovered ConfigMap.

It is built for what the publish image really emits: one gauge ``testbench_evaluation_metric`` whose
attributes (Prometheus labels once exported over OTLP) are ``name`` (the metric), ``experiment_name``,
``execution_id``, ``execution_number``, ``scenario_name``, ``step_index``, ``result`` (pass|fail) and
``threshold``. A collapsed row covers the product reference's variant (one gauge per metric name with
``workflow_name``, ``scenario``, ``step``) so a dashboard also shows data for images that follow it;
docs/metrics.md explains both.

Each execution publishes once, at its end, so the queries read ``last_over_time(…[$__interval])``: one
point per execution instead of a five-minute plateau from Prometheus' lookback. Built with :mod:`grafana`;
shipped with the execution details (:mod:`dashboard_execution`) in one ConfigMap (:mod:`dashboard_configmap`).
"""

from __future__ import annotations

from typing import Any

from kubectl_testbench.install.grafana import (
    COUNT,
    FAILURES,
    PASS_FAIL_MAPPINGS,
    PERCENT,
    SCORE,
    THRESHOLDS_SCORE,
    canonical_json,
    link,
    model,
    panel,
    query_variable,
    row,
    stat,
    target,
)
from kubectl_testbench.validate.metrics import NEEDS

GAUGE = "testbench_evaluation_metric"
UID = "testbench-evaluations"
TITLE = "Testbench evaluations"
CONFIGMAP_KEY = "testbench-evaluations.json"
"""Its file name in the dashboards' ConfigMap (:mod:`dashboard_configmap`)."""
SELECTOR = ('experiment_name=~"$experiment", execution_id=~"$execution", scenario_name=~"$scenario", '
            'name=~"$metric"')
"""Every query on the gauge carries all four filters."""
PER_METRIC_NAMES = "(" + "|".join(sorted(NEEDS)) + ")(_ratio)?"
"""``__name__`` regex for the per-metric-gauge variant: the RAGAS metric names we know, with the ``_ratio``
suffix an OTLP-to-Prometheus translation adds when a unit of ``1`` is set."""
PASSED = 'result="pass"'
FAILED = 'result="fail"'
PER_METRIC_SELECTOR = f'__name__=~"{PER_METRIC_NAMES}", workflow_name=~"$workflow"'



def gauge(extra: str = "") -> str:
    """The gauge with every dashboard filter (plus ``extra`` matchers)."""
    return f"{GAUGE}{{{SELECTOR}{', ' + extra if extra else ''}}}"


def _last(extra: str = "", window: str = "$__interval") -> str:
    return f"last_over_time({gauge(extra)}[{window}])"


def _pass_ratio(by: str, window: str) -> str:
    """Share of passing evaluations per ``by`` group; 0 (not "no data") when none passed."""
    grouped = f"count by ({by}) "
    passed = grouped + f"({_last(PASSED, window)})"
    total = grouped + f"({_last('', window)})"
    return f"({passed} or 0 * {total}) / {total}"


_TIMESERIES_CUSTOM = {"drawStyle": "line", "lineInterpolation": "linear", "lineWidth": 2, "pointSize": 7,
                      "showPoints": "always", "spanNulls": True, "fillOpacity": 0}
_LEGEND_TABLE = {"legend": {"displayMode": "table", "placement": "right", "showLegend": True,
                            "calcs": ["lastNotNull", "mean", "min"]},
                 "tooltip": {"mode": "multi", "sort": "desc"}}


def _summary_panels() -> list[dict[str, Any]]:
    window = "$__range"
    return [
        row(1, "Summary (selected time range)", 0),
        stat(2, "Pass rate", "Share of metric evaluations whose score reached their threshold.", 0,
             f"100 * (count({_last(PASSED, window)}) or vector(0)) / count({_last('', window)})", PERCENT),
        stat(3, "Mean score", "Mean of all metric scores (0 to 1).", 6, f"avg({_last('', window)})", SCORE),
        stat(4, "Failed evaluations", "Metric evaluations below their threshold.", 12,
             f"count({_last(FAILED, window)}) or vector(0)", FAILURES),
        stat(5, "Executions", "Testkube executions that published scores.", 18,
             f"count(count by (execution_id) ({_last('', window)}))", COUNT),
    ]


def _trend_panels() -> list[dict[str, Any]]:
    return [
        row(6, "Scores over time", 5),
        panel(7, "timeseries", "Score per metric",
              "Mean score of each metric per execution (one point per execution).", (0, 6, 12, 10),
              [target(f"avg by (name) ({_last()})", "{{name}}")],
              {"min": 0, "max": 1, "decimals": 3, "custom": _TIMESERIES_CUSTOM, "color": {"mode": "palette-classic"}},
              _LEGEND_TABLE),
        panel(8, "timeseries", "Pass rate per scenario",
              "Share of passing metric evaluations in each scenario, per execution.", (12, 6, 12, 10),
              [target(f"100 * {_pass_ratio('scenario_name', '$__interval')}", "{{scenario_name}}")],
              {"unit": "percent", "min": 0, "max": 100, "custom": _TIMESERIES_CUSTOM,
               "color": {"mode": "palette-classic"}},
              _LEGEND_TABLE),
    ]


def _pass_fail_panels() -> list[dict[str, Any]]:
    status_mappings = [
        {"type": "range", "options": {"from": 1, "to": 1, "result": {"color": "green", "index": 0, "text": "pass"}}},
        {"type": "range", "options": {"from": 0, "to": 0.999999,
                                      "result": {"color": "red", "index": 1, "text": "fail"}}},
    ]
    table_fields = ["experiment_name", "execution_number", "scenario_name", "step_index", "name", "Value",
                    "threshold", "result"]
    return [
        row(9, "Pass/fail per scenario and step", 16),
        panel(10, "status-history", "Steps across executions",
              "Each row is a scenario step, each column an execution: green when every metric of the step "
              "passed, red otherwise.", (0, 17, 24, 9),
              [target(_pass_ratio("scenario_name, step_index", "$__interval"),
                      "{{scenario_name}} / step {{step_index}}")],
              {"mappings": status_mappings, "color": {"mode": "thresholds"},
               "thresholds": {"mode": "absolute", "steps": [{"color": "red", "value": None},
                                                            {"color": "green", "value": 1}]}},
              {"showValue": "never", "rowHeight": 0.8, "colWidth": 0.9, "legend": {"showLegend": False},
               "tooltip": {"mode": "single", "sort": "none"}}),
        panel(11, "table", "Results by scenario, step and metric",
              "Latest score, threshold and result of every metric in the selected executions.", (0, 26, 24, 12),
              [target(_last("", "$__range"), instant=True, table=True)],
              {"custom": {"align": "auto", "cellOptions": {"type": "auto"}}},
              {"showHeader": True, "cellHeight": "sm",
               "sortBy": [{"displayName": "Scenario", "desc": False}]},
              overrides=[
                  {"matcher": {"id": "byName", "options": "Result"},
                   "properties": [{"id": "mappings", "value": PASS_FAIL_MAPPINGS},
                                  {"id": "custom.cellOptions", "value": {"type": "color-background"}}]},
                  {"matcher": {"id": "byName", "options": "Score"},
                   "properties": [{"id": "decimals", "value": 3}, {"id": "min", "value": 0},
                                  {"id": "max", "value": 1}, {"id": "thresholds", "value": THRESHOLDS_SCORE},
                                  {"id": "custom.cellOptions", "value": {"type": "gauge", "mode": "basic"}}]},
              ],
              transformations=[
                  {"id": "filterFieldsByName", "options": {"include": {"names": table_fields}}},
                  {"id": "organize", "options": {
                      "indexByName": {name: i for i, name in enumerate(table_fields)},
                      "renameByName": {"experiment_name": "Experiment", "execution_number": "Execution",
                                       "scenario_name": "Scenario", "step_index": "Step", "name": "Metric",
                                       "Value": "Score", "threshold": "Threshold", "result": "Result"},
                  }},
              ]),
    ]


def _per_metric_panels() -> list[dict[str, Any]]:
    renamed = f'label_replace({{{PER_METRIC_SELECTOR}}}, "metric", "$1", "__name__", "(.+)")'
    children = [
        panel(13, "timeseries", "Score per metric (per-metric gauges)",
              "Images that publish one gauge per metric name (product reference contract).", (0, 39, 12, 10),
              [target(f"avg by (metric) ({renamed})", "{{metric}}")],
              {"min": 0, "max": 1, "decimals": 3, "custom": _TIMESERIES_CUSTOM, "color": {"mode": "palette-classic"}},
              _LEGEND_TABLE),
        panel(14, "table", "Latest score per workflow, scenario and step (per-metric gauges)",
              "Latest value of each per-metric gauge in the time range.", (12, 39, 12, 10),
              [target(f"last_over_time({renamed}[$__range:])", instant=True, table=True)],
              {"decimals": 3}, {"showHeader": True, "cellHeight": "sm"},
              transformations=[{"id": "filterFieldsByName", "options": {"include": {
                  "names": ["workflow_name", "scenario", "step", "metric", "Value"]}}}]),
    ]
    return [row(12, "Per-metric gauges (product reference contract)", 38, collapsed=True, panels=children)]


def _variables() -> list[dict[str, Any]]:
    return [
        {"name": "datasource", "label": "Data source", "type": "datasource", "query": "prometheus",
         "description": "Prometheus-compatible data source that receives the OTLP metrics", "refresh": 1,
         "regex": "", "hide": 0, "includeAll": False, "multi": False, "options": [], "current": {}},
        query_variable("experiment", "Experiment", f"label_values({GAUGE}, experiment_name)",
                       "Experiment (metadata.name of the Experiment)"),
        query_variable("execution", "Execution",
                       f'label_values({GAUGE}{{experiment_name=~"$experiment"}}, execution_id)',
                       "Testkube execution id"),
        query_variable("scenario", "Scenario",
                       f'label_values({GAUGE}{{experiment_name=~"$experiment"}}, scenario_name)',
                       "Scenario of the dataset"),
        query_variable("metric", "Metric", f'label_values({GAUGE}{{experiment_name=~"$experiment"}}, name)',
                       "Metric name (RAGAS class)"),
        query_variable("workflow", "Workflow (per-metric gauges)",
                       f'label_values({{__name__=~"{PER_METRIC_NAMES}"}}, workflow_name)',
                       "Testkube workflow, for images that publish one gauge per metric name"),
    ]


def dashboard() -> dict[str, Any]:
    """The dashboard model (Grafana JSON)."""
    return model(TITLE, UID, f"Scores of Testbench agent evaluations published by the publish phase (gauge {GAUGE}).",
                 _summary_panels() + _trend_panels() + _pass_fail_panels() + _per_metric_panels(), _variables(),
                 [link("Execution details", "/d/testbench-execution", "One execution, with trace links",
                       include_vars=True)], "now-7d")


def dashboard_json() -> str:
    return canonical_json(dashboard())
