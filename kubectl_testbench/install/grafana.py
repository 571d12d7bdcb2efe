"""Building Grafana dashboard JSON: panels, queries, variables, links and the dashboard envelope.

A small library for the dashboards ``install`` ships (:mod:`dashboard`, :mod:`dashboard_execution`): what they
share (the Prometheus data source, thresholds, the stat panels' field defaults, the envelope) is said once here.
"""

from __future__ import annotations

import json
from typing import Any

SCHEMA_VERSION = 39
"""Grafana 10.4's dashboard schema; newer Grafana migrates it on load, older releases still read it."""

DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}

THRESHOLDS_SCORE = {"mode": "absolute", "steps": [{"color": "red", "value": None},
                                                   {"color": "yellow", "value": 0.7},
                                                   {"color": "green", "value": 0.9}]}
THRESHOLDS_PERCENT = {"mode": "absolute", "steps": [{"color": "red", "value": None},
                                                     {"color": "yellow", "value": 70},
                                                     {"color": "green", "value": 90}]}
PASS_FAIL_MAPPINGS: list[dict[str, Any]] = [
    {"type": "value", "options": {"pass": {"color": "green", "index": 0, "text": "pass"},
                                  "fail": {"color": "red", "index": 1, "text": "fail"}}},
]


def target(expr: str, legend: str = "", ref: str = "A", instant: bool = False, table: bool = False) -> dict[str, Any]:
    """A PromQL query of a panel: over the time range, or ``instant`` (one value), as a ``table`` if asked."""
    query: dict[str, Any] = {"datasource": DATASOURCE, "editorMode": "code", "expr": expr, "refId": ref}
    if legend:
        query["legendFormat"] = legend
    if instant:
        query.update({"instant": True, "range": False})
    else:
        query.update({"instant": False, "range": True})
    if table:
        query["format"] = "table"
    return query


def panel(pid: int, kind: str, title: str, description: str, grid: tuple[int, int, int, int],
          targets: list[dict[str, Any]], defaults: dict[str, Any] | None = None,
          options: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    """A panel at ``grid`` (x, y, width, height); ``overrides`` and any other key in ``extra`` go in as given."""
    x, y, w, h = grid
    built: dict[str, Any] = {
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
    built.update(extra)
    return built


def row(pid: int, title: str, y: int, collapsed: bool = False,
        panels: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A row header across the full width; a ``collapsed`` row holds its ``panels`` itself."""
    return {"id": pid, "type": "row", "title": title, "collapsed": collapsed,
            "gridPos": {"x": 0, "y": y, "w": 24, "h": 1}, "panels": panels or []}


PERCENT = {"unit": "percent", "min": 0, "max": 100, "decimals": 1, "thresholds": THRESHOLDS_PERCENT,
           "color": {"mode": "thresholds"}}
SCORE = {"min": 0, "max": 1, "decimals": 3, "thresholds": THRESHOLDS_SCORE, "color": {"mode": "thresholds"}}
FAILURES = {"decimals": 0, "color": {"mode": "thresholds"},
            "thresholds": {"mode": "absolute", "steps": [{"color": "green", "value": None},
                                                         {"color": "red", "value": 1}]}}
COUNT = {"decimals": 0, "color": {"mode": "fixed", "fixedColor": "blue"}}
"""Field defaults of the stat panels both dashboards show."""


def stat(pid: int, title: str, description: str, x: int, expr: str, defaults: dict[str, Any], y: int = 1,
         width: int = 6) -> dict[str, Any]:
    """A single-value panel, four units high, coloured by ``defaults``' thresholds."""
    return panel(pid, "stat", title, description, (x, y, width, 4), [target(expr, instant=True)], defaults,
                 {"colorMode": "background", "graphMode": "none", "justifyMode": "center", "textMode": "value",
                  "reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False}})

def query_variable(name: str, label: str, query: str, description: str, hide: int = 0) -> dict[str, Any]:
    """A multi-value dashboard variable filled by a Prometheus query, "All" selected."""
    return {
        "name": name, "label": label, "description": description, "type": "query", "datasource": DATASOURCE,
        "definition": query, "query": {"qryType": 1, "query": query, "refId": f"{name}-variable"},
        "refresh": 2, "sort": 1, "multi": True, "includeAll": True, "allValue": ".*",
        "current": {"selected": True, "text": ["All"], "value": ["$__all"]}, "options": [], "regex": "",
        "hide": hide,
    }

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
