"""The Grafana dashboard for published evaluation scores, shipped as a sidecar-discovered ConfigMap.

It is built for what the publish image really emits: one gauge ``testbench_evaluation_metric`` whose
attributes (Prometheus labels once exported over OTLP) are ``name`` (the metric), ``experiment_name``,
``execution_id``, ``execution_number``, ``scenario_name``, ``step_index``, ``result`` (pass|fail) and
``threshold``. A collapsed row covers the product reference's variant (one gauge per metric name with
``workflow_name``, ``scenario``, ``step``) so a dashboard also shows data for images that follow it;
docs/metrics.md explains both.

Each execution publishes once, at its end, so the queries read ``last_over_time(…[$__interval])``: one
point per execution instead of a five-minute plateau from Prometheus' lookback.
"""

from __future__ import annotations

import json
from typing import Any

from kubectl_testbench.validate.metrics import NEEDS

GAUGE = "testbench_evaluation_metric"
UID = "testbench-evaluations"
TITLE = "Testbench evaluations"
CONFIGMAP_NAME = "grafana-testkube-dashboard"
CONFIGMAP_KEY = "testbench-evaluations.json"
DEFAULT_NAMESPACE = "monitoring"
SIDECAR_LABEL = "grafana_dashboard"
SCHEMA_VERSION = 39
"""Grafana 10.4's dashboard schema; newer Grafana migrates it on load, older releases still read it."""

DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}
SELECTOR = ('experiment_name=~"$experiment", execution_id=~"$execution", scenario_name=~"$scenario", '
            'name=~"$metric"')
"""Every query on the gauge carries all four filters."""
PER_METRIC_NAMES = "(" + "|".join(sorted(NEEDS)) + ")(_ratio)?"
"""``__name__`` regex for the per-metric-gauge variant: the RAGAS metric names we know, with the ``_ratio``
suffix an OTLP-to-Prometheus translation adds when a unit of ``1`` is set."""
PASSED = 'result="pass"'
FAILED = 'result="fail"'
PER_METRIC_SELECTOR = f'__name__=~"{PER_METRIC_NAMES}", workflow_name=~"$workflow"'

_THRESHOLDS_SCORE = {"mode": "absolute", "steps": [{"color": "red", "value": None},
                                                    {"color": "yellow", "value": 0.7},
                                                    {"color": "green", "value": 0.9}]}
_THRESHOLDS_PERCENT = {"mode": "absolute", "steps": [{"color": "red", "value": None},
                                                      {"color": "yellow", "value": 70},
                                                      {"color": "green", "value": 90}]}
_PASS_FAIL_MAPPINGS: list[dict[str, Any]] = [
    {"type": "value", "options": {"pass": {"color": "green", "index": 0, "text": "pass"},
                                  "fail": {"color": "red", "index": 1, "text": "fail"}}},
]


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


def _target(expr: str, legend: str = "", ref: str = "A", instant: bool = False, table: bool = False) -> dict[str, Any]:
    target: dict[str, Any] = {"datasource": DATASOURCE, "editorMode": "code", "expr": expr, "refId": ref}
    if legend:
        target["legendFormat"] = legend
    if instant:
        target.update({"instant": True, "range": False})
    else:
        target.update({"instant": False, "range": True})
    if table:
        target["format"] = "table"
    return target


def _panel(pid: int, kind: str, title: str, description: str, grid: tuple[int, int, int, int],
           targets: list[dict[str, Any]], defaults: dict[str, Any] | None = None,
           options: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    x, y, w, h = grid
    panel: dict[str, Any] = {
        "id": pid,
        "type": kind,
        "title": title,
        "description": description,
        "datasource": DATASOURCE,
        "gridPos": {"x": x, "y": y, "w": w, "h": h},
        "targets": targets,
        "fieldConfig": {"defaults": defaults or {}, "overrides": extra.pop("overrides", [])},
        "options": options or {},
    }
    panel.update(extra)
    return panel


def _row(pid: int, title: str, y: int, collapsed: bool = False,
         panels: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"id": pid, "type": "row", "title": title, "collapsed": collapsed,
            "gridPos": {"x": 0, "y": y, "w": 24, "h": 1}, "panels": panels or []}


PERCENT = {"unit": "percent", "min": 0, "max": 100, "decimals": 1, "thresholds": _THRESHOLDS_PERCENT,
           "color": {"mode": "thresholds"}}
SCORE = {"min": 0, "max": 1, "decimals": 3, "thresholds": _THRESHOLDS_SCORE, "color": {"mode": "thresholds"}}
FAILURES = {"decimals": 0, "color": {"mode": "thresholds"},
            "thresholds": {"mode": "absolute", "steps": [{"color": "green", "value": None},
                                                         {"color": "red", "value": 1}]}}
COUNT = {"decimals": 0, "color": {"mode": "fixed", "fixedColor": "blue"}}
"""Field defaults of the stat panels both dashboards show."""


def _stat(pid: int, title: str, description: str, x: int, expr: str, defaults: dict[str, Any], y: int = 1,
          width: int = 6) -> dict[str, Any]:
    return _panel(pid, "stat", title, description, (x, y, width, 4), [_target(expr, instant=True)], defaults,
                  {"colorMode": "background", "graphMode": "none", "justifyMode": "center", "textMode": "value",
                   "reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False}})


_TIMESERIES_CUSTOM = {"drawStyle": "line", "lineInterpolation": "linear", "lineWidth": 2, "pointSize": 7,
                      "showPoints": "always", "spanNulls": True, "fillOpacity": 0}
_LEGEND_TABLE = {"legend": {"displayMode": "table", "placement": "right", "showLegend": True,
                            "calcs": ["lastNotNull", "mean", "min"]},
                 "tooltip": {"mode": "multi", "sort": "desc"}}


def _summary_panels() -> list[dict[str, Any]]:
    window = "$__range"
    return [
        _row(1, "Summary (selected time range)", 0),
        _stat(2, "Pass rate", "Share of metric evaluations whose score reached their threshold.", 0,
              f"100 * (count({_last(PASSED, window)}) or vector(0)) / count({_last('', window)})", PERCENT),
        _stat(3, "Mean score", "Mean of all metric scores (0 to 1).", 6, f"avg({_last('', window)})", SCORE),
        _stat(4, "Failed evaluations", "Metric evaluations below their threshold.", 12,
              f"count({_last(FAILED, window)}) or vector(0)", FAILURES),
        _stat(5, "Executions", "Testkube executions that published scores.", 18,
              f"count(count by (execution_id) ({_last('', window)}))", COUNT),
    ]


def _trend_panels() -> list[dict[str, Any]]:
    return [
        _row(6, "Scores over time", 5),
        _panel(7, "timeseries", "Score per metric",
               "Mean score of each metric per execution (one point per execution).", (0, 6, 12, 10),
               [_target(f"avg by (name) ({_last()})", "{{name}}")],
               {"min": 0, "max": 1, "decimals": 3, "custom": _TIMESERIES_CUSTOM, "color": {"mode": "palette-classic"}},
               _LEGEND_TABLE),
        _panel(8, "timeseries", "Pass rate per scenario",
               "Share of passing metric evaluations in each scenario, per execution.", (12, 6, 12, 10),
               [_target(f"100 * {_pass_ratio('scenario_name', '$__interval')}", "{{scenario_name}}")],
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
        _row(9, "Pass/fail per scenario and step", 16),
        _panel(10, "status-history", "Steps across executions",
               "Each row is a scenario step, each column an execution: green when every metric of the step "
               "passed, red otherwise.", (0, 17, 24, 9),
               [_target(_pass_ratio("scenario_name, step_index", "$__interval"),
                        "{{scenario_name}} / step {{step_index}}")],
               {"mappings": status_mappings, "color": {"mode": "thresholds"},
                "thresholds": {"mode": "absolute", "steps": [{"color": "red", "value": None},
                                                             {"color": "green", "value": 1}]}},
               {"showValue": "never", "rowHeight": 0.8, "colWidth": 0.9, "legend": {"showLegend": False},
                "tooltip": {"mode": "single", "sort": "none"}}),
        _panel(11, "table", "Results by scenario, step and metric",
               "Latest score, threshold and result of every metric in the selected executions.", (0, 26, 24, 12),
               [_target(_last("", "$__range"), instant=True, table=True)],
               {"custom": {"align": "auto", "cellOptions": {"type": "auto"}}},
               {"showHeader": True, "cellHeight": "sm",
                "sortBy": [{"displayName": "Scenario", "desc": False}]},
               overrides=[
                   {"matcher": {"id": "byName", "options": "Result"},
                    "properties": [{"id": "mappings", "value": _PASS_FAIL_MAPPINGS},
                                   {"id": "custom.cellOptions", "value": {"type": "color-background"}}]},
                   {"matcher": {"id": "byName", "options": "Score"},
                    "properties": [{"id": "decimals", "value": 3}, {"id": "min", "value": 0},
                                   {"id": "max", "value": 1}, {"id": "thresholds", "value": _THRESHOLDS_SCORE},
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
        _panel(13, "timeseries", "Score per metric (per-metric gauges)",
               "Images that publish one gauge per metric name (product reference contract).", (0, 39, 12, 10),
               [_target(f"avg by (metric) ({renamed})", "{{metric}}")],
               {"min": 0, "max": 1, "decimals": 3, "custom": _TIMESERIES_CUSTOM, "color": {"mode": "palette-classic"}},
               _LEGEND_TABLE),
        _panel(14, "table", "Latest score per workflow, scenario and step (per-metric gauges)",
               "Latest value of each per-metric gauge in the time range.", (12, 39, 12, 10),
               [_target(f"last_over_time({renamed}[$__range:])", instant=True, table=True)],
               {"decimals": 3}, {"showHeader": True, "cellHeight": "sm"},
               transformations=[{"id": "filterFieldsByName", "options": {"include": {
                   "names": ["workflow_name", "scenario", "step", "metric", "Value"]}}}]),
    ]
    return [_row(12, "Per-metric gauges (product reference contract)", 38, collapsed=True, panels=children)]


def _query_variable(name: str, label: str, query: str, description: str, hide: int = 0) -> dict[str, Any]:
    return {
        "name": name, "label": label, "description": description, "type": "query", "datasource": DATASOURCE,
        "definition": query, "query": {"qryType": 1, "query": query, "refId": f"{name}-variable"},
        "refresh": 2, "sort": 1, "multi": True, "includeAll": True, "allValue": ".*",
        "current": {"selected": True, "text": ["All"], "value": ["$__all"]}, "options": [], "regex": "",
        "hide": hide,
    }


def _variables() -> list[dict[str, Any]]:
    return [
        {"name": "datasource", "label": "Data source", "type": "datasource", "query": "prometheus",
         "description": "Prometheus-compatible data source that receives the OTLP metrics", "refresh": 1,
         "regex": "", "hide": 0, "includeAll": False, "multi": False, "options": [], "current": {}},
        _query_variable("experiment", "Experiment", f"label_values({GAUGE}, experiment_name)",
                        "Experiment (metadata.name of the Experiment)"),
        _query_variable("execution", "Execution",
                        f'label_values({GAUGE}{{experiment_name=~"$experiment"}}, execution_id)',
                        "Testkube execution id"),
        _query_variable("scenario", "Scenario",
                        f'label_values({GAUGE}{{experiment_name=~"$experiment"}}, scenario_name)',
                        "Scenario of the dataset"),
        _query_variable("metric", "Metric", f'label_values({GAUGE}{{experiment_name=~"$experiment"}}, name)',
                        "Metric name (RAGAS class)"),
        _query_variable("workflow", "Workflow (per-metric gauges)",
                        f'label_values({{__name__=~"{PER_METRIC_NAMES}"}}, workflow_name)',
                        "Testkube workflow, for images that publish one gauge per metric name"),
    ]


def link(title: str, url: str, tooltip: str, icon: str = "dashboard", include_vars: bool = False) -> dict[str, Any]:
    """A dashboard link (keeps the time range)."""
    return {"title": title, "type": "link", "icon": icon, "url": url, "includeVars": include_vars, "keepTime": True,
            "targetBlank": False, "tags": [], "asDropdown": False, "tooltip": tooltip}


def model(title: str, uid: str, description: str, panels: list[dict[str, Any]], variables: list[dict[str, Any]],
          links: list[dict[str, Any]], time_from: str) -> dict[str, Any]:
    """A Grafana dashboard model around panels and variables (both dashboards share this envelope)."""
    return {
        "annotations": {"list": [{
            "builtIn": 1, "datasource": {"type": "grafana", "uid": "-- Grafana --"}, "enable": True, "hide": True,
            "iconColor": "rgba(0, 211, 255, 1)", "name": "Annotations & Alerts", "type": "dashboard",
        }]},
        "description": description,
        "editable": True,
        "fiscalYearStartMonth": 0,
        "graphTooltip": 1,
        "links": links,
        "panels": panels,
        "refresh": "",
        "schemaVersion": SCHEMA_VERSION,
        "tags": ["testbench", "testkube", "ai-evaluation"],
        "templating": {"list": variables},
        "time": {"from": time_from, "to": "now"},
        "timepicker": {},
        "timezone": "browser",
        "title": title,
        "uid": uid,
        "version": 1,
    }


def canonical_json(dashboard_model: dict[str, Any]) -> str:
    """Sorted keys and two-space indentation: stable bytes in the ConfigMap and in diffs."""
    return json.dumps(dashboard_model, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def dashboard() -> dict[str, Any]:
    """The dashboard model (Grafana JSON)."""
    return model(TITLE, UID, f"Scores of Testbench agent evaluations published by the publish phase (gauge {GAUGE}).",
                 _summary_panels() + _trend_panels() + _pass_fail_panels() + _per_metric_panels(), _variables(),
                 [link("Execution details", "/d/testbench-execution", "One execution, with trace links",
                       include_vars=True)], "now-7d")


def dashboard_json() -> str:
    return canonical_json(dashboard())


def configmap(namespace: str = DEFAULT_NAMESPACE) -> dict[str, Any]:
    """The ConfigMap a Grafana dashboard sidecar (label ``grafana_dashboard: "1"``) picks up: this dashboard and
    the execution details (:mod:`dashboard_execution`). Upstream's third, a Testkube overview, charts Testkube's
    own metrics and is left to Testkube (docs/metrics.md)."""
    from kubectl_testbench.install import dashboard_execution as execution

    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": CONFIGMAP_NAME,
            "namespace": namespace,
            "labels": {
                "app.kubernetes.io/name": "testbench",
                "app.kubernetes.io/part-of": "testbench",
                "app.kubernetes.io/component": "dashboard",
                "app.kubernetes.io/managed-by": "kubectl-testbench",
                SIDECAR_LABEL: "1",
            },
            "annotations": {
                # The JSON holds Grafana's ${datasource}: keep Flux's postBuild substitution away from it.
                "kustomize.toolkit.fluxcd.io/substitute": "disabled",
            },
        },
        "data": {CONFIGMAP_KEY: dashboard_json(), execution.CONFIGMAP_KEY: execution.dashboard_json()},
    }
