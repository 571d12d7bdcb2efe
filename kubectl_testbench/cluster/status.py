"""One row per Experiment, from whatever the cluster has.

Two sources, merged by (namespace, name):

- ``experiment``: Experiment resources (``experiments.testbench.agentic-layer.ai``), when the CRD is
  served: the operator's world, or ``apply --include-experiment``.
- ``workflow``: the TestWorkflows generated for Experiments (labelled
  ``testbench.agentic-layer.ai/experiment-name``, whether we or the operator made them): GitOps mode,
  where the Experiment exists only in git and the cluster holds its rendered objects.

Agent, dataset mode, schedule and trigger come from the Experiment when there is one, else they are
read back from the generated TestWorkflow and TestTrigger. The last execution comes, in this order,
from the TestWorkflow's ``status.latestExecution`` (Testkube's own record of every run, however
started), the newest ``TestWorkflowExecution`` for the workflow, then the Experiment's
``status.lastExecution`` (the operator's copy).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kubectl_testbench import layout
from kubectl_testbench.cluster.client import Client
from kubectl_testbench.cluster.errors import Forbidden
from kubectl_testbench.cluster.resources import (
    EXECUTION,
    EXPERIMENT,
    TESTTRIGGER,
    TESTWORKFLOW,
    Ref,
    dig,
    mapping,
    sequence,
    text,
)
from kubectl_testbench.model import naming
from kubectl_testbench.safe_text import safe_log_line

SOURCE_EXPERIMENT = "experiment"
SOURCE_WORKFLOW = "workflow"


@dataclass(slots=True)
class Execution:
    id: str = ""
    number: int | None = None
    status: str = ""
    started: str = ""
    finished: str = ""
    source: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "number": self.number, "status": self.status, "startTime": self.started,
                "endTime": self.finished, "source": self.source}


@dataclass(slots=True)
class Row:
    namespace: str
    name: str
    source: str
    agent: str = ""
    dataset: str = ""
    schedule: str = ""
    trigger: str = ""
    workflow: str = ""
    workflow_namespace: str = ""
    workflow_present: bool = False
    last: Execution | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "namespace": self.namespace, "name": self.name, "source": self.source, "agent": self.agent,
            "dataset": self.dataset, "schedule": self.schedule, "trigger": self.trigger,
            "workflow": {"name": self.workflow, "namespace": self.workflow_namespace,
                         "present": self.workflow_present},
            "lastExecution": self.last.as_dict() if self.last else None,
        }


@dataclass(slots=True)
class Report:
    rows: list[Row] = field(default_factory=list)
    experiment_crd: bool = False
    testkube: bool = False
    notes: list[str] = field(default_factory=list)
    """Sources that could not be read (the Experiments: not installed, RBAC; Testkube: not installed), for stderr."""


def collect(client: Client, namespace: str | None, testkube_namespace: str, name: str | None = None) -> Report:
    """Rows for ``namespace`` (None: all namespaces), optionally only the Experiment ``name``."""
    report = Report()
    rows: dict[tuple[str, str], Row] = {}
    experiments: dict[tuple[str, str], dict[str, Any]] = {}

    report.experiment_crd = client.served(EXPERIMENT)
    if report.experiment_crd:
        try:
            if name is not None and namespace is not None:
                found = client.get(Ref(EXPERIMENT, namespace, name))
                items = [found] if found else []
            else:
                items = client.list(EXPERIMENT, namespace)
        except Forbidden as err:
            report.notes.append(f"Experiments not listed: {err.message}")
            items = []
        for exp in items:
            key = (text(dig(exp, "metadata", "namespace")), text(dig(exp, "metadata", "name")))
            experiments[key] = exp
            rows[key] = _from_experiment(exp, testkube_namespace)
    else:
        report.notes.append("no Experiment CRD in the cluster (GitOps mode): rows come from generated TestWorkflows")

    report.testkube = client.served(TESTWORKFLOW)
    if not report.testkube:
        report.notes.append(f"Testkube is not installed (no {TESTWORKFLOW.resource}): no workflows or executions")
    else:
        selector = naming.LABEL_NAME + (f",{naming.LABEL_NAMESPACE}={namespace}" if namespace else "")
        if name is not None:
            selector += f",{naming.LABEL_NAME}={name}"
        # required, unlike the Experiments: without them there is nothing to report (a Forbidden fails the command)
        workflows = client.list(TESTWORKFLOW, testkube_namespace, selector)
        triggers = client.list(TESTTRIGGER, testkube_namespace, selector) if client.served(TESTTRIGGER) else []
        executions = client.list(EXECUTION, testkube_namespace, None) if client.served(EXECUTION) else []
        by_workflow = {text(dig(t, "spec", "testSelector", "name")): t for t in triggers}
        for wf in workflows:
            labels = mapping(dig(wf, "metadata", "labels"))
            key = (text(labels.get(naming.LABEL_NAMESPACE)), text(labels.get(naming.LABEL_NAME)))
            row = rows.get(key)
            if row is None:
                row = rows[key] = _from_workflow(key, wf, by_workflow.get(_name(wf)))
            elif row.workflow and row.workflow != _name(wf):
                continue  # another workflow claims the same Experiment; keep the one the Experiment names
            row.workflow, row.workflow_namespace, row.workflow_present = _name(wf), testkube_namespace, True
            row.last = _latest_of_workflow(wf) or _latest_execution(executions, row.workflow) or row.last
        for key, row in rows.items():
            if not row.workflow_present and row.last is None and key in experiments:
                row.last = _latest_execution(executions, row.workflow)
    if name is not None:
        rows = {k: v for k, v in rows.items() if k[1] == name}
    report.rows = [rows[k] for k in sorted(rows)]
    return report


def _name(obj: dict[str, Any]) -> str:
    return text(dig(obj, "metadata", "name"))


def _dataset_mode(dataset: dict[str, Any]) -> str:
    return next((mode for mode in ("inline", "url", "s3") if dataset.get(mode) is not None), "")


def _schedule(cron: str, timezone: str) -> str:
    return f"{cron} ({timezone})" if cron and timezone else cron


def _from_experiment(exp: dict[str, Any], testkube_namespace: str) -> Row:
    spec = mapping(exp.get("spec"))
    ns, name = text(dig(exp, "metadata", "namespace")), text(dig(exp, "metadata", "name"))
    agent = mapping(spec.get("agentRef"))
    schedule = mapping(spec.get("schedule"))
    trigger = mapping(spec.get("trigger"))
    row = Row(ns, name, SOURCE_EXPERIMENT,
              agent=_agent(text(agent.get("name")), text(agent.get("namespace")), ns),
              dataset=_dataset_mode(mapping(spec.get("dataset"))),
              schedule=_schedule(text(schedule.get("cron")), text(schedule.get("timezone"))),
              trigger=(text(trigger.get("concurrencyPolicy") or "Allow").lower() if trigger.get("enabled") else ""),
              workflow=naming.resource_name(name, ns, naming.SUFFIX_WORKFLOW), workflow_namespace=testkube_namespace)
    for res in sequence(dig(exp, "status", "generatedResources")):
        if isinstance(res, dict) and res.get("kind") == "TestWorkflow" and res.get("name"):
            row.workflow = text(res["name"])
            row.workflow_namespace = text(res.get("namespace") or testkube_namespace)
    last = dig(exp, "status", "lastExecution")
    if isinstance(last, dict) and last:
        number = last.get("executionNumber")
        row.last = Execution(text(last.get("executionId")), number if isinstance(number, int) else None,
                             text(last.get("status")), text(last.get("startTime")),
                             text(last.get("endTime")), "experiment status")
    return row


def _agent(name: str, namespace: str, default_namespace: str) -> str:
    return f"{namespace or default_namespace}/{name}" if name else ""


def _from_workflow(key: tuple[str, str], wf: dict[str, Any], trigger: dict[str, Any] | None) -> Row:
    spec = mapping(wf.get("spec"))
    setup = next((u for u in sequence(spec.get("use"))
                  if isinstance(u, dict) and u.get("name") == layout.SETUP_TEMPLATE), None)
    if setup is not None:
        url = text(dig(setup, "config", "datasetUrl"))
        dataset = "url" if url and not url.startswith("s3://") else "s3"
    elif dig(spec, "content", "files"):
        dataset = "inline"
    else:
        dataset = ""
    cron = next((mapping(e.get("cronjob")) for e in sequence(spec.get("events")) if isinstance(e, dict)
                 and e.get("cronjob")), {})
    agent = ""
    if trigger is not None:
        labels = mapping(dig(trigger, "spec", "selector", "matchLabels"))
        agent = _agent(text(labels.get("testkube.io/resource-name")),
                       text(labels.get("testkube.io/resource-namespace")), key[0])
    if not agent:
        agent = _agent_from_url(spec)
    return Row(key[0], key[1], SOURCE_WORKFLOW, agent=agent, dataset=dataset,
               schedule=_schedule(text(cron.get("cron")), text(cron.get("timezone"))),
               trigger=text(dig(trigger, "spec", "concurrencyPolicy") or "allow") if trigger else "")


def _agent_from_url(spec: dict[str, Any]) -> str:
    """``http://<agent>.<namespace>:<port>`` from the run phase's config, when it has that shape."""
    for use in sequence(spec.get("use")):
        if isinstance(use, dict) and use.get("name") == layout.RUN_TEMPLATE:
            url = text(dig(use, "config", "agentUrl"))
            host = url.split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0]
            parts = host.split(".")
            if len(parts) >= 2 and parts[0]:
                return f"{parts[1]}/{parts[0]}"
            return host
    return ""


def _latest_of_workflow(wf: dict[str, Any]) -> Execution | None:
    latest = dig(wf, "status", "latestExecution")
    return _execution(latest, "testworkflow status") if isinstance(latest, dict) and latest else None


def _execution(latest: dict[str, Any], source: str) -> Execution:
    result = mapping(latest.get("result"))
    number = latest.get("number")
    return Execution(text(latest.get("id")), number if isinstance(number, int) else None,
                     text(result.get("status")), text(result.get("startedAt") or latest.get("scheduledAt")),
                     text(result.get("finishedAt")), source)


def _latest_execution(executions: list[dict[str, Any]], workflow: str) -> Execution | None:
    """The newest TestWorkflowExecution for a workflow (by scheduled time, then creation time)."""
    mine = [e for e in executions if dig(e, "spec", "testWorkflow", "name") == workflow]
    if not mine:
        return None

    def when(e: dict[str, Any]) -> tuple[str, str]:
        return text(dig(e, "status", "latestExecution", "scheduledAt")), text(dig(e, "metadata", "creationTimestamp"))

    newest = max(mine, key=when)
    latest = mapping(dig(newest, "status", "latestExecution"))
    if latest:
        return _execution(latest, "testworkflowexecution")
    return Execution(status="pending", source="testworkflowexecution")


def table(report: Report, all_namespaces: bool) -> str:
    """kubectl-style columns, padded with three spaces; every cell is cluster text, escaped for a terminal and a CI
    log before the columns are measured."""
    headers = (["NAMESPACE"] if all_namespaces else []) + ["NAME", "AGENT", "DATASET", "SCHEDULE", "TRIGGER",
                                                           "WORKFLOW", "LAST EXECUTION", "RESULT", "SOURCE"]
    lines = [headers]
    for row in report.rows:
        last = row.last
        number = f"#{last.number}" if last and last.number is not None else ""
        started = last.started if last else ""
        when = " ".join(x for x in (number, started) if x) if last else ""
        cells = ([row.namespace] if all_namespaces else []) + [
            row.name, row.agent or "-", row.dataset or "-", row.schedule or "-", row.trigger or "-",
            "yes" if row.workflow_present else "missing", when or "-", (last.status if last else "") or "-",
            row.source]
        lines.append([safe_log_line(cell) for cell in cells])
    widths = [max(len(line[i]) for line in lines) for i in range(len(headers))]
    return "".join("   ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip() + "\n"
                   for line in lines)
