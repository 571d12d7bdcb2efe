"""Start an Experiment's TestWorkflow as a ``TestWorkflowExecution`` and follow it to the end.

Testkube's execution controller acts on a new ``TestWorkflowExecution`` (``spec.testWorkflow.name``,
optional ``spec.executionRequest``), schedules the workflow and writes ``status.latestExecution``
(id, number, ``result.status`` queued → running → passed | failed | aborted, per-step results and a
``signature`` with the step names); scheduling failures land in ``status.error`` or in a failed
``result.initialization``. We poll that status: no watch, so it works through any proxy.
"""

from __future__ import annotations

import posixpath
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from kubectl_testbench import layout
from kubectl_testbench.cluster.client import Client
from kubectl_testbench.cluster.errors import ClusterError, Forbidden, NotFound
from kubectl_testbench.cluster.resources import EXECUTION, EXPERIMENT, TESTWORKFLOW, Ref, dig, mapping, sequence, text
from kubectl_testbench.model import naming

TERMINAL = ("passed", "failed", "aborted")
REPORT_ARTIFACT = posixpath.relpath(layout.REPORT_PATH, layout.WORKING_DIR)
"""The visualize step collects the report relative to its working directory."""
METRIC = "testbench_evaluation_metric"
TESTKUBE_API_SERVICE = "testkube-api-server:8088"
MAX_LABEL = 63


class WorkflowMissing(ClusterError):
    """The Experiment's TestWorkflow does not exist (not applied yet, or another Testkube namespace)."""


@dataclass(frozen=True, slots=True)
class Target:
    """The TestWorkflow to run and the Experiment it belongs to."""

    experiment: str
    namespace: str
    workflow: str
    testkube_namespace: str
    source: str
    """How the workflow was found: ``experiment status`` or ``naming convention``."""


def resolve_workflow(client: Client, experiment: str, namespace: str, testkube_namespace: str,
                     note: Callable[[str], None] = lambda message: None) -> Target:
    """The workflow of an Experiment: from the Experiment's ``status.generatedResources`` when the operator
    recorded one, else by the naming convention ``<name>-<namespace>-workflow`` in the Testkube namespace.

    Reading the Experiment is optional (GitOps setups grant nothing on Experiments): when RBAC forbids it,
    ``note`` hears why and the naming convention decides."""
    name = naming.resource_name(experiment, namespace, naming.SUFFIX_WORKFLOW)
    if client.served(EXPERIMENT):
        try:
            exp = client.get(Ref(EXPERIMENT, namespace, experiment))
        except Forbidden as err:
            note(f"{err.message}: the workflow is the one render names, {name}")
            exp = None
        for res in sequence(dig(exp, "status", "generatedResources")):
            if isinstance(res, dict) and res.get("kind") == "TestWorkflow" and res.get("name"):
                return Target(experiment, namespace, text(res["name"]),
                              text(res.get("namespace") or testkube_namespace), "experiment status")
    return Target(experiment, namespace, name, testkube_namespace, "naming convention")


def execution_body(target: Target, tags: dict[str, str] | None = None) -> dict[str, Any]:
    """The ``TestWorkflowExecution`` we create: a generated name, our labels, the workflow, tags."""
    labels = {naming.K8S_MANAGED_BY: naming.MANAGER, naming.LABEL_RESOURCE_TYPE: "execution"}
    for key, value in ((naming.LABEL_NAME, target.experiment), (naming.LABEL_NAMESPACE, target.namespace)):
        if len(value) <= MAX_LABEL:
            labels[key] = value
    request: dict[str, Any] = {}
    if tags:
        request["tags"] = dict(sorted(tags.items()))
    return {
        "apiVersion": EXECUTION.api_version,
        "kind": EXECUTION.kind,
        "metadata": {"generateName": target.workflow[:247] + "-", "namespace": target.testkube_namespace,
                     "labels": labels},
        "spec": {"testWorkflow": {"name": target.workflow}, "executionRequest": request},
    }


def start(client: Client, target: Target, *, tags: dict[str, str] | None = None,
          dry_run: bool = False) -> dict[str, Any]:
    """Check that Testkube and the workflow are there, then create the execution (returned as stored)."""
    client.ensure_served(EXECUTION)
    if client.get(Ref(TESTWORKFLOW, target.testkube_namespace, target.workflow)) is None:
        raise WorkflowMissing(
            f'TestWorkflow "{target.workflow}" not found in namespace "{target.testkube_namespace}" '
            f"(Experiment {target.namespace}/{target.experiment}): apply it first with kubectl testbench apply, "
            "or pass --testkube-namespace")
    return client.create(EXECUTION, target.testkube_namespace, execution_body(target, tags),
                         field_manager=naming.MANAGER, dry_run=dry_run)


@dataclass(frozen=True, slots=True)
class Progress:
    """One look at an execution."""

    name: str
    id: str
    number: int | None
    status: str
    """``pending`` until Testkube picked it up, then queued/running/paused/passed/failed/aborted."""
    step: str
    """The step running now (its name), or the failed step once it failed."""
    done: int
    total: int
    error: str
    duration: str

    @property
    def finished(self) -> bool:
        return self.status in TERMINAL or (bool(self.error) and self.status in ("pending", "queued"))

    @property
    def succeeded(self) -> bool:
        return self.status == "passed"


def progress(execution: dict[str, Any]) -> Progress:
    """Read a ``TestWorkflowExecution``'s status into a :class:`Progress`."""
    status = mapping(execution.get("status"))
    latest = mapping(status.get("latestExecution"))
    result = mapping(latest.get("result"))
    steps = mapping(result.get("steps"))
    names = _step_names(sequence(latest.get("signature")))
    order = list(names) or sorted(steps)

    def state(ref: str) -> Any:
        return dig(steps, ref, "status")

    done = sum(1 for ref in order if state(ref) in ("passed", "failed", "skipped", "aborted", "timeout"))
    current = next((ref for ref in order if state(ref) in ("running", "paused")), "")
    failed = next((ref for ref in order if state(ref) in ("failed", "timeout", "aborted")), "")
    error = text(status.get("error") or dig(result, "initialization", "errorMessage"))
    if failed and not error:
        error = text(dig(steps, failed, "errorMessage"))
    step_ref = failed or current
    number = latest.get("number")
    return Progress(
        name=text(dig(execution, "metadata", "name")),
        id=text(latest.get("id")),
        number=number if isinstance(number, int) else None,
        status=text(result.get("status") or ("failed" if status.get("error") else "pending")),
        step=names.get(step_ref, step_ref),
        done=done,
        total=len(order),
        error=" ".join(error.split()),
        duration=text(result.get("duration")),
    )


def _step_names(signature: list[Any], prefix: str = "") -> dict[str, str]:
    """Leaf steps of the execution signature, in order: ref → name."""
    out: dict[str, str] = {}
    for sig in signature:
        if not isinstance(sig, dict):
            continue
        name = text(sig.get("name") or sig.get("category") or sig.get("ref"))
        label = f"{prefix} › {name}" if prefix and name else (name or prefix)
        children = sequence(sig.get("children"))
        if children:
            out.update(_step_names(children, label))
        elif sig.get("ref"):
            out[text(sig["ref"])] = label
    return out


def follow(client: Client, namespace: str, name: str, *, timeout: float, interval: float = 2.0,
           clock: Callable[[], float] = time.monotonic,
           sleep: Callable[[float], None] = time.sleep) -> Iterator[Progress]:
    """Poll the execution every ``interval`` seconds; yield each reading until it finishes.

    Raises :class:`WaitTimeout` (carrying the last reading) after ``timeout`` seconds.
    """
    ref = Ref(EXECUTION, namespace, name)
    deadline = clock() + timeout
    last: Progress | None = None
    while True:
        obj = client.get(ref)
        if obj is None:
            raise NotFound(f'TestWorkflowExecution "{name}" in namespace "{namespace}" disappeared while waiting')
        last = progress(obj)
        yield last
        if last.finished:
            return
        if clock() + interval > deadline:
            raise WaitTimeout(last, timeout)
        sleep(interval)


class WaitTimeout(Exception):
    """The execution did not finish in time (it keeps running in the cluster)."""

    def __init__(self, last: Progress, timeout: float) -> None:
        super().__init__(f"timed out after {timeout:g}s")
        self.last = last
        self.timeout = timeout


@dataclass(frozen=True, slots=True)
class Where:
    """Where the results of one execution can be found."""

    report_artifact: str
    download: str
    api: str
    dashboard_path: str
    metrics: str


def where(target: Target, p: Progress) -> Where:
    """Pointers to the HTML report and the metrics of an execution."""
    ident = p.id or p.name
    proxy = (f"/api/v1/namespaces/{target.testkube_namespace}/services/{TESTKUBE_API_SERVICE}/proxy"
             f"/v1/test-workflow-executions/{ident}/artifacts")
    return Where(
        report_artifact=REPORT_ARTIFACT,
        download=f"testkube download artifacts {ident} --namespace {target.testkube_namespace}",
        api=proxy,
        dashboard_path=f"/test-workflows/{target.workflow}/execution/{ident}",
        metrics=f'{METRIC}{{experiment_name="{target.experiment}",execution_id="{ident}"}}',
    )
