"""What ``render --resolve`` produces: each step of a TestWorkflow as Testkube will run it.

The dataclasses are the library API (issue 21's end-to-end harness runs each :class:`ResolvedStep` with the
real phase package); :func:`document` is the printed ``-o json`` / ``-o yaml`` form, documented in
docs/render.md. Field names of the printed form are camelCase like the Kubernetes objects they come from.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kubectl_testbench.model.constants import API_VERSION

DOCUMENT_KIND = "ResolvedWorkflowList"


@dataclass(frozen=True, slots=True)
class ExecutionContext:
    """Placeholder values for what Testkube only knows when an execution starts (stated in the output).

    Defaults look like real ones: a 24-hex execution id, number 1, the name Testkube gives
    (``<workflow>-<number>``). The variables are those of testworkflowconfig/expressions.go
    (``CreateExecutionMachine``, ``CreateWorkflowMachine``, ``CreateResourceMachine``).
    """

    id: str = "000000000000000000000001"
    number: int = 1
    name: str | None = None
    """Default: ``<workflow>-<number>``."""
    group_id: str | None = None
    """Default: the execution id."""
    scheduled_at: str = "2000-01-01T00:00:00.000Z"
    tags: Mapping[str, str] = field(default_factory=dict)
    organization_id: str = ""
    environment_id: str = ""
    dashboard_url: str = ""

    def variables(self, workflow: str, labels: Mapping[str, str]) -> dict[str, Any]:
        """Every execution-time variable by its expression name (``execution.id``, ``workflow.name``, …)."""
        name = self.name or f"{workflow}-{self.number}"
        return {
            "execution.id": self.id,
            "execution.groupId": self.group_id or self.id,
            "execution.name": name,
            "execution.number": self.number,
            "execution.scheduledAt": self.scheduled_at,
            "execution.disableWebhooks": False,
            "execution.tags": dict(self.tags),
            "workflow.name": workflow,
            "workflow.labels": dict(labels),
            "resource.id": self.id,
            "resource.root": self.id,
            "resource.fsPrefix": "",
            "organization.id": self.organization_id,
            "environment.id": self.environment_id,
            "dashboard.url": self.dashboard_url,
        }


@dataclass(frozen=True, slots=True)
class EnvValue:
    """One variable: a literal string, or a ``valueFrom`` reference kept as a reference (a Secret's value is
    never known outside the cluster)."""

    value: str | None = None
    value_from: Mapping[str, Any] | None = None

    def printed(self) -> dict[str, Any]:
        return {"valueFrom": dict(self.value_from)} if self.value_from is not None else {"value": self.value or ""}


@dataclass(frozen=True, slots=True)
class MountedFile:
    """A file Testkube mounts into the step (``content.files``), with its content when it is known."""

    path: str
    source: Mapping[str, Any]
    """``{"configMapKeyRef": {"name", "key"}}``, ``{"secretKeyRef": …}`` or ``{"inline": True}``."""
    content: str | None = None
    """The text the step reads; None for a Secret or a ConfigMap that was not given."""

    def printed(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path, "source": dict(self.source)}
        if self.content is not None:
            out["content"] = self.content
        return out


@dataclass(frozen=True, slots=True)
class ResolvedStep:
    """One step as Testkube runs it: templates expanded, expressions evaluated, env merged."""

    name: str
    template: str
    """The TestWorkflowTemplate the step came from ("" for the workflow's own steps)."""
    image: str
    command: list[str]
    """The step's command, or the image's ENTRYPOINT when the step sets none (see ``entrypoint_from_image``)."""
    args: list[str]
    working_dir: str
    """Absolute; "" when neither the spec nor the image sets one (the container's ``/``)."""
    env: dict[str, EnvValue]
    """In the container's order (Testkube's ``CI=1`` first), one entry per name: the one that takes effect."""
    files: list[MountedFile] = field(default_factory=list)
    artifacts: list[str] = field(default_factory=list)
    image_pull_policy: str = ""
    entrypoint_from_image: bool = False
    """True when ``command`` is the image's ENTRYPOINT (from :data:`resolve.IMAGE_ENTRYPOINTS`; empty if the
    image is not one we know), not something the spec sets."""

    def env_value(self, name: str) -> str | None:
        """The literal value of ``name`` (None when unset or set from a reference)."""
        item = self.env.get(name)
        return item.value if item is not None and item.value_from is None else None

    def printed(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "template": self.template,
            "image": self.image,
            "imagePullPolicy": self.image_pull_policy,
            "command": list(self.command),
            "entrypointFromImage": self.entrypoint_from_image,
            "args": list(self.args),
            "workingDir": self.working_dir,
            "env": {name: value.printed() for name, value in self.env.items()},
            "files": [f.printed() for f in self.files],
            "artifacts": list(self.artifacts),
        }


@dataclass(frozen=True, slots=True)
class ResolvedWorkflow:
    """A TestWorkflow with every ``use`` expanded."""

    name: str
    namespace: str
    steps: list[ResolvedStep]

    def step(self, template: str) -> ResolvedStep:
        """The (first) step that came from ``template``; KeyError when none did."""
        for step in self.steps:
            if step.template == template:
                return step
        raise KeyError(template)

    def printed(self) -> dict[str, Any]:
        return {"kind": "ResolvedWorkflow", "metadata": {"name": self.name, "namespace": self.namespace},
                "steps": [s.printed() for s in self.steps]}


class DocumentError(ValueError):
    """A ``ResolvedWorkflowList`` that is not what :func:`document` prints (the message names the field)."""


def _field(data: Any, key: str, kind: type, where: str) -> Any:
    if not isinstance(data, dict) or key not in data:
        raise DocumentError(f"{where}: missing {key!r}")
    value = data[key]
    if not isinstance(value, kind):
        raise DocumentError(f"{where}.{key}: expected {kind.__name__}, got {type(value).__name__}")
    return value


def _strings(data: Any, key: str, where: str) -> list[str]:
    values = _field(data, key, list, where)
    if not all(isinstance(v, str) for v in values):
        raise DocumentError(f"{where}.{key}: expected a list of strings")
    return list(values)


def _step_from_printed(data: Any, where: str) -> ResolvedStep:
    env: dict[str, EnvValue] = {}
    for name, item in _field(data, "env", dict, where).items():
        if isinstance(item, dict) and isinstance(item.get("valueFrom"), dict):
            env[name] = EnvValue(value_from=item["valueFrom"])
        else:
            env[name] = EnvValue(value=_field(item, "value", str, f"{where}.env.{name}"))
    files = []
    for i, item in enumerate(_field(data, "files", list, where)):
        at = f"{where}.files[{i}]"
        content = item.get("content") if isinstance(item, dict) else None
        if content is not None and not isinstance(content, str):
            raise DocumentError(f"{at}.content: expected str")
        files.append(MountedFile(_field(item, "path", str, at), _field(item, "source", dict, at), content))
    return ResolvedStep(
        name=_field(data, "name", str, where), template=_field(data, "template", str, where),
        image=_field(data, "image", str, where), command=_strings(data, "command", where),
        args=_strings(data, "args", where), working_dir=_field(data, "workingDir", str, where), env=env,
        files=files, artifacts=_strings(data, "artifacts", where),
        image_pull_policy=_field(data, "imagePullPolicy", str, where),
        entrypoint_from_image=_field(data, "entrypointFromImage", bool, where))


def parse_document(doc: Any) -> list[ResolvedWorkflow]:
    """The workflows of a printed ``ResolvedWorkflowList`` (``render --resolve -o json``), as dataclasses again:
    ``document(parse_document(d), …)["items"] == d["items"]``. Raises :class:`DocumentError`."""
    if not isinstance(doc, dict) or doc.get("kind") != DOCUMENT_KIND or doc.get("apiVersion") != API_VERSION:
        raise DocumentError(f"not a {API_VERSION} {DOCUMENT_KIND}")
    workflows = []
    for i, item in enumerate(_field(doc, "items", list, "")):
        where = f"items[{i}]"
        meta = _field(item, "metadata", dict, where)
        steps = [_step_from_printed(s, f"{where}.steps[{j}]")
                 for j, s in enumerate(_field(item, "steps", list, where))]
        workflows.append(ResolvedWorkflow(_field(meta, "name", str, f"{where}.metadata"),
                                          _field(meta, "namespace", str, f"{where}.metadata"), steps))
    return workflows


def placeholders(execution: ExecutionContext) -> dict[str, str]:
    """The stated placeholder values, as strings, for the printed form."""
    from kubectl_testbench.render.resolve.expressions import to_string

    shown = execution.variables("<workflow>", {})
    return {name: to_string(value) for name, value in shown.items()
            if name.startswith(("execution.", "resource."))}


def document(workflows: list[ResolvedWorkflow], execution: ExecutionContext) -> dict[str, Any]:
    """The printed form: ``apiVersion``, ``kind: ResolvedWorkflowList``, the placeholders used, the workflows.

    Not a Kubernetes resource: an output format of kubectl-testbench, versioned with the API group.
    """
    return {"apiVersion": API_VERSION, "kind": DOCUMENT_KIND, "placeholders": placeholders(execution),
            "items": [w.printed() for w in workflows]}
